// Bucket algorithm (swing-nsdi24.txt sections 2.3.4 and 5.2): on a D-dimensional torus, a ring
// reduce-scatter along each torus dimension in turn, then ring allgathers in reverse. With 2D ports
// it runs 2D concurrent collectives on 1/(2D) of the vector each, one per starting dimension and
// ring direction (the multi-port split of section 2.3.1), so every link carries at most one ring
// per direction. All of them switch dimension together (section 5.2, Fig. 9): a collective
// starts its next dimension only when every collective has finished the current one, so each
// dimension phase lasts as long as the rings on the largest dimension, and an allreduce takes
// 2D(d_max - 1) rounds (reduce-scatter and allgather D(d_max - 1) each).
#include <algorithm>
#include <memory>

#include "algorithms/baselines/bucket_lanes.hpp"
#include "algorithms/families.hpp"

namespace topocoll::algorithms {
namespace {

// The lanes of bucket-lanes, where the first step of every dimension phase after the first
// waits for the other lanes of its rank to finish the step before it. The lanes' phases start
// at the same indices, so the default lock-step view (step k = every lane's step k) already
// puts each waited-for step first.
class LockStepBucket final : public Schedule {
 public:
  LockStepBucket(SchedulePtr lanes, std::vector<int> phase_starts)
      : Schedule(lanes->info()), lanes_(std::move(lanes)), starts_(std::move(phase_starts)) {}
  [[nodiscard]] int lane_count(int rank) const override { return lanes_->lane_count(rank); }
  [[nodiscard]] int lane_step_count(int rank, int lane) const override {
    return lanes_->lane_step_count(rank, lane);
  }
  void build_lane_step(int rank, int lane, int step, Step& out) const override {
    lanes_->build_lane_step(rank, lane, step, out);
    if (step == 0 || !std::binary_search(starts_.begin(), starts_.end(), step)) return;
    for (int other = 0; other < lane_count(rank); ++other)
      if (other != lane) out.after.push_back({other, step - 1});
  }

 private:
  SchedulePtr lanes_;
  std::vector<int> starts_;  // ascending
};

SchedulePtr build_bucket(const ScheduleRequest& request) {
  std::vector<BucketLanePlan> plans = plan_bucket_lanes(request);
  std::vector<int> starts = bucket_phase_starts(plans.front(), request.collective);
  return std::make_unique<LockStepBucket>(build_bucket_lanes(request, std::move(plans), "bucket"),
                                          std::move(starts));
}

}  // namespace

void register_bucket(Registry& registry) {
  AlgorithmInfo info = described(
      "bucket", {"bucket", "bandwidth-optimal", "swing-nsdi24.txt sections 2.3.1, 2.3.4, 5.2",
                 "ring reduce-scatter/allgather along each torus dimension in turn; 2D concurrent "
                 "collectives switching dimension together"});
  info.baseline = true;
  set_bucket_requirements(info);
  info.build = build_bucket;
  registry.add(std::move(info));
}

}  // namespace topocoll::algorithms
