#include "algorithms/common/relabel.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace topocoll::algorithms {

Relabeled::Relabeled(ScheduleInfo info, SchedulePtr inner, std::shared_ptr<const RankLabels> labels,
                     bool remap_chunks)
    : Schedule(std::move(info)),
      inner_(std::move(inner)),
      labels_(std::move(labels)),
      remap_chunks_(remap_chunks) {}

int Relabeled::step_count(int rank) const { return inner_->step_count(labels_->label(rank)); }

BlockSet Relabeled::relabel(const BlockSet& blocks) const {
  if (!remap_chunks_) return blocks;
  const auto per = static_cast<BlockIndex>(info().blocks_per_chunk());
  std::vector<BlockRange> pieces;
  for (const BlockRange& r : blocks.ranges()) {
    // Split at chunk boundaries; a piece keeps its offset inside the chunk.
    for (BlockIndex b = r.begin; b < r.end;) {
      const BlockIndex end = std::min(r.end, (b / per + 1) * per);
      const auto chunk = static_cast<BlockIndex>(labels_->rank_of(static_cast<int>(b / per)));
      const BlockIndex start = chunk * per + b % per;
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

void Relabeled::build_step(int rank, int step, Step& out) const {
  inner_->build_step(labels_->label(rank), step, out);
  for (Operation& op : out.ops) {
    if (op.kind == OpKind::copy) {
      if (remap_chunks_) throw std::logic_error("Relabeled: local copies with remapped chunks");
      continue;
    }
    op.peer = labels_->rank_of(op.peer);
    op.blocks = relabel(op.blocks);
  }
}

}  // namespace topocoll::algorithms
