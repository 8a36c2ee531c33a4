#pragma once
// The concurrent bucket collectives of `bucket` and `bucket-lanes` (swing-nsdi24.txt sections
// 2.3.1, 2.3.4): one lane per starting dimension and ring direction, on its own slice of the
// vector and its own port. The two algorithms differ only in whether the lanes wait for each
// other where they switch dimension.
#include <string>
#include <vector>

#include "algorithms/baselines/bucket_lane.hpp"
#include "core/registry.hpp"

namespace topocoll::algorithms {

// One plan per lane for the request's ports; all plans share `phase_steps`, the longest ring
// of each dimension phase, so the lanes' dimension phases start at the same step indices.
[[nodiscard]] std::vector<BucketLanePlan> plan_bucket_lanes(const ScheduleRequest& request);

// The first step of every dimension phase a lane runs, in running order (reduce-scatter
// phases, then allgather phases), the same for every plan of plan_bucket_lanes.
[[nodiscard]] std::vector<int> bucket_phase_starts(const BucketLanePlan& plan,
                                                   Collective collective);

// What `bucket` and `bucket-lanes` accept: the collectives, tori of any dimension, two ports
// per dimension, a commutative operation (each block's partial sum starts after its owner and
// wraps around every ring).
void set_bucket_requirements(AlgorithmInfo& info);

// The lanes as one schedule named `algorithm`, none waiting for another.
[[nodiscard]] SchedulePtr build_bucket_lanes(const ScheduleRequest& request,
                                             std::vector<BucketLanePlan> plans,
                                             const std::string& algorithm);

}  // namespace topocoll::algorithms
