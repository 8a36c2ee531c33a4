#include "library_model.hpp"

#include <mpi.h>

#include <string_view>

namespace topocoll::mpi {
namespace {

bool power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

// Open MPI's `tuned` component in its fixed-decision mode (the default; Open MPI's "Tuning
// Collectives" page), with the thresholds of its long-standing decision function: allreduce by
// recursive doubling below 10000 bytes, else the ring for commutative operators; allgather by
// recursive doubling (powers of two) or Bruck below 50000 bytes in all, else the ring;
// reduce-scatter by recursive halving for commutative operators on small vectors, else the
// ring. Open MPI 4.1's tables refine these per communicator size; the shapes (latency-bound
// trees below some kilobytes, the ring above) are the same.
std::string open_mpi(MpiCollective c, int p, std::uint64_t bytes, bool commutative) {
  const std::uint64_t total = bytes * static_cast<std::uint64_t>(p);
  switch (c) {
    case MpiCollective::allreduce:
      if (bytes < 10000) return "recdoub-lat";
      return commutative ? "ring" : "";
    case MpiCollective::allgather:
      if (total < 50000) return power_of_two(p) ? "recdoub-bw" : "bruck-bw";
      return "ring";
    case MpiCollective::reduce_scatter_block:
    case MpiCollective::reduce_scatter:
      if (!commutative) return "";
      return total < 65536 && power_of_two(p) ? "recdoub-bw" : "ring";
    default: return "";
  }
}

// MPICH's default selection (its CVAR documentation): allreduce by recursive doubling up to
// MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE (2048 bytes) or for user operators, else Rabenseifner's
// reduce-scatter by recursive halving plus allgather by recursive doubling; allgather by
// recursive doubling (powers of two) below MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE (512 KiB in
// all), Bruck below MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE (80 KiB), else the ring; reduce-scatter
// by recursive halving for commutative operators below
// MPIR_CVAR_REDSCAT_COMMUTATIVE_LONG_MSG_SIZE (512 KiB; above, a pairwise exchange the
// registry lacks).
std::string mpich(MpiCollective c, int p, std::uint64_t bytes, bool commutative) {
  const std::uint64_t total = bytes * static_cast<std::uint64_t>(p);
  switch (c) {
    case MpiCollective::allreduce:
      return bytes <= 2048 || !commutative ? "recdoub-lat" : "recdoub-bw";
    case MpiCollective::allgather:
      if (total < 524288 && power_of_two(p)) return "recdoub-bw";
      return total < 81920 ? "bruck-bw" : "ring";
    case MpiCollective::reduce_scatter_block:
    case MpiCollective::reduce_scatter: return commutative && total < 524288 ? "recdoub-bw" : "";
    default: return "";
  }
}

}  // namespace

MpiLibrary running_library() {
  static const MpiLibrary library = [] {
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    PMPI_Get_library_version(version, &length);
    const std::string_view text(version, static_cast<std::size_t>(length));
    if (text.find("Open MPI") != std::string_view::npos) return MpiLibrary::open_mpi;
    if (text.find("MPICH") != std::string_view::npos) return MpiLibrary::mpich;
    return MpiLibrary::other;
  }();
  return library;
}

const char* library_name(MpiLibrary library) {
  switch (library) {
    case MpiLibrary::open_mpi: return "Open MPI";
    case MpiLibrary::mpich: return "MPICH";
    default: return "this MPI library";
  }
}

std::string library_algorithm(MpiLibrary library, MpiCollective collective, int ranks,
                              std::uint64_t bytes, bool commutative) {
  if (library == MpiLibrary::open_mpi) return open_mpi(collective, ranks, bytes, commutative);
  if (library == MpiLibrary::mpich) return mpich(collective, ranks, bytes, commutative);
  return "";
}

}  // namespace topocoll::mpi
