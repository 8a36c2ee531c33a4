#pragma once
// Where the inner schedule's blocks live in the composed vector. The inner runs on N ranks
// over its own B_in blocks (its own partition); each rank of the composition runs at most one
// inner instance, for its local index, so the inner's scratch slots can share one region after
// the composed user vector.
#include <memory>

#include "algorithms/hierarchical/node_map.hpp"
#include "core/block_set.hpp"

namespace topocoll::algorithms::hierarchical {

enum class LayoutKind {
  // Inner block b is composed block b: the inner works on the whole vector (leader forms of
  // allreduce, bcast, reduce). B = B_in.
  whole,
  // Local index l owns the contiguous slice [l * B_in, (l + 1) * B_in) (Bine 6.2's 1/K of the
  // vector: hier forms of allreduce, bcast, reduce). B = K * B_in.
  slice,
  // Inner chunk c (inner rank c's S blocks) of local index l is the chunk of the rank on node
  // c with local index l (hier forms of the chunked collectives). B = K * B_in = P * S.
  rank_chunks,
  // Inner chunk c is the chunks of every rank on node c: inner block b is composed blocks
  // [b * K, (b + 1) * K) (leader forms of the chunked collectives). B = K * B_in = P * S with
  // S = S_in. Needs nodes that are runs of consecutive ranks.
  node_chunks,
};

class PartLayout {
 public:
  // `inner_blocks` and `inner_slots` are the inner schedule's B_in and total slots; `per_chunk`
  // its blocks per rank (S_in) for the chunk layouts.
  PartLayout(LayoutKind kind, std::shared_ptr<const NodeMap> nodes, int inner_blocks,
             int inner_slots, int per_chunk);

  [[nodiscard]] int blocks() const { return blocks_; }  // B of the composed schedule
  // Total slots of the composed schedule, or 0 when the inner needs no scratch.
  [[nodiscard]] int slots() const;
  // Composed blocks for the inner's blocks as local index `local` runs them.
  [[nodiscard]] BlockSet map(int local, const BlockSet& inner) const;
  // The composed blocks local index `local` works on in the inner phase (its part).
  [[nodiscard]] BlockSet part(int local) const;
  // Rank r's chunk of the composed vector (chunked collectives): [r * S, (r + 1) * S).
  [[nodiscard]] BlockSet chunk_of(int rank) const;

 private:
  // Composed blocks per inner scratch block.
  [[nodiscard]] int scratch_width() const;
  void map_user_piece(int local, BlockIndex begin, BlockIndex end, BlockSet& out) const;

  LayoutKind kind_;
  std::shared_ptr<const NodeMap> nodes_;
  int inner_blocks_;
  int inner_slots_;
  int per_chunk_;
  int blocks_;
};

}  // namespace topocoll::algorithms::hierarchical
