#pragma once
// Torus-optimized Bine trees (bine-trees-sc25.txt Appendix D): the Bine construction applied
// dimension by dimension, so every message travels along a single torus dimension.
#include <string>
#include <vector>

#include "algorithms/trees/tree_shape.hpp"
#include "core/registry.hpp"

namespace topocoll::algorithms {

// The tree rooted at `root` on a torus of `dims` (rank = x0 + d0 * (x1 + d1 * ...)). Steps take
// the dimensions in turn starting at `first_dimension`, each running its own distance-halving
// Bine tree (D.1); a dimension whose tree is exhausted drops out of the rotation. `mirrored`
// runs every dimension in the opposite direction (D.4). Even non-powers of two remove duplicated
// subtrees, odd sizes fold one coordinate (D.3, Appendix C).
[[nodiscard]] Tree torus_bine_tree(const std::vector<int>& dims, int root, int first_dimension,
                                   bool mirrored);

// bcast, reduce, gather and scatter along torus Bine trees; with 2D ports the vector is split in
// 2D parts, each on its own port with its own tree (D.4).
[[nodiscard]] SchedulePtr build_torus_collective(const ScheduleRequest& request,
                                                 const std::string& algorithm);

}  // namespace topocoll::algorithms
