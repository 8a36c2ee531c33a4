#include "core/schedule.hpp"

#include <algorithm>
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

// The one-lane defaults: a schedule that overrides step_count and build_step has lane 0 only.
int Schedule::lane_count(int) const { return 1; }

int Schedule::lane_step_count(int rank, int lane) const { return lane == 0 ? step_count(rank) : 0; }

void Schedule::build_lane_step(int rank, int lane, int step, Step& out) const {
  if (lane == 0) build_step(rank, step, out);
}

std::uint64_t Schedule::lane_steps_total(int rank) const {
  std::uint64_t n = 0;
  for (int l = 0; l < lane_count(rank); ++l)
    n += static_cast<std::uint64_t>(std::max(lane_step_count(rank, l), 0));
  return n;
}

// The lock-step view of a schedule that overrides the lane functions.
int Schedule::step_count(int rank) const {
  int n = 0;
  for (int l = 0; l < lane_count(rank); ++l) n = std::max(n, lane_step_count(rank, l));
  return n;
}

void Schedule::build_step(int rank, int step, Step& out) const {
  Step lane_step;
  for (int l = 0; l < lane_count(rank); ++l) {
    if (step >= lane_step_count(rank, l)) continue;
    lane_step.clear();
    build_lane_step(rank, l, step, lane_step);
    for (Operation& op : lane_step.ops) out.ops.push_back(std::move(op));
  }
}

std::vector<Step> Schedule::steps_of(int rank) const {
  std::vector<Step> steps(static_cast<std::size_t>(step_count(rank)));
  for (int k = 0; k < static_cast<int>(steps.size()); ++k) build_step(rank, k, steps[k]);
  return steps;
}

std::vector<Step> Schedule::lane_steps_of(int rank, int lane) const {
  std::vector<Step> steps(static_cast<std::size_t>(lane_step_count(rank, lane)));
  for (int k = 0; k < static_cast<int>(steps.size()); ++k) build_lane_step(rank, lane, k, steps[k]);
  return steps;
}

bool Schedule::has_lanes() const {
  for (int r = 0; r < ranks(); ++r)
    if (lane_count(r) > 1) return true;
  return false;
}

namespace {

std::vector<ExplicitSchedule::Lanes> one_lane_each(std::vector<std::vector<Step>> rank_steps) {
  std::vector<ExplicitSchedule::Lanes> lanes(rank_steps.size());
  for (std::size_t r = 0; r < rank_steps.size(); ++r) lanes[r].push_back(std::move(rank_steps[r]));
  return lanes;
}

}  // namespace

ExplicitSchedule::ExplicitSchedule(ScheduleInfo info, std::vector<std::vector<Step>> rank_steps)
    : ExplicitSchedule(std::move(info), one_lane_each(std::move(rank_steps))) {}

ExplicitSchedule::ExplicitSchedule(ScheduleInfo info, std::vector<Lanes> rank_lanes)
    : Schedule(std::move(info)), rank_lanes_(std::move(rank_lanes)) {
  if (static_cast<int>(rank_lanes_.size()) != ranks()) {
    throw std::invalid_argument("schedule lists steps for " + std::to_string(rank_lanes_.size()) +
                                " ranks but declares " + std::to_string(ranks()) + " ranks");
  }
  for (Lanes& lanes : rank_lanes_)
    if (lanes.empty()) lanes.emplace_back();
}

int ExplicitSchedule::lane_count(int rank) const {
  return static_cast<int>(rank_lanes_.at(static_cast<std::size_t>(rank)).size());
}

int ExplicitSchedule::lane_step_count(int rank, int lane) const {
  return static_cast<int>(
      rank_lanes_.at(static_cast<std::size_t>(rank)).at(static_cast<std::size_t>(lane)).size());
}

void ExplicitSchedule::build_lane_step(int rank, int lane, int step, Step& out) const {
  out = rank_lanes_.at(static_cast<std::size_t>(rank))
            .at(static_cast<std::size_t>(lane))
            .at(static_cast<std::size_t>(step));
}

const std::vector<std::vector<int>>& ExplicitSchedule::levels(int rank) const {
  std::call_once(levels_once_, [this] {
    levels_.resize(rank_lanes_.size());
    for (std::size_t r = 0; r < rank_lanes_.size(); ++r) {
      const Lanes& lanes = rank_lanes_[r];
      auto& level = levels_[r];
      level.resize(lanes.size());
      for (std::size_t l = 0; l < lanes.size(); ++l) level[l].assign(lanes[l].size(), -1);
      // Repeated passes until every step whose dependencies resolve has a level; a step
      // waiting in a cycle keeps none and is placed after all others (the verifier reports it).
      bool progress = true;
      while (progress) {
        progress = false;
        for (std::size_t l = 0; l < lanes.size(); ++l) {
          for (std::size_t k = 0; k < lanes[l].size(); ++k) {
            if (level[l][k] >= 0) continue;
            int at = k == 0 ? 0 : level[l][k - 1] + 1;
            if (k > 0 && level[l][k - 1] < 0) break;
            for (const Dependency& d : lanes[l][k].after) {
              const bool known = d.lane >= 0 && static_cast<std::size_t>(d.lane) < lanes.size() &&
                                 d.step >= 0 &&
                                 static_cast<std::size_t>(d.step) < lanes[d.lane].size();
              const int of = known ? level[d.lane][d.step] : 0;
              if (known && of < 0) at = -1;
              if (at >= 0) at = std::max(at, of + 1);
            }
            if (at < 0) break;
            level[l][k] = at;
            progress = true;
          }
        }
      }
      int last = 0;
      for (auto& lane : level)
        for (int v : lane) last = std::max(last, v + 1);
      for (auto& lane : level)
        for (int& v : lane)
          if (v < 0) v = last++;
    }
  });
  return levels_.at(static_cast<std::size_t>(rank));
}

int ExplicitSchedule::step_count(int rank) const {
  int n = 0;
  for (const auto& lane : levels(rank))
    for (int v : lane) n = std::max(n, v + 1);
  return n;
}

void ExplicitSchedule::build_step(int rank, int step, Step& out) const {
  const auto& level = levels(rank);
  const Lanes& lanes = rank_lanes_.at(static_cast<std::size_t>(rank));
  for (std::size_t l = 0; l < lanes.size(); ++l)
    for (std::size_t k = 0; k < lanes[l].size(); ++k)
      if (level[l][k] == step)
        out.ops.insert(out.ops.end(), lanes[l][k].ops.begin(), lanes[l][k].ops.end());
}

std::unique_ptr<ExplicitSchedule> materialize(const Schedule& schedule) {
  std::vector<ExplicitSchedule::Lanes> lanes(static_cast<std::size_t>(schedule.ranks()));
  for (int r = 0; r < schedule.ranks(); ++r)
    for (int l = 0; l < schedule.lane_count(r); ++l)
      lanes[r].push_back(schedule.lane_steps_of(r, l));
  return std::make_unique<ExplicitSchedule>(schedule.info(), std::move(lanes));
}

}  // namespace topocoll
