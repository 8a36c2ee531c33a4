#pragma once
// What the MPI library itself would run for a call, as a registry baseline (docs/mpi.md,
// "auto against the library"): the algorithm its default selection picks by message size and
// communicator size, from the library's documentation. `auto` with a machine file predicts
// this algorithm and its own candidate on the machine and keeps the faster.
#include <cstdint>
#include <string>

#include "mpi_collective.hpp"

namespace topocoll::mpi {

enum class MpiLibrary { open_mpi, mpich, other };

// The library this process runs on (MPI_Get_library_version, asked once).
[[nodiscard]] MpiLibrary running_library();
[[nodiscard]] const char* library_name(MpiLibrary library);

// The registry algorithm that stands for the library's default choice for the call, or empty
// where none is modelled (the collective, or an algorithm the registry lacks). `bytes`: one
// rank's vector, as the rules files count it (the MPI count x the type size).
[[nodiscard]] std::string library_algorithm(MpiLibrary library, MpiCollective collective, int ranks,
                                            std::uint64_t bytes, bool commutative);

}  // namespace topocoll::mpi
