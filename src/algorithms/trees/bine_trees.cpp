// Bine-tree broadcast and reduce (bine-trees-sc25.txt): distance-halving trees (sections
// 2.2-2.3, Listing 1) and distance-doubling trees (section 3.2, Appendix A), rotated to any
// root; even non-powers of two drop the subtree reached later at a rank reached twice
// (Appendix C), odd P runs the tree on P - 1 ranks and serves the last one in one more step.
#include "algorithms/families.hpp"
#include "algorithms/trees/tree_large.hpp"
#include "algorithms/trees/tree_rooted.hpp"
#include "algorithms/trees/tree_torus.hpp"

namespace topocoll::algorithms {
namespace {

AlgorithmInfo bine_entry(const std::string& name, const std::string& variant, TreeKind kind) {
  AlgorithmInfo info;
  info.name = name;
  info.family = "bine-tree";
  info.variant = variant;
  info.collectives = {Collective::bcast, Collective::reduce};
  info.build = [name, kind](const ScheduleRequest& request) {
    return build_tree_collective(request, name, kind);
  };
  return info;
}

}  // namespace

void register_bine_trees(Registry& registry) {
  AlgorithmInfo halving = bine_entry("bine-halving", "distance-halving", TreeKind::bine_halving);
  halving.paper = "bine-trees-sc25.txt sections 2.2-2.3 (Listing 1), 4.5, Appendix C";
  halving.summary =
      "Bine tree, partners differ in the s-i low negabinary digits; reduce keeps rank order "
      "(rotated or folded tree, hand-over to the root) when the operator is non-commutative";
  registry.add(std::move(halving));

  AlgorithmInfo doubling =
      bine_entry("bine-doubling", "distance-doubling", TreeKind::bine_doubling);
  doubling.paper = "bine-trees-sc25.txt section 3.2, Appendix A, Appendix C";
  doubling.summary = "Bine tree, step j partner at r +- sum_{k<=j} (-2)^k; log2 P steps";
  // Subtrees of distance-doubling trees are not contiguous (section 3.2.3).
  doubling.requirements.commutative_op = true;
  registry.add(std::move(doubling));
  AlgorithmInfo large;
  large.name = "bine-large";
  large.family = "bine-tree";
  large.variant = "large-vector";
  large.paper = "bine-trees-sc25.txt sections 4.5, 5.1.1, Appendix C";
  large.summary =
      "bcast = distance-doubling Bine scatter + distance-halving Bine allgather; reduce = "
      "distance-doubling Bine reduce-scatter + Bine gather with distances halving in time; odd P "
      "folds one rank";
  large.collectives = {Collective::bcast, Collective::reduce};
  // The reduce-scatter butterfly combines partial results in the order its pairs meet.
  large.requirements.commutative_op = true;
  large.build = [](const ScheduleRequest& request) {
    return build_large_collective(request, "bine-large", LargeFamily::bine);
  };
  registry.add(std::move(large));

  AlgorithmInfo torus;
  torus.name = "bine-torus";
  torus.family = "bine-tree";
  torus.variant = "torus-optimized";
  torus.paper = "bine-trees-sc25.txt Appendix D (D.1-D.4), Appendix C";
  torus.summary =
      "Bine trees dimension by dimension on a D-dim torus; ports=2D splits the vector in 2D "
      "lanes with rotated start dimensions, half of them mirrored";
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
  registry.add(std::move(torus));
}

}  // namespace topocoll::algorithms
