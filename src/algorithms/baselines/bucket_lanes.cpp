// `bucket-lanes`, our variant of the bucket algorithm (swing-nsdi24.txt sections 2.3.1, 2.3.4):
// the 2D concurrent collectives of `bucket`, each free to move to its next dimension as soon
// as its own ring is done. On a rectangular torus a collective that started on a short
// dimension then reaches the long one while another still runs there, so two rings share a
// link direction for a while (what section 5.2 and Fig. 9 describe and the paper avoids), but
// no lane waits for another: its padding steps are empty, so an allreduce takes
// 2(d_1 - 1 + ... + d_D - 1) rounds instead of 2D(d_max - 1).
#include "algorithms/baselines/bucket_lanes.hpp"

#include <algorithm>
#include <climits>
#include <memory>

#include "algorithms/common/compose.hpp"
#include "algorithms/families.hpp"

namespace topocoll::algorithms {
namespace {

struct LaneStart {
  int start;  // index of the first dimension among the dimensions of size >= 2
  int direction;
};

// A dimension of size 1 has no links: lanes neither start on it nor visit it, so a torus with
// such dimensions runs as the torus of its other dimensions (with fewer lanes than ports).
std::vector<int> linked_dimensions(const std::vector<int>& dims) {
  std::vector<int> out;
  for (int i = 0; i < static_cast<int>(dims.size()); ++i)
    if (dims[i] >= 2) out.push_back(i);
  return out;
}

// ports 1: one ring direction; 2: both directions (as the bidirectional ring, also when D = 2);
// D: one lane per starting dimension; 2D: both directions of every starting dimension.
std::vector<LaneStart> lane_starts(int ports, int dimensions, int linked) {
  if (ports == 1) return {{0, +1}};
  if (ports == 2) return {{0, +1}, {0, -1}};
  std::vector<LaneStart> out;
  for (int s = 0; s < linked; ++s) {
    out.push_back({s, +1});
    if (ports == 2 * dimensions) out.push_back({s, -1});
  }
  return out;
}

SchedulePtr build_independent_lanes(const ScheduleRequest& request) {
  return build_bucket_lanes(request, plan_bucket_lanes(request), "bucket-lanes");
}

}  // namespace

std::vector<BucketLanePlan> plan_bucket_lanes(const ScheduleRequest& request) {
  const std::vector<int> linked = linked_dimensions(request.dims);
  const int m = static_cast<int>(linked.size());
  std::vector<BucketLanePlan> plans;
  for (const LaneStart& ls : lane_starts(request.ports, static_cast<int>(request.dims.size()), m)) {
    BucketLanePlan plan;
    for (int j = 0; j < m; ++j) plan.order.push_back(linked[(ls.start + j) % m]);
    plan.direction = ls.direction;
    plan.numbering = request.collective == Collective::allreduce ? BucketNumbering::by_visit_order
                                                                 : BucketNumbering::by_rank;
    plans.push_back(std::move(plan));
  }
  // Phase j spans the longest ring any lane runs in it (section 5.2); a lane on a shorter
  // dimension has empty steps for the rest.
  std::vector<int> steps(m, 0);
  for (const auto& plan : plans)
    for (int j = 0; j < m; ++j) steps[j] = std::max(steps[j], request.dims[plan.order[j]] - 1);
  for (auto& plan : plans) plan.phase_steps = steps;
  return plans;
}

std::vector<int> bucket_phase_starts(const BucketLanePlan& plan, Collective collective) {
  const int m = static_cast<int>(plan.phase_steps.size());
  std::vector<int> positions;
  if (collective != Collective::allgather)
    for (int i = 0; i < m; ++i) positions.push_back(i);
  if (collective != Collective::reduce_scatter)
    for (int i = m - 1; i >= 0; --i) positions.push_back(i);
  std::vector<int> starts;
  int step = 0;
  for (int position : positions) {
    starts.push_back(step);
    step += plan.phase_steps[position];
  }
  return starts;
}

SchedulePtr build_bucket_lanes(const ScheduleRequest& request, std::vector<BucketLanePlan> plans,
                               const std::string& algorithm) {
  const int lanes = static_cast<int>(plans.size());
  if (static_cast<long long>(lanes) * request.ranks > INT_MAX)
    throw UnsupportedRequest(algorithm + " needs " + std::to_string(lanes) + " x " +
                             std::to_string(request.ranks) +
                             " blocks, more than a schedule can index; use fewer ports or ranks");
  ScheduleInfo lane;
  lane.collective = request.collective;
  lane.algorithm = algorithm;
  lane.ranks = request.ranks;
  lane.blocks = request.ranks;
  lane.ports = 1;
  lane.dims = request.dims;

  std::vector<SchedulePtr> schedules;
  for (auto& plan : plans) schedules.push_back(std::make_unique<BucketLane>(lane, std::move(plan)));
  ScheduleInfo info = lanes_info(lane, lanes);
  // Fewer lanes than ports when dimensions of size 1 have no links to use.
  info.ports = std::max(info.ports, request.ports);
  // Allreduce gives each lane a contiguous slice; the chunked collectives split every rank's
  // chunk among the lanes (MPI's layout: rank r's chunk is blocks [r*S, (r+1)*S)).
  const int chunk = request.collective == Collective::allreduce ? request.ranks : 1;
  return std::make_unique<LaneSet>(std::move(info), std::move(schedules), LaneLayout{lanes, chunk});
}

void set_bucket_requirements(AlgorithmInfo& info) {
  info.collectives = {Collective::allreduce, Collective::reduce_scatter, Collective::allgather};
  info.requirements.dims = DimsRule::any_torus;
  info.requirements.ports.two = true;
  info.requirements.ports.per_dimension = true;
  info.requirements.ports.two_per_dimension = true;
  info.requirements.ports.default_ports = PortsRule::Default::two_per_dimension;
  info.requirements.commutative_op = true;
}

void register_bucket_lanes(Registry& registry) {
  AlgorithmInfo info = described(
      "bucket", {"bucket-lanes", "bandwidth-optimal",
                 "swing-nsdi24.txt sections 2.3.1, 2.3.4 (bucket); lanes that switch dimension "
                 "on their own are ours (section 5.2 synchronizes them)",
                 "bucket's 2D concurrent collectives, each moving to its next dimension as soon "
                 "as its own ring ends (fewer steps on rectangular tori, shared links)"});
  set_bucket_requirements(info);
  info.build = build_independent_lanes;
  registry.add(std::move(info));
}

}  // namespace topocoll::algorithms
