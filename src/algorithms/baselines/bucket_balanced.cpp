// bucket-balanced: bucket's allreduce, reduce-scatter and allgather on a rectangular 2D torus
// with the uneven split and the link order of bucket_balance.hpp. Per ring direction, each job
// is a bucket collective (BucketLane, one lane) on its own share of the vector (a contiguous
// slice for allreduce, a part of every rank's chunk otherwise); a job's phase waits for
// the phase its link served before it (a dependency on that lane's last step of it), so each
// link carries one collective at a time, in the planned order, and nothing else synchronises
// the lanes. Ports: 0, 1 the long dimension's + and - links, 2, 3 the short one's.
#include <algorithm>
#include <climits>
#include <memory>

#include "algorithms/baselines/bucket_balance.hpp"
#include "algorithms/baselines/bucket_lane.hpp"
#include "algorithms/families.hpp"

namespace topocoll::algorithms {
namespace {

class BalancedBucket final : public Schedule {
 public:
  BalancedBucket(ScheduleInfo info, BalancedBucketPlan plan, int long_dim, int short_dim)
      : Schedule(std::move(info)), plan_(std::move(plan)) {
    const int jobs = static_cast<int>(plan_.jobs.size());
    for (int dir = 0; dir < 2; ++dir) {
      int offset = dir * plan_.units;
      for (const BalancedBucketJob& job : plan_.jobs) {
        lanes_.push_back(make_lane(job, dir, offset, long_dim, short_dim));
        offset += job.units;
      }
    }
    link_dependencies(jobs);
    compute_levels();
  }

  [[nodiscard]] int lane_count(int) const override { return static_cast<int>(lanes_.size()); }
  [[nodiscard]] int lane_step_count(int, int lane) const override {
    return lanes_[static_cast<std::size_t>(lane)].steps;
  }
  void build_lane_step(int rank, int lane, int step, Step& out) const override {
    const Lane& l = lanes_[static_cast<std::size_t>(lane)];
    l.collective->build_step(rank, step, out);
    const std::size_t i = phase_index(l, step);
    const auto phase = static_cast<std::size_t>(l.phases[i]);
    for (Operation& op : out.ops) {
      op.blocks = scaled(op.blocks, l);
      op.port = 2 * l.machine[phase] + l.direction_index;
    }
    if (step == l.first_step[i] && l.waits[phase].step >= 0) out.after.push_back(l.waits[phase]);
  }

  // The lock-step view by dependency levels (the same on every rank).
  [[nodiscard]] int step_count(int) const override { return level_count_; }
  void build_step(int rank, int step, Step& out) const override {
    Step lane_step;
    for (std::size_t l = 0; l < lanes_.size(); ++l) {
      const auto& level = levels_[l];
      const auto it = std::find(level.begin(), level.end(), step);
      if (it == level.end()) continue;
      lane_step.clear();
      build_lane_step(rank, static_cast<int>(l), static_cast<int>(it - level.begin()), lane_step);
      for (Operation& op : lane_step.ops) out.ops.push_back(std::move(op));
    }
  }

 private:
  struct Lane {
    std::unique_ptr<BucketLane> collective;
    int direction_index = 0;  // 0: +1, 1: -1
    BlockIndex offset = 0;    // allreduce: first block of the slice; else: offset in a chunk
    BlockIndex units = 1;     // blocks per block of the collective
    int steps = 0;
    std::vector<int> phases;       // the job's phase ids (bucket_balance.hpp), in order
    std::vector<int> first_step;   // of each, indexed like `phases`
    std::array<int, 4> machine{};  // by phase id: 0 the long dimension's link, 1 the short one's
    std::array<Dependency, 4> waits{Dependency{0, -1}, Dependency{0, -1}, Dependency{0, -1},
                                    Dependency{0, -1}};
  };

  Lane make_lane(const BalancedBucketJob& job, int dir, int offset_units, int long_dim,
                 int short_dim) const {
    const auto& dims = info().dims;
    const bool allreduce = info().collective == Collective::allreduce;
    // A side of 1 has no links: the torus is a ring, and the lane visits only the long side.
    const bool ring = dims[short_dim] == 1;
    BucketLanePlan lane_plan;
    lane_plan.order = job.long_first ? std::vector<int>{long_dim, short_dim}
                                     : std::vector<int>{short_dim, long_dim};
    if (ring) lane_plan.order = {long_dim};
    lane_plan.direction = dir == 0 ? +1 : -1;
    lane_plan.numbering = allreduce ? BucketNumbering::by_visit_order : BucketNumbering::by_rank;
    const int first = dims[lane_plan.order[0]] - 1,
              second = dims[short_dim + long_dim - lane_plan.order[0]] - 1;
    lane_plan.phase_steps = ring ? std::vector<int>{first} : std::vector<int>{first, second};
    ScheduleInfo lane_info = info();
    lane_info.blocks = ranks();
    lane_info.ports = 1;
    Lane lane;
    lane.direction_index = dir;
    lane.offset = allreduce ? static_cast<BlockIndex>(offset_units) * ranks() : offset_units;
    lane.units = job.units;
    // Phase lengths in steps, by id: reduce-scatter on the first and second dimension,
    // allgather on the second and first.
    const std::array<int, 4> length{first, second, second, first};
    if (info().collective != Collective::allgather) lane.phases = {0, 1};
    if (info().collective != Collective::reduce_scatter)
      lane.phases.insert(lane.phases.end(), {2, 3});
    if (ring) std::erase_if(lane.phases, [](int phase) { return phase == 1 || phase == 2; });
    for (int phase : lane.phases) {
      lane.first_step.push_back(lane.steps);
      lane.steps += length[static_cast<std::size_t>(phase)];
    }
    const int first_machine = job.long_first ? 0 : 1;
    lane.machine = {first_machine, 1 - first_machine, 1 - first_machine, first_machine};
    lane.collective = std::make_unique<BucketLane>(lane_info, std::move(lane_plan));
    return lane;
  }

  // Index into lane.phases of the phase `step` belongs to.
  [[nodiscard]] static std::size_t phase_index(const Lane& l, int step) {
    std::size_t i = 0;
    while (i + 1 < l.phases.size() && step >= l.first_step[i + 1]) ++i;
    return i;
  }

  [[nodiscard]] static int last_step(const Lane& l, int phase) {
    const auto i = static_cast<std::size_t>(std::find(l.phases.begin(), l.phases.end(), phase) -
                                            l.phases.begin());
    return i + 1 == l.phases.size() ? l.steps - 1 : l.first_step[i + 1] - 1;
  }

  // Allreduce: the lane's contiguous slice. Reduce-scatter and allgather keep MPI's layout: block
  // t (rank t's) becomes `units` blocks of rank t's chunk of 2U.
  [[nodiscard]] BlockSet scaled(const BlockSet& inner, const Lane& l) const {
    BlockSet out;
    if (info().collective == Collective::allreduce) {
      for (const auto& r : inner.ranges())
        out.add(l.offset + r.begin * l.units, l.offset + r.end * l.units);
      return out;
    }
    const BlockIndex chunk = 2 * static_cast<BlockIndex>(plan_.units);
    for (const auto& r : inner.ranges())
      for (BlockIndex t = r.begin; t < r.end; ++t)
        out.add(t * chunk + l.offset, t * chunk + l.offset + l.units);
    return out;
  }

  // Each phase waits for the phase its link served before it, in the same direction.
  void link_dependencies(int jobs) {
    for (int dir = 0; dir < 2; ++dir)
      for (const auto& order : plan_.link_order)
        for (std::size_t k = 1; k < order.size(); ++k) {
          const JobPhase before = order[k - 1], now = order[k];
          const int before_lane = dir * jobs + before.job;
          Lane& lane = lanes_[static_cast<std::size_t>(dir * jobs + now.job)];
          if (before.job == now.job) continue;  // the lane's own order
          lane.waits[static_cast<std::size_t>(now.phase)] = Dependency{
              before_lane, last_step(lanes_[static_cast<std::size_t>(before_lane)], before.phase)};
        }
  }

  // Level of a step: one more than its lane's previous step and than the step it waits for.
  void compute_levels() {
    levels_.assign(lanes_.size(), {});
    for (std::size_t l = 0; l < lanes_.size(); ++l) levels_[l].assign(lanes_[l].steps, -1);
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t l = 0; l < lanes_.size(); ++l)
        for (int s = 0; s < lanes_[l].steps; ++s) {
          const int level = level_of(l, s);
          if (level < 0) break;  // waits for a step without a level yet
          if (levels_[l][s] != level) levels_[l][s] = level, changed = true;
        }
    }
    level_count_ = 0;
    for (const auto& level : levels_)
      for (int v : level) level_count_ = std::max(level_count_, v + 1);
  }

  // -1 while the previous step or the step waited for has no level.
  [[nodiscard]] int level_of(std::size_t l, int s) const {
    const Lane& lane = lanes_[l];
    int level = 0;
    if (s > 0) {
      if (levels_[l][s - 1] < 0) return -1;
      level = levels_[l][s - 1] + 1;
    }
    const std::size_t i = phase_index(lane, s);
    const Dependency d = lane.waits[static_cast<std::size_t>(lane.phases[i])];
    if (s == lane.first_step[i] && d.step >= 0) {
      const int other = levels_[static_cast<std::size_t>(d.lane)][static_cast<std::size_t>(d.step)];
      if (other < 0) return -1;
      level = std::max(level, other + 1);
    }
    return level;
  }

  BalancedBucketPlan plan_;
  std::vector<Lane> lanes_;
  std::vector<std::vector<int>> levels_;
  int level_count_ = 0;
};

SchedulePtr build_balanced_bucket(const ScheduleRequest& request) {
  const auto& dims = request.dims;
  if (dims.size() != 2)
    throw UnsupportedRequest("bucket-balanced needs a 2D torus (got " +
                             std::to_string(dims.size()) + " dimensions)");
  const int long_dim = dims[0] >= dims[1] ? 0 : 1;
  // With a side of 1 the torus is a ring: one collective per direction, nothing to balance.
  BalancedBucketPlan plan =
      dims[1 - long_dim] == 1
          ? BalancedBucketPlan{1, {BalancedBucketJob{true, 1}}, {}, 1.0}
          : plan_balanced_bucket(dims[long_dim], dims[1 - long_dim], request.collective);
  const long long blocks = 2LL * plan.units * request.ranks;
  if (blocks > INT_MAX)
    throw UnsupportedRequest("bucket-balanced needs " + std::to_string(blocks) +
                             " blocks, more than a schedule can index; use fewer ranks");
  ScheduleInfo info;
  info.collective = request.collective;
  info.algorithm = "bucket-balanced";
  info.ranks = request.ranks;
  info.blocks = static_cast<int>(blocks);
  info.ports = 4;
  info.dims = dims;
  return std::make_unique<BalancedBucket>(std::move(info), std::move(plan), long_dim, 1 - long_dim);
}

}  // namespace

void register_balanced_bucket(Registry& registry) {
  AlgorithmInfo info = described(
      "bucket",
      {"bucket-balanced", "bandwidth-optimal",
       "swing-nsdi24.txt sections 2.3.1, 2.3.4 (bucket); the split and link order are ours "
       "(docs/efficiency.md)",
       "bucket on a 2D torus with each direction's data split unevenly among 2-4 collectives "
       "that take turns on the links, so a rectangular torus keeps both dimensions busy"});
  info.collectives = {Collective::allreduce, Collective::reduce_scatter, Collective::allgather};
  info.requirements.dims = DimsRule::two_dimensional;
  info.requirements.ports.one = false;
  info.requirements.ports.two_per_dimension = true;
  info.requirements.ports.default_ports = PortsRule::Default::two_per_dimension;
  info.requirements.commutative_op = true;
  info.build = build_balanced_bucket;
  registry.add(std::move(info));
}

}  // namespace topocoll::algorithms
