#include "algorithms/bine_latency.hpp"

#include <stdexcept>

namespace topocoll::algorithms::bine {
namespace {

using GridPtr = std::shared_ptr<const BineGrid>;

// Power-of-two shapes: the pairs of every step hold disjoint sets of contributions, so each
// rank sends its whole partial result (one block) and reduces what it receives.
class Butterfly final : public Schedule {
 public:
  Butterfly(ScheduleInfo info, GridPtr grid) : Schedule(std::move(info)), grid_(std::move(grid)) {}

  [[nodiscard]] int step_count(int) const override { return grid_->steps(); }

  void build_step(int rank, int step, Step& out) const override {
    const int peer = grid_->allgather_peer(rank, grid_->steps() - 1 - step);
    out.ops.push_back(Operation::send(peer, BlockSet::single(0)));
    out.ops.push_back(Operation::recv(peer, BlockSet::single(0), Combine::reduce));
  }

 private:
  GridPtr grid_;
};

}  // namespace

SchedulePtr latency_optimal(ScheduleInfo info, GridPtr grid) {
  info.blocks = 1;
  if (grid->power_of_two()) return std::make_unique<Butterfly>(std::move(info), std::move(grid));
  throw std::logic_error("bine-lat: non-power-of-two shapes are not implemented yet");
}

}  // namespace topocoll::algorithms::bine
