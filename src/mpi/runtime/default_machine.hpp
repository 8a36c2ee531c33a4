#pragma once
// The machine `auto` predicts on when TOPOCOLL_MACHINE is unset (docs/mpi.md, "`auto` against
// the library"): one of the shipped machine files, its bytes compiled into the library
// (src/mpi/CMakeLists.txt generates default_machine_text.cpp), so that no file is needed at
// run time and `auto` always compares its candidate with the MPI library's own choice.
#include <string_view>

namespace topocoll::mpi {

struct EmbeddedMachine {
  std::string_view name;  // the file's name, for messages: "default machine <name>"
  std::string_view path;  // where it was read from at build time, in the source tree
  std::string_view text;  // the machine file, as shipped
};

[[nodiscard]] const EmbeddedMachine& default_machine();

}  // namespace topocoll::mpi
