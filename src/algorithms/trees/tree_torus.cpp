#include "algorithms/trees/tree_torus.hpp"

#include <memory>
#include <stdexcept>

#include "algorithms/common/compose.hpp"
#include "algorithms/trees/tree_schedules.hpp"
#include "core/rank_math.hpp"

namespace topocoll::algorithms {
namespace {

// Global step of each (dimension, local step): dimensions in turn from `first`, skipping those
// whose tree has no steps left.
std::vector<std::vector<int>> interleaved_steps(const std::vector<Tree>& trees, int first) {
  const int d = static_cast<int>(trees.size());
  std::vector<std::vector<int>> global(static_cast<std::size_t>(d));
  int next = 0;
  bool any = true;
  for (int round = 0; any; ++round) {
    any = false;
    for (int q = 0; q < d; ++q) {
      const int i = (first + q) % d;
      if (round >= trees[i].steps()) continue;
      global[i].push_back(next++);
      any = true;
    }
  }
  return global;
}

}  // namespace

LaneDirections lane_directions(int dimensions, int lane) {
  // D.4 (Fig. 18): the root's directions are the cycle -x0, -x1, ..., +x0, +x1, ... (E-N-W-S on a
  // 2D torus); lane j starts j places later in it. Its first D steps take dimensions j, j+1, ...
  // (mod D); those the rotation wrapped past run in the opposite direction.
  LaneDirections out;
  const int shift = lane % dimensions;
  const bool second_half = lane >= dimensions;
  out.first_dimension = shift;
  out.mirrored.resize(static_cast<std::size_t>(dimensions));
  for (int i = 0; i < dimensions; ++i) out.mirrored[i] = (i < shift) != second_half;
  return out;
}

Tree torus_bine_tree(const std::vector<int>& dims, int root, const LaneDirections& lane) {
  const int d = static_cast<int>(dims.size());
  std::vector<Tree> trees;
  trees.reserve(dims.size());
  for (int size : dims) trees.push_back(bine_halving_tree(size));
  const auto global = interleaved_steps(trees, lane.first_dimension);

  int ranks = 1;
  for (int size : dims) ranks *= size;
  std::vector<int> root_coord(dims.size()), stride(dims.size());
  for (int i = 0, rest = root, s = 1; i < d; ++i) {
    root_coord[i] = rest % dims[i];
    rest /= dims[i];
    stride[i] = s;
    s *= dims[i];
  }
  // A node joins when the last of its per-dimension paths delivers; its parent differs from it
  // in that dimension only (D.1: partners are chosen along single dimensions).
  Tree tree(ranks, root);
  for (int x = 0; x < ranks; ++x) {
    int join = -1, parent = -1;
    for (int i = 0, rest = x; i < d; ++i) {
      const int coord = rest % dims[i];
      rest /= dims[i];
      const int sign = lane.mirrored[i] ? -1 : 1;
      const int c = mod(sign * (coord - root_coord[i]), dims[i]);
      if (c == 0) continue;
      const int g = global[i][trees[i].recv_step(c)];
      if (g <= join) continue;
      join = g;
      const int parent_coord = mod(root_coord[i] + sign * trees[i].parent(c), dims[i]);
      parent = x + (parent_coord - coord) * stride[i];
    }
    if (x != root) tree.add_edge(parent, x, join);
  }
  tree.finalize();
  return tree;
}

namespace {

ScheduleInfo lane_info(const ScheduleRequest& request, const std::string& algorithm) {
  ScheduleInfo info;
  info.collective = request.collective;
  info.algorithm = algorithm;
  info.ranks = request.ranks;
  info.ports = 1;
  info.root = request.root;
  info.dims = request.dims;
  const bool chunked = is_chunked_per_rank(request.collective);
  info.blocks = chunked ? request.ranks : 1;
  return info;
}

SchedulePtr lane_schedule(const ScheduleRequest& request, const std::string& algorithm,
                          const LaneDirections& lane) {
  auto tree = std::make_shared<Tree>(torus_bine_tree(request.dims, request.root, lane));
  const ScheduleInfo info = lane_info(request, algorithm);
  std::vector<int> own_chunk(static_cast<std::size_t>(request.ranks));
  for (int r = 0; r < request.ranks; ++r) own_chunk[r] = r;
  const Participants everyone = Participants::identity(request.ranks);
  switch (request.collective) {
    case Collective::bcast: return std::make_unique<TreeBcast>(info, tree);
    case Collective::reduce: return std::make_unique<TreeReduce>(info, tree, -1);
    case Collective::scatter: return std::make_unique<TreeScatter>(info, tree, own_chunk, everyone);
    case Collective::gather: return std::make_unique<TreeGather>(info, tree, own_chunk, everyone);
    default: break;
  }
  // The registry offers bine-torus for these four collectives only.
  throw std::logic_error(algorithm + " built for a collective it does not register");
}

}  // namespace

SchedulePtr build_torus_collective(const ScheduleRequest& request, const std::string& algorithm) {
  const int d = static_cast<int>(request.dims.size());
  if (request.ports == 1) return lane_schedule(request, algorithm, lane_directions(d, 0));
  // D.4: 2D lanes, each a rotation of the same direction cycle, so in every step the lanes
  // leave the root in different directions.
  std::vector<SchedulePtr> lanes;
  for (int j = 0; j < 2 * d; ++j)
    lanes.push_back(lane_schedule(request, algorithm, lane_directions(d, j)));
  const ScheduleInfo lane = lanes.front()->info();
  // Rooted vectors: lane j owns block j. Chunked collectives split every rank's chunk.
  const int chunk = is_chunked_per_rank(request.collective) ? 1 : lane.blocks;
  ScheduleInfo info = lanes_info(lane, 2 * d);
  return std::make_unique<LaneSet>(info, std::move(lanes), LaneLayout{2 * d, chunk});
}

}  // namespace topocoll::algorithms
