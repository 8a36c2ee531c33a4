#pragma once
// Which tree serves a rooted request: the shape of each family, rotated to the root (section
// 2.2: "subtract t from all rank identifiers modulo p"), or, for a reduction with a
// non-commutative operator, a placement that combines in rank order.
#include <string>

#include "algorithms/trees/tree_schedules.hpp"
#include "core/registry.hpp"

namespace topocoll::algorithms {

enum class TreeKind { binomial_halving, binomial_doubling, bine_halving, bine_doubling };

[[nodiscard]] Tree tree_shape(TreeKind kind, int n);

struct RootedTree {
  Tree tree;
  int forward_to = -1;  // reduce only: the requested root, when the tree's root differs
};

// The family's tree rooted at `root`.
[[nodiscard]] RootedTree rotated_tree(TreeKind kind, int ranks, int root);

// A tree whose reduction yields x_0 ∘ x_1 ∘ ... ∘ x_{P-1}: the shape rotated so that its root's
// range starts at rank 0 when every subtree is a range of ranks; otherwise the shape on the
// largest power of two P' <= P with ranks 2i + 1 < 2(P - P') folded into 2i first (Appendix C,
// "the standard techniques"). The result is handed to `root` in one more step if needed (as
// MPICH does for non-commutative operators).
[[nodiscard]] RootedTree rank_ordered_tree(TreeKind kind, int ranks, int root);

// The small-vector bcast or reduce (B = 1) along the family's tree (section 4.5).
[[nodiscard]] SchedulePtr build_tree_collective(const ScheduleRequest& request,
                                                const std::string& algorithm, TreeKind kind);

}  // namespace topocoll::algorithms
