#include "algorithms/hierarchical/on_nodes.hpp"

namespace topocoll::algorithms::hierarchical {

OnNodes::OnNodes(ScheduleInfo info, SchedulePtr inner, std::shared_ptr<const NodeMap> nodes,
                 std::shared_ptr<const PartLayout> layout, int only_local)
    : Schedule(std::move(info)),
      inner_(std::move(inner)),
      nodes_(std::move(nodes)),
      layout_(std::move(layout)),
      only_local_(only_local) {}

bool OnNodes::runs(int rank) const {
  return inner_ && (only_local_ < 0 || nodes_->local_of(rank) == only_local_);
}

int OnNodes::lane_count(int rank) const {
  return runs(rank) ? inner_->lane_count(nodes_->node_of(rank)) : 1;
}

int OnNodes::lane_step_count(int rank, int lane) const {
  return runs(rank) ? inner_->lane_step_count(nodes_->node_of(rank), lane) : 0;
}

int OnNodes::step_count(int rank) const {
  return runs(rank) ? inner_->step_count(nodes_->node_of(rank)) : 0;
}

void OnNodes::translate(int rank, Step& step) const {
  const int local = nodes_->local_of(rank);
  for (Operation& op : step.ops) {
    if (op.kind != OpKind::copy) op.peer = nodes_->rank_of(op.peer, local);
    op.blocks = layout_->map(local, op.blocks);
    if (op.kind == OpKind::copy) op.source = layout_->map(local, op.source);
  }
}

void OnNodes::build_lane_step(int rank, int lane, int step, Step& out) const {
  inner_->build_lane_step(nodes_->node_of(rank), lane, step, out);
  translate(rank, out);
}

void OnNodes::build_step(int rank, int step, Step& out) const {
  inner_->build_step(nodes_->node_of(rank), step, out);
  translate(rank, out);
}

}  // namespace topocoll::algorithms::hierarchical
