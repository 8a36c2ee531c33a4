#include "algorithms/common/relabel.hpp"

#include <stdexcept>
#include <utility>

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
  return move_chunks(blocks, static_cast<BlockIndex>(info().blocks_per_chunk()),
                     [&](BlockIndex chunk) { return labels_->rank_of(static_cast<int>(chunk)); });
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
