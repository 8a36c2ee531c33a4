#include "algorithms/trees/tree_rooted.hpp"

#include <optional>
#include <stdexcept>

#include "core/rank_math.hpp"

namespace topocoll::algorithms {

Tree tree_shape(TreeKind kind, int n) {
  switch (kind) {
    case TreeKind::binomial_halving: return binomial_halving_tree(n);
    case TreeKind::binomial_doubling: return binomial_doubling_tree(n);
    case TreeKind::bine_halving: return bine_halving_tree(n);
    case TreeKind::bine_doubling: return bine_doubling_tree(n);
  }
  throw std::logic_error("unknown tree kind");
}

RootedTree rotated_tree(TreeKind kind, int ranks, int root) {
  return {placed(tree_shape(kind, ranks), root), -1};
}

namespace {

// The rotation of `shape` whose reduction is in node order, if its subtrees are node ranges.
std::optional<Tree> node_ordered_rotation(const Tree& shape) {
  const int first = reduction_order(shape).root_first;
  Tree tree = placed(shape, mod(-first, shape.size()));
  if (!reduction_order(tree).node_ordered) return std::nullopt;
  return tree;
}

}  // namespace

RootedTree rank_ordered_tree(TreeKind kind, int ranks, int root) {
  if (auto tree = node_ordered_rotation(tree_shape(kind, ranks))) return {*std::move(tree), root};
  const int m = static_cast<int>(floor_power(ranks, 2));
  const int extra = ranks - m;
  const auto part = node_ordered_rotation(tree_shape(kind, m));
  if (!part) throw std::logic_error("no rank-ordered tree on a power of two");
  // Participant i stands for ranks 2i and 2i + 1 when i < extra, else for rank i + extra.
  auto rank_of = [&](int i) { return i < extra ? 2 * i : i + extra; };
  Tree tree(ranks, rank_of(part->root()));
  for (int v = 0; v < m; ++v)
    for (const TreeEdge& e : part->children(v)) tree.add_edge(rank_of(v), rank_of(e.child), e.step);
  for (int i = 0; i < extra; ++i) tree.add_edge(2 * i, 2 * i + 1, part->steps());
  tree.finalize();
  return {std::move(tree), root};
}

SchedulePtr build_tree_collective(const ScheduleRequest& request, const std::string& algorithm,
                                  TreeKind kind) {
  ScheduleInfo info;
  info.collective = request.collective;
  info.algorithm = algorithm;
  info.ranks = request.ranks;
  info.blocks = 1;
  info.ports = 1;
  info.root = request.root;
  info.dims = request.dims;
  if (request.collective == Collective::bcast) {
    auto plan = rotated_tree(kind, request.ranks, request.root);
    return std::make_unique<TreeBcast>(info, std::make_shared<Tree>(std::move(plan.tree)));
  }
  auto plan = request.commutative ? rotated_tree(kind, request.ranks, request.root)
                                  : rank_ordered_tree(kind, request.ranks, request.root);
  auto schedule = std::make_unique<TreeReduce>(info, std::make_shared<Tree>(std::move(plan.tree)),
                                               plan.forward_to);
  if (!request.commutative && !schedule->rank_ordered())
    throw std::logic_error(algorithm + ": the rank-ordered tree does not reduce in rank order");
  return schedule;
}

}  // namespace topocoll::algorithms
