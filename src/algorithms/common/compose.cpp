#include "algorithms/common/compose.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

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

int PhaseSequence::lane_count(int rank) const {
  int n = 1;
  for (const auto& p : phases_) n = std::max(n, p->lane_count(rank));
  return n;
}

int PhaseSequence::steps_before(int rank, int lane, std::size_t phase) const {
  int n = 0;
  for (std::size_t p = 0; p < phase; ++p)
    if (lane < phases_[p]->lane_count(rank)) n += phases_[p]->lane_step_count(rank, lane);
  return n;
}

int PhaseSequence::lane_step_count(int rank, int lane) const {
  return steps_before(rank, lane, phases_.size());
}

std::uint64_t PhaseSequence::lane_steps_total(int rank) const {
  std::uint64_t n = 0;
  for (const auto& p : phases_) n += p->lane_steps_total(rank);
  return n;
}

void PhaseSequence::build_lane_step(int rank, int lane, int step, Step& out) const {
  const int lanes = lane_count(rank);
  for (std::size_t p = 0; p < phases_.size(); ++p) {
    const int n = lane < phases_[p]->lane_count(rank) ? phases_[p]->lane_step_count(rank, lane) : 0;
    if (step >= n) {
      step -= n;
      continue;
    }
    phases_[p]->build_lane_step(rank, lane, step, out);
    for (Dependency& d : out.after) d.step += steps_before(rank, d.lane, p);
    if (step > 0 || lanes == 1) return;
    // The phase boundary: every other lane's earlier phases come first.
    for (int m = 0; m < lanes; ++m) {
      const int before = m == lane ? 0 : steps_before(rank, m, p);
      if (before > 0) out.after.push_back({m, before - 1});
    }
    return;
  }
}

std::vector<int> PhaseSequence::block_ranks() const {
  std::vector<int> out = phases_.front()->block_ranks();
  for (std::size_t p = 1; p < phases_.size() && !out.empty(); ++p)
    if (phases_[p]->block_ranks() != out) return {};
  return out;
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

void LaneLayout::place(int lane, BlockSet& blocks) const {
  // Blocks inside the first chunk only move by the lane's offset (an allreduce's whole
  // vector is one chunk): no new set for a step that copies the whole vector block by block.
  const auto c = static_cast<BlockIndex>(chunk);
  if (blocks.empty() || blocks.ranges().back().end <= c) {
    blocks.shift(static_cast<BlockIndex>(lane) * c);
    return;
  }
  blocks = map(lane, blocks);
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

int LaneSet::lane_count(int rank) const {
  int n = 0;
  for (const auto& lane : lanes_) n += lane->lane_count(rank);
  return n;
}

LaneSet::Part LaneSet::part_of(int rank, int lane) const {
  int first = 0;
  for (int j = 0; j < static_cast<int>(lanes_.size()); ++j) {
    const int n = lanes_[j]->lane_count(rank);
    if (lane < first + n) return {j, lane - first, first};
    first += n;
  }
  throw std::out_of_range("LaneSet: lane " + std::to_string(lane) + " does not exist");
}

int LaneSet::lane_step_count(int rank, int lane) const {
  const Part part = part_of(rank, lane);
  return lanes_[part.index]->lane_step_count(rank, part.lane);
}

std::uint64_t LaneSet::lane_steps_total(int rank) const {
  std::uint64_t n = 0;
  for (const auto& lane : lanes_) n += lane->lane_steps_total(rank);
  return n;
}

void LaneSet::place(int index, Step& step) const {
  for (Operation& op : step.ops) {
    layout_.place(index, op.blocks);
    if (op.kind == OpKind::copy) layout_.place(index, op.source);
    op.port += index * lane_ports_;
  }
}

void LaneSet::build_lane_step(int rank, int lane, int step, Step& out) const {
  const Part part = part_of(rank, lane);
  lanes_[part.index]->build_lane_step(rank, part.lane, step, out);
  place(part.index, out);
  for (Dependency& d : out.after) d.lane += part.first;
}

std::vector<int> LaneSet::block_ranks() const {
  std::vector<std::vector<int>> own;
  bool any = false;
  for (const auto& lane : lanes_) {
    own.push_back(lane->block_ranks());
    any = any || !own.back().empty();
  }
  if (!any) return {};
  std::vector<int> out(static_cast<std::size_t>(info().blocks), -1);
  for (int j = 0; j < static_cast<int>(lanes_.size()); ++j) {
    const int blocks = lanes_[j]->info().blocks;
    const int per_rank = std::max(1, blocks / std::max(1, ranks()));
    for (int i = 0; i < blocks; ++i) {
      const auto b = static_cast<std::size_t>(layout_.map(j, i));
      if (b >= out.size()) return {};
      out[b] = own[j].empty() ? i / per_rank : own[j][static_cast<std::size_t>(i)];
    }
  }
  return out;
}

int LaneSet::step_count(int rank) const {
  int n = 0;
  for (const auto& lane : lanes_) n = std::max(n, lane->step_count(rank));
  return n;
}

void LaneSet::build_step(int rank, int step, Step& out) const {
  Step part_step;
  for (int j = 0; j < static_cast<int>(lanes_.size()); ++j) {
    if (step >= lanes_[j]->step_count(rank)) continue;
    part_step.clear();
    lanes_[j]->build_step(rank, step, part_step);
    place(j, part_step);
    for (Operation& op : part_step.ops) out.ops.push_back(std::move(op));
  }
}

}  // namespace topocoll::algorithms
