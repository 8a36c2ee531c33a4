#pragma once
// Folding: runs a schedule built for P' ranks on P ranks, P' < P <= 2 P'. This is the standard
// way to serve rank counts an algorithm does not handle natively (swing-nsdi24.txt section 2.3.2,
// "Non-power-of-two"; the same pairing as MPICH's recursive doubling and Rabenseifner's
// algorithm):
//
//   With x = P - P' extra ranks, the ranks 2i and 2i+1 (i < x) form a pair. In a first step
//   2i+1 hands its data to 2i; 2i then stands for both of them as inner rank i; in a last step
//   2i hands the result back to 2i+1. Every rank q >= 2x runs the inner schedule as inner rank
//   q - x, without extra steps.
//
// Inner rank c thus stands for the outer ranks group(c) = {2c, 2c+1} (c < x) or {c + x}
// (c >= x): contiguous and in rank order, so an inner schedule that keeps rank order for
// non-commutative operators keeps it after folding (2i reduces 2i+1's data as x_2i ∘ x_2i+1).
// Translating an inner peer is O(1): outer = c < x ? 2c : c + x.
//
// Collectives (the only ones supported): allreduce, reduce-scatter, allgather.
//  - allreduce: the outer schedule keeps the inner's blocks B and slots (scratch included); block
//    indices are unchanged. Fold steps move the whole user vector [0, B).
//  - reduce-scatter, allgather: build the inner with S blocks per chunk (B' = P' S); the outer
//    schedule has B = P S in MPI's layout (rank q's chunk is [qS, (q+1)S)). Inner chunk c stands
//    for the outer chunks of group(c): the inner block at offset o of chunk c is the outer block
//    at offset o of each chunk of group(c), so every inner operation applies to one or two outer
//    blocks. A range of whole inner chunks maps to one contiguous outer range. This needs the
//    inner to keep every block in its slot: no scratch slots (the constructor throws
//    std::logic_error), and a local copy is only allowed between blocks that stand for the same
//    number of outer blocks (build_step throws std::logic_error otherwise).
//    Reduce-scatter: 2i+1 sends its whole vector to 2i first and gets its chunk back last.
//    Allgather: 2i+1 sends its chunk to 2i first and gets every other chunk back last.
// Ports: the fold steps use port 0; the inner's ports and operations are kept as they are.
// Shape: a ring only (the outer dims are {P}). The outer info copies the rest of the inner's
// (algorithm name, ports, keeps_positions).
//
// Usage, e.g. a family that serves even P natively and odd P by folding onto P - 1 (its registry
// entry then declares RankRule::any):
//   info.build = [](const ScheduleRequest& r) {
//     return r.ranks % 2 == 0 ? build_native(r) : fold(r, r.ranks - 1, build_native);
//   };
#include <functional>

#include "core/registry.hpp"
#include "core/schedule.hpp"

namespace topocoll::algorithms {

// The rank and block arithmetic of a fold of P' inner ranks into P outer ranks.
class FoldLayout {
 public:
  // blocks_per_chunk: S for reduce-scatter and allgather; 0 for allreduce (identity on blocks).
  FoldLayout(int ranks, int inner_ranks, int blocks_per_chunk);

  [[nodiscard]] int ranks() const { return ranks_; }
  [[nodiscard]] int inner_ranks() const { return inner_ranks_; }
  [[nodiscard]] int pairs() const { return ranks_ - inner_ranks_; }  // x

  // The outer rank that runs inner rank `inner` (the lower rank of a pair).
  [[nodiscard]] int outer_of(int inner) const {
    return inner < pairs() ? 2 * inner : inner + pairs();
  }
  // The inner rank `outer` runs, or -1 when it is folded away (the upper rank of a pair).
  [[nodiscard]] int inner_of(int outer) const;
  // The other member of `outer`'s pair, or -1 when `outer` is not in a pair.
  [[nodiscard]] int partner(int outer) const;
  // The first outer rank of group(c), for c in [0, P'] (c = P' gives P).
  [[nodiscard]] int group_begin(int c) const { return c < pairs() ? 2 * c : c + pairs(); }

  // The outer blocks an inner block set stands for (see the header comment).
  [[nodiscard]] BlockSet outer_blocks(const BlockSet& inner) const;

 private:
  void add_partial(int c, BlockIndex begin, BlockIndex end, BlockSet& out) const;

  int ranks_;
  int inner_ranks_;
  int chunk_;  // S; 0: identity
};

// The folded schedule: `inner` (built for P' ranks) run by the P outer ranks. Throws
// std::logic_error unless P' < P <= 2 P' and the inner meets the conditions above.
class FoldSchedule final : public Schedule {
 public:
  FoldSchedule(SchedulePtr inner, int ranks);

  [[nodiscard]] int step_count(int rank) const override;
  void build_step(int rank, int step, Step& out) const override;
  [[nodiscard]] const FoldLayout& layout() const { return layout_; }

 private:
  void build_fold_in(int rank, Step& out) const;
  void build_fold_out(int rank, Step& out) const;
  void build_inner(int inner_rank, int step, Step& out) const;

  SchedulePtr inner_;
  FoldLayout layout_;
};

using ScheduleBuilder = std::function<SchedulePtr(const ScheduleRequest&)>;

// Builds `build` for `inner_ranks` ranks (the request with ranks = dims = {inner_ranks}, other
// fields unchanged) and folds it onto request.ranks. Returns the inner schedule itself when
// inner_ranks == request.ranks. Throws UnsupportedRequest for a torus request, a collective
// other than allreduce / reduce-scatter / allgather, or inner_ranks outside [ceil(P/2), P].
[[nodiscard]] SchedulePtr fold(const ScheduleRequest& request, int inner_ranks,
                               const ScheduleBuilder& build);

// fold() onto the largest power of two <= P.
[[nodiscard]] SchedulePtr fold_to_power_of_two(const ScheduleRequest& request,
                                               const ScheduleBuilder& build);

}  // namespace topocoll::algorithms
