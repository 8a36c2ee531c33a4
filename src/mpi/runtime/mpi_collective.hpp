#pragma once
// The nine MPI collectives topocoll serves, and what every user of them (the runtime, the
// benchmark, the conformance tests) needs to know about each: one table, so the three agree.
// Header-only and constexpr: the benchmark and the tests use it without the runtime's
// internal symbols, which the shared libraries do not export.
#include <array>
#include <cstddef>

#include "core/collective.hpp"

namespace topocoll::mpi {

enum class MpiCollective {
  allreduce,
  reduce_scatter_block,
  reduce_scatter,
  allgather,
  bcast,
  reduce,
  gather,
  scatter,
  alltoall
};

struct MpiCollectiveInfo {
  MpiCollective id;
  const char* name;  // MPI's name, lower case: "reduce_scatter_block"
  Collective core;   // the registry's collective that serves it (two map to reduce-scatter)
  bool reduction;    // takes an MPI_Op
  bool rooted;       // takes a root
};

inline constexpr std::array<MpiCollectiveInfo, 9> kMpiCollectives{{
    {MpiCollective::allreduce, "allreduce", Collective::allreduce, true, false},
    {MpiCollective::reduce_scatter_block, "reduce_scatter_block", Collective::reduce_scatter, true,
     false},
    {MpiCollective::reduce_scatter, "reduce_scatter", Collective::reduce_scatter, true, false},
    {MpiCollective::allgather, "allgather", Collective::allgather, false, false},
    {MpiCollective::bcast, "bcast", Collective::bcast, false, true},
    {MpiCollective::reduce, "reduce", Collective::reduce, true, true},
    {MpiCollective::gather, "gather", Collective::gather, false, true},
    {MpiCollective::scatter, "scatter", Collective::scatter, false, true},
    {MpiCollective::alltoall, "alltoall", Collective::alltoall, false, false},
}};

[[nodiscard]] constexpr const MpiCollectiveInfo& info(MpiCollective c) {
  return kMpiCollectives[static_cast<std::size_t>(c)];
}
[[nodiscard]] constexpr const char* mpi_collective_name(MpiCollective c) { return info(c).name; }
[[nodiscard]] constexpr Collective core_collective(MpiCollective c) { return info(c).core; }

static_assert(
    [] {
      for (std::size_t i = 0; i < kMpiCollectives.size(); ++i)
        if (static_cast<std::size_t>(kMpiCollectives[i].id) != i) return false;
      return true;
    }(),
    "kMpiCollectives is indexed by MpiCollective");

}  // namespace topocoll::mpi
