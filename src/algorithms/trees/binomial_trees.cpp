// Binomial-tree broadcast and reduce in the two classic orders (bine-trees-sc25.txt section 1,
// Fig. 1 and section 2.1): distance-halving as in MPICH (the root first serves the rank 2^(s-1)
// away) and distance-doubling as in Open MPI (the root first serves its neighbour). Any number
// of ranks: a child that would fall past P - 1 simply does not exist.
#include "algorithms/families.hpp"
#include "algorithms/trees/tree_large.hpp"
#include "algorithms/trees/tree_rooted.hpp"

namespace topocoll::algorithms {
namespace {

AlgorithmInfo binomial_entry(const std::string& name, const std::string& variant, TreeKind kind) {
  AlgorithmInfo info;
  info.name = name;
  info.family = "binomial-tree";
  info.variant = variant;
  info.paper = "bine-trees-sc25.txt sections 1 (Fig. 1), 2.1, 4.5";
  info.collectives = {Collective::bcast, Collective::reduce};
  info.build = [name, kind](const ScheduleRequest& request) {
    return build_tree_collective(request, name, kind);
  };
  return info;
}

}  // namespace

void register_binomial_trees(Registry& registry) {
  AlgorithmInfo halving = binomial_entry("binomial-halving", "distance-halving (MPICH order)",
                                         TreeKind::binomial_halving);
  halving.summary =
      "binomial tree, root serves distance 2^(s-1) first; reduce keeps rank order (via rank 0 "
      "when the operator is non-commutative)";
  registry.add(std::move(halving));

  AlgorithmInfo doubling = binomial_entry("binomial-doubling", "distance-doubling (Open MPI order)",
                                          TreeKind::binomial_doubling);
  doubling.summary = "binomial tree, root serves distance 1 first; log2 P steps";
  // Subtrees of a distance-doubling tree interleave (x, x + 2^j, ...), so the operands of a
  // reduction cannot stay in rank order.
  doubling.requirements.commutative_op = true;
  registry.add(std::move(doubling));
  AlgorithmInfo large;
  large.name = "binomial-large";
  large.family = "binomial-tree";
  large.variant = "large-vector";
  large.paper = "bine-trees-sc25.txt sections 4.5, 5.1.1";
  large.summary =
      "bcast = binomial scatter (distance halving) + recursive-doubling allgather; reduce = "
      "recursive-halving reduce-scatter + binomial gather (MPICH); P not a power of two folds onto "
      "the largest power of two";
  large.collectives = {Collective::bcast, Collective::reduce};
  // The reduce-scatter butterfly combines partial results in the order its pairs meet.
  large.requirements.commutative_op = true;
  large.build = [](const ScheduleRequest& request) {
    return build_large_collective(request, "binomial-large", LargeFamily::binomial);
  };
  registry.add(std::move(large));
}

}  // namespace topocoll::algorithms
