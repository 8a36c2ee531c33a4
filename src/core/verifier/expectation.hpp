#pragma once
// Pre- and post-conditions of each collective, slot by slot (docs/design.md, "3.1 Invariants", 1).
// The contribution that starts in slot b of rank r is named (r, b).
#include "core/schedule.hpp"

namespace topocoll {

struct SlotExpectation {
  enum class Kind {
    dont_care,  // the slot's final content is not part of the result
    all_ranks,  // (q, block) for every rank q, each exactly once (ordered by q if non-commutative)
    single,     // exactly the one contribution (origin, block)
  };
  Kind kind = Kind::dont_care;
  int origin = 0;
  BlockIndex block = 0;
};

// Inline: the verifier asks once per rank and slot (billions of times at large P).

namespace detail {

inline int owner_of(const ScheduleInfo& info, BlockIndex block) {
  return static_cast<int>(block / static_cast<BlockIndex>(info.blocks_per_chunk()));
}

inline bool in_user_vector(const ScheduleInfo& info, BlockIndex slot) {
  return slot < static_cast<BlockIndex>(info.blocks);
}

}  // namespace detail

inline bool initially_defined(const ScheduleInfo& info, int rank, BlockIndex slot) {
  if (!detail::in_user_vector(info, slot)) return false;
  switch (info.collective) {
    case Collective::allreduce:
    case Collective::reduce_scatter:
    case Collective::reduce:
    case Collective::alltoall: return true;
    case Collective::allgather:
    case Collective::gather: return detail::owner_of(info, slot) == rank;
    case Collective::bcast:
    case Collective::scatter: return rank == info.root;
  }
  return false;
}

[[gnu::always_inline]] inline SlotExpectation expected_content(const ScheduleInfo& info, int rank,
                                                               BlockIndex slot) {
  using Kind = SlotExpectation::Kind;
  const auto b = static_cast<BlockIndex>(info.blocks);
  if (info.collective == Collective::alltoall) {
    // Receive buffer chunk s at rank d holds what rank s had in its send chunk d.
    if (slot < b || slot >= 2 * b) return {};
    const BlockIndex per = static_cast<BlockIndex>(info.blocks_per_chunk());
    const BlockIndex offset = slot - b;
    const int source = static_cast<int>(offset / per);
    return {Kind::single, source, static_cast<BlockIndex>(rank) * per + offset % per};
  }
  if (slot >= b) return {};
  switch (info.collective) {
    case Collective::allreduce: return {Kind::all_ranks, 0, slot};
    case Collective::reduce_scatter:
      return detail::owner_of(info, slot) == rank ? SlotExpectation{Kind::all_ranks, 0, slot}
                                                  : SlotExpectation{};
    case Collective::allgather: return {Kind::single, detail::owner_of(info, slot), slot};
    case Collective::bcast: return {Kind::single, info.root, slot};
    case Collective::reduce:
      return rank == info.root ? SlotExpectation{Kind::all_ranks, 0, slot} : SlotExpectation{};
    case Collective::gather:
      return rank == info.root ? SlotExpectation{Kind::single, detail::owner_of(info, slot), slot}
                               : SlotExpectation{};
    case Collective::scatter:
      return detail::owner_of(info, slot) == rank ? SlotExpectation{Kind::single, info.root, slot}
                                                  : SlotExpectation{};
    case Collective::alltoall: break;
  }
  return {};
}

}  // namespace topocoll
