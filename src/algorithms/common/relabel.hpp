#pragma once
// Relabeled: runs a schedule written for virtual ranks (e.g. the positions of a hypercube or a
// ring) with real rank r acting as virtual rank label(r). Peers map back through the inverse;
// with `remap_chunks`, virtual chunk v (blocks [v*S, (v+1)*S)) becomes real chunk rank_of(v), so
// every real rank starts and ends with its own chunk (reduce-scatter, allgather); without, blocks
// keep their index (allreduce, whose blocks are alike on every rank).
#include <algorithm>
#include <memory>
#include <vector>

#include "core/schedule.hpp"

namespace topocoll::algorithms {

// `blocks` with chunk c (blocks [c*per, (c+1)*per)) moved to chunk new_chunk(c), each block
// keeping its offset inside its chunk.
template <typename ChunkMap>
[[nodiscard]] BlockSet move_chunks(const BlockSet& blocks, BlockIndex per, ChunkMap new_chunk) {
  std::vector<BlockRange> pieces;
  for (const BlockRange& r : blocks.ranges()) {
    for (BlockIndex b = r.begin; b < r.end;) {
      const BlockIndex end = std::min(r.end, (b / per + 1) * per);
      const BlockIndex start = static_cast<BlockIndex>(new_chunk(b / per)) * per + b % per;
      pieces.push_back({start, start + (end - b)});
      b = end;
    }
  }
  std::sort(pieces.begin(), pieces.end(),
            [](const BlockRange& a, const BlockRange& b) { return a.begin < b.begin; });
  BlockSet out;
  for (const BlockRange& piece : pieces) out.add(piece.begin, piece.end);
  return out;
}

// A bijection between the ranks 0..P-1 and the virtual ranks 0..P-1.
class RankLabels {
 public:
  virtual ~RankLabels() = default;
  [[nodiscard]] virtual int label(int rank) const = 0;
  [[nodiscard]] virtual int rank_of(int label) const = 0;
};

class Relabeled final : public Schedule {
 public:
  // `info` describes the real schedule (its shape may differ from the inner's); the inner must
  // have no local copies when `remap_chunks` is set.
  Relabeled(ScheduleInfo info, SchedulePtr inner, std::shared_ptr<const RankLabels> labels,
            bool remap_chunks);
  [[nodiscard]] int step_count(int rank) const override;
  void build_step(int rank, int step, Step& out) const override;

 private:
  [[nodiscard]] BlockSet relabel(const BlockSet& blocks) const;
  SchedulePtr inner_;
  std::shared_ptr<const RankLabels> labels_;
  bool remap_chunks_;
};

}  // namespace topocoll::algorithms
