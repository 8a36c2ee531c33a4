#include "algorithms/trees/tree_large.hpp"

#include <memory>

#include "algorithms/common/compose.hpp"
#include "algorithms/trees/tree_butterfly.hpp"
#include "core/rank_math.hpp"

namespace topocoll::algorithms {
namespace {

// The four trees of a family on n nodes, in broadcast order.
struct LargePlan {
  ButterflyFamily::Placement placement;
  Tree scatter;         // bcast phase 1
  Tree allgather;       // bcast phase 2: the shape whose superposition is the allgather
  Tree reduce_scatter;  // reduce phase 1: the shape whose reversed superposition it is
  Tree gather;          // reduce phase 2
  // The reduce's block layout: the late-first preorder of this tree (see preorder_chunks).
  Tree reduce_layout;
};

// Section 5.1.1: MPICH (and Open MPI) scatter along a distance-halving binomial tree, then
// allgather by recursive doubling, so the largest transfers of both phases cross the longest
// distances. Their reduce (Rabenseifner, as MPICH) halves the vector at distance 1 first and
// gathers back along the same pairs, the last (largest) gather step at distance 1.
LargePlan binomial_plan(int n) {
  return {ButterflyFamily::Placement::exclusive_or,
          binomial_halving_tree(n),
          binomial_doubling_tree(n),
          binomial_halving_tree(n),
          binomial_doubling_tree(n),
          binomial_doubling_tree(n)};
}

// Section 4.5: Bine reverses the broadcast: it scatters along a distance-doubling tree (half
// the vector to a neighbour first) and allgathers along distance-halving trees (the last and
// largest exchange between neighbours). Section 4.5 names the phases by the order in which
// they run, as section 4.3 does for butterflies: the reduce-scatter is distance-doubling in
// time (the reverse of the distance-halving allgather) and the "distance-halving" gather is
// the distance-doubling tree run backwards, far ranks first and the half vector between
// neighbours last. It inverts the reduce-scatter's block placement, so both phases send one
// range per message on powers of two ("Data is transmitted contiguously").
LargePlan bine_plan(int n) {
  return {ButterflyFamily::Placement::rotate_mirror_odd,
          bine_doubling_tree(n),
          bine_halving_tree(n),
          bine_halving_tree(n),
          bine_doubling_tree(n),
          bine_doubling_tree(n)};
}

// Chunk of each node: its position in the tree's late-first preorder, so every subtree is one
// range of blocks (the permutation of section 4.3.1 / Appendix D.2, applied by placement).
std::vector<int> preorder_chunks(const Tree& tree) {
  const std::vector<int> order = late_first_preorder(tree);
  std::vector<int> chunk(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) chunk[order[i]] = static_cast<int>(i);
  return chunk;
}

}  // namespace

SchedulePtr build_large_collective(const ScheduleRequest& request, const std::string& algorithm,
                                   LargeFamily family) {
  const int p = request.ranks;
  // Binomial butterflies pair x with x ^ 2^k and need a power of two; Bine ones any even count.
  const int n = family == LargeFamily::binomial ? static_cast<int>(floor_power(p, 2))
                                                : (p % 2 == 0 ? p : p - 1);
  const LargePlan plan = family == LargeFamily::binomial ? binomial_plan(n) : bine_plan(n);
  const Participants where(p, request.root, n);

  ScheduleInfo info;
  info.collective = request.collective;
  info.algorithm = algorithm;
  info.ranks = p;
  info.blocks = n;
  info.ports = 1;
  info.root = request.root;
  info.dims = request.dims;

  std::vector<SchedulePtr> phases;
  using Kind = ButterflyPhase::Kind;
  if (request.collective == Collective::bcast) {
    auto scatter = std::make_shared<Tree>(plan.scatter);
    const std::vector<int> chunk = preorder_chunks(*scatter);
    auto family_trees = std::make_shared<ButterflyFamily>(plan.allgather, plan.placement);
    phases.push_back(std::make_unique<TreeScatter>(info, scatter, chunk, where));
    phases.push_back(
        std::make_unique<ButterflyPhase>(info, family_trees, chunk, where, Kind::allgather));
    if (where.pairs() > 0)
      phases.push_back(std::make_unique<FoldStep>(info, where, FoldStep::Direction::out));
  } else {
    auto gather = std::make_shared<Tree>(plan.gather);
    const std::vector<int> chunk = preorder_chunks(plan.reduce_layout);
    auto family_trees = std::make_shared<ButterflyFamily>(plan.reduce_scatter, plan.placement);
    if (where.pairs() > 0)
      phases.push_back(std::make_unique<FoldStep>(info, where, FoldStep::Direction::in));
    phases.push_back(
        std::make_unique<ButterflyPhase>(info, family_trees, chunk, where, Kind::reduce_scatter));
    phases.push_back(std::make_unique<TreeGather>(info, gather, chunk, where));
  }
  return std::make_unique<PhaseSequence>(info, std::move(phases));
}

}  // namespace topocoll::algorithms
