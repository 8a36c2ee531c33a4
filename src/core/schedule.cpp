#include "core/schedule.hpp"

#include <atomic>
#include <stdexcept>

namespace topocoll {

int ScheduleInfo::user_slots() const {
  return collective == Collective::alltoall ? 2 * blocks : blocks;
}

int ScheduleInfo::blocks_per_chunk() const { return ranks > 0 ? blocks / ranks : 0; }

BlockSet ScheduleInfo::chunk_of(int rank) const {
  const int s = blocks_per_chunk();
  return BlockSet::range(static_cast<BlockIndex>(rank * s),
                         static_cast<BlockIndex>((rank + 1) * s));
}

std::optional<std::string> placement_problem(const ScheduleInfo& info) {
  if (info.placement.empty()) return std::nullopt;
  if (static_cast<long long>(info.placement.size()) != info.ranks) {
    return "placement lists " + std::to_string(info.placement.size()) + " nodes for " +
           std::to_string(info.ranks) + " ranks; it needs one node per rank (or none)";
  }
  std::vector<bool> taken(info.placement.size(), false);
  for (std::size_t r = 0; r < info.placement.size(); ++r) {
    const int node = info.placement[r];
    if (node < 0 || node >= info.ranks) {
      return "placement puts rank " + std::to_string(r) + " on node " + std::to_string(node) +
             "; accepted: 0.." + std::to_string(info.ranks - 1);
    }
    if (taken[static_cast<std::size_t>(node)])
      return "placement puts two ranks on node " + std::to_string(node);
    taken[static_cast<std::size_t>(node)] = true;
  }
  return std::nullopt;
}

std::uint64_t Schedule::next_serial() {
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;
}

std::vector<Step> Schedule::steps_of(int rank) const {
  std::vector<Step> steps(static_cast<std::size_t>(step_count(rank)));
  for (int k = 0; k < static_cast<int>(steps.size()); ++k) build_step(rank, k, steps[k]);
  return steps;
}

ExplicitSchedule::ExplicitSchedule(ScheduleInfo info, std::vector<std::vector<Step>> rank_steps)
    : Schedule(std::move(info)), rank_steps_(std::move(rank_steps)) {
  if (static_cast<int>(rank_steps_.size()) != ranks()) {
    throw std::invalid_argument("schedule lists steps for " + std::to_string(rank_steps_.size()) +
                                " ranks but declares " + std::to_string(ranks()) + " ranks");
  }
}

int ExplicitSchedule::step_count(int rank) const {
  return static_cast<int>(rank_steps_.at(static_cast<std::size_t>(rank)).size());
}

void ExplicitSchedule::build_step(int rank, int step, Step& out) const {
  out = rank_steps_.at(static_cast<std::size_t>(rank)).at(static_cast<std::size_t>(step));
}

std::unique_ptr<ExplicitSchedule> materialize(const Schedule& schedule) {
  std::vector<std::vector<Step>> steps(static_cast<std::size_t>(schedule.ranks()));
  for (int r = 0; r < schedule.ranks(); ++r) steps[r] = schedule.steps_of(r);
  return std::make_unique<ExplicitSchedule>(schedule.info(), std::move(steps));
}

}  // namespace topocoll
