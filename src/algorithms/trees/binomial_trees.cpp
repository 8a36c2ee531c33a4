// Binomial-tree broadcast and reduce in the two classic orders (bine-trees-sc25.txt section 1,
// Fig. 1 and section 2.1): distance-halving as in MPICH (the root first serves the rank 2^(s-1)
// away) and distance-doubling as in Open MPI (the root first serves its neighbour). Any number
// of ranks: a child that would fall past P - 1 simply does not exist.
#include "algorithms/families.hpp"
#include "algorithms/trees/tree_family.hpp"

namespace topocoll::algorithms {

void register_binomial_trees(Registry& registry) {
  constexpr const char* kPaper = "bine-trees-sc25.txt sections 1 (Fig. 1), 2.1, 4.5";
  const TreeVariant trees[] = {
      {{"binomial-halving", "distance-halving (MPICH order)", kPaper,
        "binomial tree, root serves distance 2^(s-1) first; reduce keeps rank order (via rank 0 "
        "when the operator is non-commutative)"},
       TreeKind::binomial_halving,
       false},
      // Subtrees of a distance-doubling tree interleave (x, x + 2^j, ...).
      {{"binomial-doubling", "distance-doubling (Open MPI order)", kPaper,
        "binomial tree, root serves distance 1 first; log2 P steps"},
       TreeKind::binomial_doubling,
       true},
  };
  for (const TreeVariant& v : trees) {
    AlgorithmInfo info = tree_variant_info("binomial-tree", v);
    info.baseline = true;
    registry.add(std::move(info));
  }
  AlgorithmInfo large = large_variant_info(
      "binomial-tree",
      {{"binomial-large", "large-vector", "bine-trees-sc25.txt sections 4.5, 5.1.1",
        "bcast = binomial scatter (distance halving) + recursive-doubling allgather; reduce = "
        "recursive-halving reduce-scatter + binomial gather (MPICH); P not a power of two folds "
        "onto the largest power of two"},
       LargeFamily::binomial});
  large.baseline = true;
  registry.add(std::move(large));
}

}  // namespace topocoll::algorithms
