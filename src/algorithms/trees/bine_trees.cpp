// Bine-tree broadcast and reduce (bine-trees-sc25.txt): distance-halving trees (sections
// 2.2-2.3, Listing 1) and distance-doubling trees (section 3.2, Appendix A), rotated to any
// root; even non-powers of two drop the subtree reached later at a rank reached twice
// (Appendix C), odd P runs the tree on P - 1 ranks and serves the last one in one more step.
#include "algorithms/families.hpp"
#include "algorithms/trees/tree_family.hpp"
#include "algorithms/trees/tree_torus.hpp"

namespace topocoll::algorithms {
namespace {

AlgorithmInfo torus_info() {
  AlgorithmInfo torus = described(
      "bine-tree",
      {"bine-torus", "torus-optimized", "bine-trees-sc25.txt Appendix D (D.1-D.4), Appendix C",
       "Bine trees dimension by dimension on a D-dim torus; ports=2D splits the "
       "vector in 2D lanes, each a rotation of the direction cycle E-N-W-S"});
  torus.collectives = {Collective::bcast, Collective::reduce, Collective::gather,
                       Collective::scatter};
  torus.requirements.dims = DimsRule::any_torus;
  torus.requirements.ports.two_per_dimension = true;
  torus.requirements.ports.default_ports = PortsRule::Default::two_per_dimension;
  // Subtrees of a torus tree are not ranges of ranks.
  torus.requirements.commutative_op = true;
  torus.build = [](const ScheduleRequest& request) {
    return build_torus_collective(request, "bine-torus");
  };
  return torus;
}

}  // namespace

void register_bine_trees(Registry& registry) {
  const TreeVariant trees[] = {
      {{"bine-halving", "distance-halving",
        "bine-trees-sc25.txt sections 2.2-2.3 (Listing 1), 4.5, Appendix C",
        "Bine tree, partners differ in the s-i low negabinary digits; reduce keeps rank order "
        "(rotated or folded tree, hand-over to the root) when the operator is non-commutative"},
       TreeKind::bine_halving,
       false},
      // Subtrees of distance-doubling trees are not contiguous (section 3.2.3).
      {{"bine-doubling", "distance-doubling",
        "bine-trees-sc25.txt section 3.2, Appendix A, Appendix C",
        "Bine tree, step j partner at r +- sum_{k<=j} (-2)^k; log2 P steps"},
       TreeKind::bine_doubling,
       true},
  };
  for (const TreeVariant& v : trees) registry.add(tree_variant_info("bine-tree", v));
  registry.add(large_variant_info(
      "bine-tree",
      {{"bine-large", "large-vector", "bine-trees-sc25.txt sections 4.5, 5.1.1, Appendix C",
        "bcast = distance-doubling Bine scatter + distance-halving Bine allgather; reduce = "
        "distance-doubling Bine reduce-scatter + Bine gather with distances halving in time; odd "
        "P folds one rank"},
       LargeFamily::bine}));
  registry.add(torus_info());
}

}  // namespace topocoll::algorithms
