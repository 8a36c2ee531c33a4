#include "sim/call_copies.hpp"

namespace topocoll::sim {

CallCopyBytes call_copy_bytes(Collective collective, const CallCopyRank& rank, bool in_place) {
  const std::uint64_t all = rank.vector_bytes, own = rank.own_block_bytes;
  switch (collective) {
    case Collective::allreduce:  // the input into recvbuf, where the schedule reduces
      return {in_place ? 0 : all, 0};
    case Collective::reduce:  // the root reduces in recvbuf; others only when they write
      if (rank.root) return {in_place ? 0 : all, 0};
      return {rank.writes_user_blocks ? all : 0, 0};
    case Collective::reduce_scatter:  // a work vector, in place too, and the chunk out of it
      return {all, own};
    case Collective::allgather:  // the own block into its place in recvbuf
      return {in_place ? 0 : own, 0};
    case Collective::gather:  // the own block into the vector (the root's in place: none)
      return {rank.root && in_place ? 0 : own, 0};
    case Collective::scatter:  // the root's send buffer when written; every chunk out
      return {rank.root && rank.writes_user_blocks ? all : 0, rank.root && in_place ? 0 : own};
    case Collective::alltoall:  // the send slots, in place or when the schedule writes them
      return {in_place || rank.writes_user_blocks ? all : 0, 0};
    case Collective::bcast: return {};
  }
  return {};
}

bool writes_user_blocks(const Schedule& schedule, int rank) {
  const auto user = static_cast<BlockIndex>(schedule.info().blocks);
  Step step;
  for (int s = 0; s < schedule.step_count(rank); ++s) {
    step.clear();
    schedule.build_step(rank, s, step);
    for (const Operation& op : step.ops) {
      if (op.kind == OpKind::send) continue;
      for (const auto& range : op.blocks.ranges())
        if (range.begin < user) return true;
    }
  }
  return false;
}

}  // namespace topocoll::sim
