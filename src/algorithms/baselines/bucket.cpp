// Bucket algorithm (swing-nsdi24.txt sections 2.3.4 and 5.2): on a D-dimensional torus, a ring
// reduce-scatter along each dimension in turn, then ring allgathers in reverse. With 2D ports it
// runs 2D concurrent collectives on 1/(2D) of the vector each, one per starting dimension and
// ring direction (the multi-port split of section 2.3.1), so every link carries at most one ring
// per direction; all of them switch dimension together (section 5.2).
#include <algorithm>
#include <climits>
#include <memory>

#include "algorithms/baselines/bucket_lane.hpp"
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

std::vector<BucketLanePlan> plan_lanes(const ScheduleRequest& request) {
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
  // Synchronized switching (section 5.2): phase j ends when the longest ring of phase j ends.
  std::vector<int> steps(m, 0);
  for (const auto& plan : plans)
    for (int j = 0; j < m; ++j) steps[j] = std::max(steps[j], request.dims[plan.order[j]] - 1);
  for (auto& plan : plans) plan.phase_steps = steps;
  return plans;
}

SchedulePtr build_bucket(const ScheduleRequest& request) {
  std::vector<BucketLanePlan> plans = plan_lanes(request);
  const int lanes = static_cast<int>(plans.size());
  if (static_cast<long long>(lanes) * request.ranks > INT_MAX)
    throw UnsupportedRequest("bucket needs " + std::to_string(lanes) + " x " +
                             std::to_string(request.ranks) +
                             " blocks, more than a schedule can index; use fewer ports or ranks");
  ScheduleInfo lane;
  lane.collective = request.collective;
  lane.algorithm = "bucket";
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

}  // namespace

void register_bucket(Registry& registry) {
  AlgorithmInfo info = described(
      "bucket", {"bucket", "bandwidth-optimal", "swing-nsdi24.txt sections 2.3.1, 2.3.4, 5.2",
                 "ring reduce-scatter/allgather along each torus dimension in turn; 2D concurrent "
                 "collectives switching dimension together"});
  info.baseline = true;
  info.collectives = {Collective::allreduce, Collective::reduce_scatter, Collective::allgather};
  info.requirements.dims = DimsRule::any_torus;
  info.requirements.ports.two = true;
  info.requirements.ports.per_dimension = true;
  info.requirements.ports.two_per_dimension = true;
  info.requirements.ports.default_ports = PortsRule::Default::two_per_dimension;
  // Each block's partial sum starts after its owner and wraps around every ring.
  info.requirements.commutative_op = true;
  info.build = build_bucket;
  registry.add(std::move(info));
}

}  // namespace topocoll::algorithms
