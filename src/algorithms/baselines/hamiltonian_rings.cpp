// Hamiltonian rings (swing-nsdi24.txt section 2.3.1): the ring algorithm on a 2D torus, four
// rings on a quarter of the vector each, running along two edge-disjoint Hamiltonian cycles,
// each cycle in both directions. Every torus link then carries at most one message per
// direction in every step (congestion deficiency 1).
//
// The cycles (the construction the paper takes from its reference [26], HammingMesh; we derive
// it here). Take the torus as r rows by c columns, node (i, j):
//  - cycle A walks row i from column -i rightwards over c - 1 links to column -i - 1, then one
//    link down to row i + 1, where it starts at column -(i + 1). After r rows it is back at
//    column -r, which is column 0 only when c divides r: r = k c.
//  - cycle B takes the links A leaves: from (i, -i) down c - 1 links to row i + c - 1 (column
//    -i), then one link right. Each such run of c nodes advances the row by c - 1, so B closes
//    after r / gcd(r, c - 1) runs and covers every node only when gcd(r, c - 1) = 1.
// These are the paper's conditions; the torus may be given either way round (dims RxC or CxR).
// In B, run u covers column u mod c, rows u (c - 1) .. u (c - 1) + c - 1 (mod r).
//
// On a side of 2 the two links between a pair of nodes are distinct torus links (the +1 and the
// wrap-around link), which the cycles use separately; a router that sends both over one link
// sees them share it.
#include <array>
#include <memory>
#include <numeric>
#include <string>

#include "algorithms/baselines/ring_phase.hpp"
#include "algorithms/common/compose.hpp"
#include "algorithms/families.hpp"
#include "core/rank_math.hpp"

namespace topocoll::algorithms {
namespace {

// The two Hamiltonian cycles of an r x c torus (rows r = k c, gcd(r, c - 1) = 1), as tables
// of rank by position and position by rank: the simulator's symmetry search reads every step of
// every rank, and the closed forms below cost a few divisions each.
class CyclePair {
 public:
  // Rows run along torus dimension `row_dim` (0 or 1) of `dims`.
  CyclePair(const std::vector<int>& dims, int row_dim)
      : rows_(dims[row_dim]), cols_(dims[1 - row_dim]), row_dim_(row_dim) {
    for (int cycle : {0, 1}) {
      auto& nodes = nodes_[static_cast<std::size_t>(cycle)];
      auto& positions = positions_[static_cast<std::size_t>(cycle)];
      nodes.resize(static_cast<std::size_t>(ranks()));
      positions.resize(static_cast<std::size_t>(ranks()));
      for (int t = 0; t < ranks(); ++t) {
        nodes[static_cast<std::size_t>(t)] = node_at(cycle, t);
        positions[static_cast<std::size_t>(nodes[static_cast<std::size_t>(t)])] = t;
      }
    }
  }

  [[nodiscard]] int ranks() const { return rows_ * cols_; }

  // The rank at `position` (any integer, taken modulo the ranks) of cycle 0 (A) or 1 (B).
  [[nodiscard]] int node(int cycle, long long position) const {
    return nodes_[static_cast<std::size_t>(cycle)]
                 [static_cast<std::size_t>(mod(position, ranks()))];
  }

  // The position of `rank` on cycle 0 (A) or 1 (B).
  [[nodiscard]] int position(int cycle, int rank) const {
    return positions_[static_cast<std::size_t>(cycle)][static_cast<std::size_t>(rank)];
  }

 private:
  [[nodiscard]] int node_at(int cycle, int t) const {
    const int u = t / cols_, o = t % cols_;
    if (cycle == 0) return rank_of(u, mod(o - u, cols_));
    return rank_of(mod(static_cast<long long>(u) * (cols_ - 1) + o, rows_), u % cols_);
  }

  // Rank of node (row, col) in MPI's layout (dimension 0 fastest).
  [[nodiscard]] int rank_of(int row, int col) const {
    return row_dim_ == 0 ? row + rows_ * col : col + cols_ * row;
  }

  int rows_;
  int cols_;
  int row_dim_;
  std::array<std::vector<int>, 2> nodes_;      // per cycle: rank at each position
  std::array<std::vector<int>, 2> positions_;  // per cycle: position of each rank
};

}  // namespace

int hamiltonian_rows_dimension(const std::vector<int>& dims) {
  for (int row_dim : {1, 0}) {
    const int r = dims[row_dim], c = dims[1 - row_dim];
    if (c >= 2 && r % c == 0 && std::gcd(r, c - 1) == 1) return row_dim;
  }
  return -1;
}

namespace {

// One ring phase along a cycle, moving data in `direction` (+1/-1) of the cycle. Block q is
// rank q's chunk; the rank at position t behaves as rank t of the plain ring (ring.cpp).
class CycleRingPhase final : public Schedule {
 public:
  CycleRingPhase(ScheduleInfo info, std::shared_ptr<const CyclePair> cycles, int cycle,
                 RingPhase phase, int direction)
      : Schedule(std::move(info)),
        cycles_(std::move(cycles)),
        cycle_(cycle),
        phase_(phase),
        direction_(direction) {}

  [[nodiscard]] int step_count(int) const override { return ranks() - 1; }

  void build_step(int rank, int step, Step& out) const override {
    const long long t = cycles_->position(cycle_, rank);
    const int d = direction_;
    const int shift = phase_ == RingPhase::reduce_scatter ? 1 : 0;
    const auto sent = static_cast<BlockIndex>(cycles_->node(cycle_, t - d * (step + shift)));
    const auto received =
        static_cast<BlockIndex>(cycles_->node(cycle_, t - d * (step + shift + 1)));
    const Combine combine = phase_ == RingPhase::reduce_scatter ? Combine::reduce : Combine::copy;
    out.ops.push_back(Operation::send(cycles_->node(cycle_, t + d), BlockSet::single(sent)));
    out.ops.push_back(
        Operation::recv(cycles_->node(cycle_, t - d), BlockSet::single(received), combine));
  }

 private:
  std::shared_ptr<const CyclePair> cycles_;
  int cycle_;
  RingPhase phase_;
  int direction_;
};

ScheduleInfo cycle_lane_info(const ScheduleRequest& request, Collective collective) {
  return info_for(request, "hamiltonian-rings", collective, request.ranks, 1);
}

SchedulePtr ring_lane(const ScheduleRequest& request, const std::shared_ptr<const CyclePair>& cy,
                      int cycle, int direction) {
  auto phase = [&](RingPhase ph, Collective as) {
    return std::make_unique<CycleRingPhase>(cycle_lane_info(request, as), cy, cycle, ph, direction);
  };
  const Collective c = request.collective;
  if (c == Collective::reduce_scatter) return phase(RingPhase::reduce_scatter, c);
  if (c == Collective::allgather) return phase(RingPhase::allgather, c);
  std::vector<SchedulePtr> phases;
  phases.push_back(phase(RingPhase::reduce_scatter, Collective::reduce_scatter));
  phases.push_back(phase(RingPhase::allgather, Collective::allgather));
  return std::make_unique<PhaseSequence>(cycle_lane_info(request, c), std::move(phases));
}

SchedulePtr build_hamiltonian_rings(const ScheduleRequest& request) {
  const int row_dim = hamiltonian_rows_dimension(request.dims);
  // SideRule::hamiltonian_pair refuses every other shape before building.
  if (row_dim < 0) throw std::logic_error("hamiltonian-rings built on an unsupported shape");
  auto cycles = std::make_shared<const CyclePair>(request.dims, row_dim);
  std::vector<SchedulePtr> lanes;
  for (int cycle : {0, 1})
    for (int direction : {+1, -1}) lanes.push_back(ring_lane(request, cycles, cycle, direction));
  const ScheduleInfo lane = lanes.front()->info();
  // Allreduce gives each ring a contiguous quarter; the chunked collectives split every rank's
  // chunk among the rings (MPI's layout).
  const int chunk = request.collective == Collective::allreduce ? lane.blocks : 1;
  return std::make_unique<LaneSet>(lanes_info(lane, 4), std::move(lanes), LaneLayout{4, chunk});
}

}  // namespace

void register_hamiltonian_rings(Registry& registry) {
  AlgorithmInfo info;
  info.name = "hamiltonian-rings";
  info.family = "ring";
  info.baseline = true;
  info.variant = "bandwidth-optimal, 2D torus";
  info.paper = "swing-nsdi24.txt section 2.3.1";
  info.summary =
      "four rings on two edge-disjoint Hamiltonian cycles of a 2D torus, one per direction; "
      "RxC with R = k*C and gcd(R, C-1) = 1";
  info.collectives = {Collective::allreduce, Collective::reduce_scatter, Collective::allgather};
  info.requirements.min_ranks = 4;
  info.requirements.dims = DimsRule::two_dimensional;
  info.requirements.sides = SideRule::hamiltonian_pair;
  info.requirements.ports.one = false;
  info.requirements.ports.two_per_dimension = true;
  info.requirements.ports.default_ports = PortsRule::Default::two_per_dimension;
  // Each block's partial sum starts after its owner and wraps around the cycle.
  info.requirements.commutative_op = true;
  info.build = build_hamiltonian_rings;
  registry.add(std::move(info));
}

}  // namespace topocoll::algorithms
