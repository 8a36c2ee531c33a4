#include "algorithms/common/compose.hpp"

#include <algorithm>
#include <stdexcept>

namespace topocoll::algorithms {

PhaseSequence::PhaseSequence(ScheduleInfo info, std::vector<SchedulePtr> phases)
    : Schedule(std::move(info)), phases_(std::move(phases)) {
  for (const auto& p : phases_) {
    if (p->ranks() != ranks() || p->info().total_slots() > this->info().total_slots())
      throw std::logic_error("PhaseSequence: a phase does not fit the combined schedule");
  }
}

int PhaseSequence::step_count(int rank) const {
  int n = 0;
  for (const auto& p : phases_) n += p->step_count(rank);
  return n;
}

void PhaseSequence::build_step(int rank, int step, Step& out) const {
  for (const auto& p : phases_) {
    const int n = p->step_count(rank);
    if (step < n) {
      p->build_step(rank, step, out);
      return;
    }
    step -= n;
  }
}

BlockIndex LaneLayout::map(int lane, BlockIndex inner) const {
  const auto c = static_cast<BlockIndex>(chunk);
  return (inner / c) * c * static_cast<BlockIndex>(lanes) + static_cast<BlockIndex>(lane) * c +
         inner % c;
}

BlockSet LaneLayout::map(int lane, const BlockSet& inner) const {
  BlockSet out;
  const auto c = static_cast<BlockIndex>(chunk);
  for (const auto& r : inner.ranges()) {
    // Split the range at chunk boundaries; each piece stays contiguous.
    for (BlockIndex b = r.begin; b < r.end;) {
      const BlockIndex piece_end = std::min(r.end, (b / c + 1) * c);
      const BlockIndex start = map(lane, b);
      out.add(start, start + (piece_end - b));
      b = piece_end;
    }
  }
  return out;
}

ScheduleInfo lanes_info(const ScheduleInfo& lane_info, int lanes) {
  ScheduleInfo info = lane_info;
  info.blocks = lane_info.blocks * lanes;
  info.slots = lane_info.slots > 0 ? lane_info.slots * lanes : 0;
  info.ports = std::max(1, lane_info.ports) * lanes;
  return info;
}

LaneSet::LaneSet(ScheduleInfo info, std::vector<SchedulePtr> lanes, LaneLayout layout)
    : Schedule(std::move(info)), lanes_(std::move(lanes)), layout_(layout) {
  if (lanes_.empty() || layout_.lanes != static_cast<int>(lanes_.size()))
    throw std::logic_error("LaneSet: layout and lane count disagree");
  lane_ports_ = std::max(1, lanes_.front()->info().ports);
}

int LaneSet::step_count(int rank) const {
  int n = 0;
  for (const auto& lane : lanes_) n = std::max(n, lane->step_count(rank));
  return n;
}

void LaneSet::build_step(int rank, int step, Step& out) const {
  Step inner;
  for (int j = 0; j < static_cast<int>(lanes_.size()); ++j) {
    if (step >= lanes_[j]->step_count(rank)) continue;
    inner.clear();
    lanes_[j]->build_step(rank, step, inner);
    for (Operation& op : inner.ops) {
      op.blocks = layout_.map(j, op.blocks);
      if (op.kind == OpKind::copy) op.source = layout_.map(j, op.source);
      op.port += j * lane_ports_;
      out.ops.push_back(std::move(op));
    }
  }
}

}  // namespace topocoll::algorithms
