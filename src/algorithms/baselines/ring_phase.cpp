#include "algorithms/baselines/ring_phase.hpp"

#include <utility>

#include "algorithms/common/compose.hpp"
#include "core/rank_math.hpp"

namespace topocoll::algorithms {

RingOrder::RingOrder(int ranks) : ranks_(ranks) {}

RingOrder::RingOrder(std::vector<int> nodes) : ranks_(static_cast<int>(nodes.size())) {
  std::vector<int> positions(nodes.size());
  for (int t = 0; t < ranks_; ++t) positions[static_cast<std::size_t>(nodes[t])] = t;
  nodes_ = std::make_shared<const std::vector<int>>(std::move(nodes));
  positions_ = std::make_shared<const std::vector<int>>(std::move(positions));
}

int RingOrder::node(long long position) const {
  const int t = mod(position, ranks_);
  return nodes_ ? (*nodes_)[static_cast<std::size_t>(t)] : t;
}

int RingOrder::position(int rank) const {
  return positions_ ? (*positions_)[static_cast<std::size_t>(rank)] : rank;
}

namespace {

class RingPhaseSchedule final : public Schedule {
 public:
  RingPhaseSchedule(ScheduleInfo info, RingOrder order, RingPhase phase, int direction)
      : Schedule(std::move(info)), order_(std::move(order)), phase_(phase), direction_(direction) {}

  [[nodiscard]] int step_count(int) const override { return ranks() - 1; }

  void build_step(int rank, int step, Step& out) const override {
    const long long t = order_.position(rank);
    const int d = direction_;
    // Reduce-scatter: after P - 1 steps position t holds the reduced block of its rank.
    // Allgather: position t starts with its rank's block and forwards what it received last.
    const int shift = phase_ == RingPhase::reduce_scatter ? 1 : 0;
    const auto sent = static_cast<BlockIndex>(order_.node(t - d * (step + shift)));
    const auto received = static_cast<BlockIndex>(order_.node(t - d * (step + shift + 1)));
    const Combine combine = phase_ == RingPhase::reduce_scatter ? Combine::reduce : Combine::copy;
    out.ops.push_back(Operation::send(order_.node(t + d), BlockSet::single(sent)));
    out.ops.push_back(Operation::recv(order_.node(t - d), BlockSet::single(received), combine));
  }

 private:
  RingOrder order_;
  RingPhase phase_;
  int direction_;
};

}  // namespace

SchedulePtr ring_direction(const ScheduleRequest& request, const std::string& algorithm,
                           const RingOrder& order, int direction) {
  auto phase = [&](RingPhase ph, Collective as) {
    return std::make_unique<RingPhaseSchedule>(info_for(request, algorithm, as, request.ranks, 1),
                                               order, ph, direction);
  };
  const Collective c = request.collective;
  if (c == Collective::reduce_scatter) return phase(RingPhase::reduce_scatter, c);
  if (c == Collective::allgather) return phase(RingPhase::allgather, c);
  std::vector<SchedulePtr> phases;
  phases.push_back(phase(RingPhase::reduce_scatter, Collective::reduce_scatter));
  phases.push_back(phase(RingPhase::allgather, Collective::allgather));
  return std::make_unique<PhaseSequence>(info_for(request, algorithm, c, request.ranks, 1),
                                         std::move(phases));
}

}  // namespace topocoll::algorithms
