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
  Collective core;   // the registry's collective that serves it (two map to reduce-scatter);
                     // whether it takes an MPI_Op or a root is is_reduction / is_rooted of it
};

inline constexpr std::array<MpiCollectiveInfo, 9> kMpiCollectives{{
    {MpiCollective::allreduce, "allreduce", Collective::allreduce},
    {MpiCollective::reduce_scatter_block, "reduce_scatter_block", Collective::reduce_scatter},
    {MpiCollective::reduce_scatter, "reduce_scatter", Collective::reduce_scatter},
    {MpiCollective::allgather, "allgather", Collective::allgather},
    {MpiCollective::bcast, "bcast", Collective::bcast},
    {MpiCollective::reduce, "reduce", Collective::reduce},
    {MpiCollective::gather, "gather", Collective::gather},
    {MpiCollective::scatter, "scatter", Collective::scatter},
    {MpiCollective::alltoall, "alltoall", Collective::alltoall},
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
