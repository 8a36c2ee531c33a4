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
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "algorithms/baselines/ring_phase.hpp"
#include "algorithms/common/compose.hpp"
#include "algorithms/families.hpp"
#include "core/rank_math.hpp"

namespace topocoll::algorithms {
namespace {

// Cycle 0 (A) or 1 (B) of an r x c torus (rows r = k c, gcd(r, c - 1) = 1) whose rows run
// along torus dimension `row_dim` (0 or 1) of `dims`, as the rank at each position.
std::vector<int> hamiltonian_cycle(const std::vector<int>& dims, int row_dim, int cycle) {
  const int rows = dims[row_dim], cols = dims[1 - row_dim];
  // Rank of node (row, col) in MPI's layout (dimension 0 fastest).
  auto rank_of = [&](int row, int col) {
    return row_dim == 0 ? row + rows * col : col + cols * row;
  };
  std::vector<int> nodes(static_cast<std::size_t>(rows * cols));
  for (int t = 0; t < rows * cols; ++t) {
    const int u = t / cols, o = t % cols;
    nodes[static_cast<std::size_t>(t)] =
        cycle == 0 ? rank_of(u, mod(o - u, cols))
                   : rank_of(mod(static_cast<long long>(u) * (cols - 1) + o, rows), u % cols);
  }
  return nodes;
}

}  // namespace

int hamiltonian_rows_dimension(const std::vector<int>& dims) {
  for (int row_dim : {1, 0}) {
    const int r = dims[row_dim], c = dims[1 - row_dim];
    if (c >= 2 && r % c == 0 && std::gcd(r, c - 1) == 1) return row_dim;
  }
  return -1;
}

namespace {

SchedulePtr build_hamiltonian_rings(const ScheduleRequest& request) {
  const int row_dim = hamiltonian_rows_dimension(request.dims);
  // SideRule::hamiltonian_pair refuses every other shape before building.
  if (row_dim < 0) throw std::logic_error("hamiltonian-rings built on an unsupported shape");
  std::vector<SchedulePtr> lanes;
  for (int cycle : {0, 1}) {
    // Tables, not the closed forms: the simulator's symmetry search reads every step of every
    // rank, and the closed forms cost a few divisions each.
    const RingOrder order(hamiltonian_cycle(request.dims, row_dim, cycle));
    for (int direction : {+1, -1})
      lanes.push_back(ring_direction(request, "hamiltonian-rings", order, direction));
  }
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
