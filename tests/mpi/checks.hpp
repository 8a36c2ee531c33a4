#pragma once
// One checked call of a topocoll collective: fills the buffers with data that depends on
// rank AND element, runs it, compares every element the call defines with the reference and
// every other byte of its buffers (guards around them, gaps of derived types, elements the
// call does not define) with what it held before the call, and names the first mismatch.
#include <cstdint>
#include <optional>
#include <string>

#include "runtime/mpi_collective.hpp"
#include "test_types.hpp"

namespace topocoll::mpitest {

using Coll = mpi::MpiCollective;

inline const char* coll_name(Coll c) { return mpi::info(c).name; }
inline bool is_reduction(Coll c) { return topocoll::is_reduction(mpi::core_collective(c)); }
inline bool is_rooted(Coll c) { return topocoll::is_rooted(mpi::core_collective(c)); }

struct CheckCase {
  Coll coll = Coll::allreduce;
  std::string algorithm;  // passed to topocoll_*
  const TypeCase* type = nullptr;
  const OpCase* op = nullptr;  // reductions only
  std::uint64_t count = 0;     // the MPI count (per rank for the chunked collectives)
  bool in_place = false;
  int root = 0;
  MPI_Comm comm = MPI_COMM_WORLD;
};

struct CheckResult {
  int rc = MPI_SUCCESS;
  std::string ran;                      // topocoll_last_algorithm()
  std::optional<std::string> mismatch;  // first wrong element, on this rank
};

[[nodiscard]] CheckResult run_check(const CheckCase& c);
[[nodiscard]] std::string describe(const CheckCase& c);

}  // namespace topocoll::mpitest
