#pragma once
// Torus-optimized Bine trees (bine-trees-sc25.txt Appendix D): the Bine construction applied
// dimension by dimension, so every message travels along a single torus dimension.
#include <string>
#include <vector>

#include "algorithms/trees/tree_shape.hpp"
#include "core/registry.hpp"

namespace topocoll::algorithms {

// The direction order of one lane (D.4): the dimension of its first step, and per dimension
// whether its Bine tree runs mirrored (the root's first partner in that dimension on the other
// side).
struct LaneDirections {
  int first_dimension = 0;
  std::vector<bool> mirrored;
};

// Lane `lane` of 2D on a D-dimensional torus: the root's direction cycle -x0, -x1, ..., +x0,
// +x1, ... (E-N-W-S in 2D) rotated by `lane` places (E-N-W-S, N-W-S-E, W-S-E-N, S-E-N-W).
[[nodiscard]] LaneDirections lane_directions(int dimensions, int lane);

// The tree rooted at `root` on a torus of `dims` (rank = x0 + d0 * (x1 + d1 * ...)). Steps take
// the dimensions in turn starting at `lane.first_dimension`, each running its own
// distance-halving Bine tree (D.1), mirrored where `lane.mirrored` says; a dimension whose tree
// is exhausted drops out of the rotation. Even non-powers of two remove duplicated subtrees, odd
// sizes fold one coordinate (D.3, Appendix C).
[[nodiscard]] Tree torus_bine_tree(const std::vector<int>& dims, int root,
                                   const LaneDirections& lane);

// bcast, reduce, gather and scatter along torus Bine trees; with 2D ports the vector is split in
// 2D parts, each on its own port with its own tree (D.4).
[[nodiscard]] SchedulePtr build_torus_collective(const ScheduleRequest& request,
                                                 const std::string& algorithm);

}  // namespace topocoll::algorithms
