#pragma once
// The binomial and Bine tree families register the same variants (a distance-halving and a
// distance-doubling tree for small vectors, a scatter/allgather or reduce-scatter/gather pair
// for large ones); only these data differ.
#include "algorithms/families.hpp"
#include "algorithms/trees/tree_large.hpp"
#include "algorithms/trees/tree_rooted.hpp"
#include "core/registry.hpp"

namespace topocoll::algorithms {

struct TreeVariant {
  Description text;
  TreeKind kind;
  // Subtrees that interleave ranks cannot keep the operands of a reduction in rank order.
  bool commutative_only;
};

struct LargeVariant {
  Description text;
  LargeFamily family;
};

// bcast and reduce along the variant's tree, rotated to the root.
[[nodiscard]] AlgorithmInfo tree_variant_info(const char* family, const TreeVariant& v);
// bcast and reduce as two phases; its reduce-scatter combines partial results in the order its
// pairs meet, so the operator must commute.
[[nodiscard]] AlgorithmInfo large_variant_info(const char* family, const LargeVariant& v);

}  // namespace topocoll::algorithms
