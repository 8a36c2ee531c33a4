#include "topology/grid_routing.hpp"

#include <array>

namespace topocoll::topo {

namespace {

constexpr int max_dims = 32;  // a grid of >= 2 per dimension and <= 2^20 hosts has <= 20

struct Move {
  int dim = 0;
  int steps = 0;      // hops along dim
  int direction = 1;  // +1 or -1
  bool tie = false;   // offset n/2 on an even ring: both directions are minimal
};

}  // namespace

int GridRouter::walk(int node, int dim, int direction, int steps, RouteSet& out) const {
  // Tracks the coordinate so that a step costs no division (the flow engine routes millions
  // of messages).
  const int n = grid_.size(dim);
  const int stride = grid_.stride(dim);
  int x = grid_.coordinate(node, dim);
  for (int step = 0; step < steps; ++step) {
    out.links.push_back(grid_.port_link(node, dim, direction));
    if (grid_.kind() == GridTopology::Kind::hypercube) return node ^ stride;
    int next = x + direction;
    next = next == n ? 0 : (next < 0 ? n - 1 : next);
    node += (next - x) * stride;
    x = next;
  }
  return node;
}

void GridRouter::route_set(int src, int dst, RouteSet& out) const {
  out.clear();
  if (src == dst) return;
  std::array<Move, max_dims> moves{};
  int k = 0;
  bool any_tie = false;
  for (int dim = 0; dim < grid_.dimensions(); ++dim) {
    const int from = grid_.coordinate(src, dim);
    const int to = grid_.coordinate(dst, dim);
    if (from == to) continue;
    Move move{dim, to - from, 1, false};
    if (grid_.kind() == GridTopology::Kind::hypercube) {
      move.steps = 1;
    } else if (grid_.kind() == GridTopology::Kind::mesh) {
      move.direction = move.steps > 0 ? 1 : -1;
      move.steps = move.steps > 0 ? move.steps : -move.steps;
    } else {
      const int n = grid_.size(dim);
      const int forward = (move.steps + n) % n;
      move.tie = 2 * forward == n;
      move.direction = 2 * forward <= n ? 1 : -1;
      move.steps = move.direction > 0 ? forward : n - forward;
    }
    any_tie = any_tie || move.tie;
    moves[k++] = move;
  }
  const int rotations = minimal_ ? k : 1;
  const int tie_variants = minimal_ && any_tie ? 2 : 1;
  const double share = 1.0 / (rotations * tie_variants);
  for (int variant = 0; variant < tie_variants; ++variant) {
    for (int rotation = 0; rotation < rotations; ++rotation) {
      int node = src;
      for (int i = 0; i < k; ++i) {
        const Move& move = moves[(rotation + i) % k];
        const int direction = move.tie && variant == 1 ? -1 : move.direction;
        node = walk(node, move.dim, direction, move.steps, out);
      }
      out.close_path(share);
    }
  }
}

}  // namespace topocoll::topo
