// Ring reduce-scatter, allgather and allreduce (swing-nsdi24.txt section 2.3.1): P - 1 steps per
// phase, each rank sends one block to its right neighbour and receives one from its left. The
// two-port form runs a clockwise and a counter-clockwise ring on the two halves of the vector.
#include <memory>

#include "algorithms/baselines/ring_phase.hpp"
#include "algorithms/common/compose.hpp"
#include "algorithms/families.hpp"
#include "core/rank_math.hpp"

namespace topocoll::algorithms {
namespace {

// One ring phase on P blocks (block q is rank q's chunk), moving data in `direction` (+1/-1).
class RingPhaseSchedule final : public Schedule {
 public:
  RingPhaseSchedule(ScheduleInfo info, RingPhase phase, int direction)
      : Schedule(std::move(info)), phase_(phase), direction_(direction) {}

  [[nodiscard]] int step_count(int) const override { return ranks() - 1; }

  void build_step(int rank, int step, Step& out) const override {
    const int p = ranks();
    const int d = direction_;
    // Reduce-scatter: after P - 1 steps rank r holds the reduced block r.
    // Allgather: rank r starts with block r and forwards what it received last.
    const int shift = phase_ == RingPhase::reduce_scatter ? 1 : 0;
    const auto sent = static_cast<BlockIndex>(mod(rank - d * (step + shift), p));
    const auto received = static_cast<BlockIndex>(mod(rank - d * (step + shift + 1), p));
    const Combine combine = phase_ == RingPhase::reduce_scatter ? Combine::reduce : Combine::copy;
    out.ops.push_back(Operation::send(mod(rank + d, p), BlockSet::single(sent)));
    out.ops.push_back(Operation::recv(mod(rank - d, p), BlockSet::single(received), combine));
  }

 private:
  RingPhase phase_;
  int direction_;
};

ScheduleInfo ring_lane_info(const ScheduleRequest& request, Collective collective) {
  ScheduleInfo info;
  info.collective = collective;
  info.algorithm = "ring";
  info.ranks = request.ranks;
  info.blocks = request.ranks;
  info.ports = 1;
  info.dims = request.dims;
  return info;
}

// One direction of the ring for the requested collective.
SchedulePtr one_direction(const ScheduleRequest& request, int direction) {
  const Collective c = request.collective;
  auto phase = [&](RingPhase ph, Collective as) {
    return std::make_unique<RingPhaseSchedule>(ring_lane_info(request, as), ph, direction);
  };
  if (c == Collective::reduce_scatter) return phase(RingPhase::reduce_scatter, c);
  if (c == Collective::allgather) return phase(RingPhase::allgather, c);
  std::vector<SchedulePtr> phases;
  phases.push_back(phase(RingPhase::reduce_scatter, Collective::reduce_scatter));
  phases.push_back(phase(RingPhase::allgather, Collective::allgather));
  return std::make_unique<PhaseSequence>(ring_lane_info(request, c), std::move(phases));
}

SchedulePtr build_ring(const ScheduleRequest& request) {
  if (request.ports == 1) return one_direction(request, +1);
  std::vector<SchedulePtr> lanes;
  lanes.push_back(one_direction(request, +1));
  lanes.push_back(one_direction(request, -1));
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
