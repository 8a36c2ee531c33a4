// Ring reduce-scatter, allgather and allreduce (swing-nsdi24.txt section 2.3.1): P - 1 steps per
// phase, each rank sends one block to its right neighbour and receives one from its left. The
// two-port form runs a clockwise and a counter-clockwise ring on the two halves of the vector.
#include <memory>

#include "algorithms/baselines/ring_phase.hpp"
#include "algorithms/common/compose.hpp"
#include "algorithms/families.hpp"

namespace topocoll::algorithms {
namespace {

SchedulePtr build_ring(const ScheduleRequest& request) {
  const RingOrder order(request.ranks);
  if (request.ports == 1) return ring_direction(request, "ring", order, +1);
  std::vector<SchedulePtr> lanes;
  lanes.push_back(ring_direction(request, "ring", order, +1));
  lanes.push_back(ring_direction(request, "ring", order, -1));
  const ScheduleInfo lane = lanes.front()->info();
  // Allreduce keeps each direction on its own half; the chunked collectives split every
  // rank's chunk between the two directions.
  const int chunk = request.collective == Collective::allreduce ? lane.blocks : 1;
  return std::make_unique<LaneSet>(lanes_info(lane, 2), std::move(lanes), LaneLayout{2, chunk});
}

}  // namespace

void register_ring(Registry& registry) {
  AlgorithmInfo info = described(
      "ring", {"ring", "bandwidth-optimal", "swing-nsdi24.txt section 2.3.1",
               "reduce-scatter + allgather around a ring, P-1 steps each; ports=2 runs both "
               "directions"});
  info.collectives = {Collective::allreduce, Collective::reduce_scatter, Collective::allgather};
  info.baseline = true;
  info.requirements.ports.two = true;
  // Each block's partial sum starts after its owner and wraps around the ring.
  info.requirements.commutative_op = true;
  info.build = build_ring;
  registry.add(std::move(info));
}

}  // namespace topocoll::algorithms
