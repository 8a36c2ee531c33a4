#include "core/schedule.hpp"

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
