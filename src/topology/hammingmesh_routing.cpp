#include "topology/hammingmesh_routing.hpp"

#include <array>
#include <cstdlib>

namespace topocoll::topo {

int HammingMeshRouter::segments(int dim, int from, int to, Segment* out) const {
  const int size = mesh_.board_size(dim);
  const int from_board = from / size;
  const int to_board = to / size;
  const int from_local = from % size;
  const int to_local = to % size;
  std::array<std::pair<int, Segment>, 5> candidates{};
  int count = 0;
  if (from_board == to_board) candidates[count++] = {std::abs(to_local - from_local), Segment{}};
  for (int exit = 0; exit < 2; ++exit) {
    for (int entry = 0; entry < 2; ++entry) {
      const int exit_local = exit == 0 ? 0 : size - 1;
      const int entry_local = entry == 0 ? 0 : size - 1;
      const int cost = std::abs(exit_local - from_local) + 2 + std::abs(to_local - entry_local);
      candidates[count++] = {cost, Segment{exit, entry}};
    }
  }
  int best = candidates[0].first;
  for (int i = 1; i < count; ++i) best = std::min(best, candidates[i].first);
  int kept = 0;
  for (int i = 0; i < count; ++i) {
    if (candidates[i].first == best) out[kept++] = candidates[i].second;
  }
  return kept;
}

int HammingMeshRouter::mesh_walk(int node, int dim, int from, int to, RouteSet& out) const {
  const int direction = to > from ? 1 : -1;
  for (int x = from; x != to; x += direction) {
    const int link = mesh_.mesh_link(node, dim, direction);
    out.links.push_back(link);
    node = mesh_.links()[link].to;
  }
  return node;
}

int HammingMeshRouter::walk(int node, int dim, int to, const Segment& segment,
                            RouteSet& out) const {
  const int from = mesh_.coordinate(node, dim);
  if (segment.exit < 0) return mesh_walk(node, dim, from, to, out);
  const int size = mesh_.board_size(dim);
  const int exit_at = from / size * size + (segment.exit == 0 ? 0 : size - 1);
  const int entry_at = to / size * size + (segment.entry == 0 ? 0 : size - 1);
  node = mesh_walk(node, dim, from, exit_at, out);
  out.links.push_back(mesh_.switch_link(node, dim, segment.exit));
  const int entry_node = dim == 0 ? mesh_.node_at(entry_at, mesh_.coordinate(node, 1))
                                  : mesh_.node_at(mesh_.coordinate(node, 0), entry_at);
  out.links.push_back(mesh_.switch_link(entry_node, dim, segment.entry) + 1);
  return mesh_walk(entry_node, dim, entry_at, to, out);
}

void HammingMeshRouter::route_set(int src, int dst, RouteSet& out) const {
  out.clear();
  if (src == dst) return;
  std::array<std::array<Segment, 5>, 2> options{};
  std::array<int, 2> option_count{};
  std::array<int, 2> dims{};
  int k = 0;
  for (int dim = 0; dim < 2; ++dim) {
    const int from = mesh_.coordinate(src, dim);
    const int to = mesh_.coordinate(dst, dim);
    if (from == to) continue;
    option_count[k] = segments(dim, from, to, options[k].data());
    if (!minimal_) option_count[k] = 1;
    dims[k++] = dim;
  }
  const int orders = minimal_ ? k : 1;
  const int second = k == 2 ? option_count[1] : 1;
  const double share = 1.0 / (orders * option_count[0] * second);
  for (int order = 0; order < orders; ++order) {
    for (int a = 0; a < option_count[0]; ++a) {
      for (int b = 0; b < second; ++b) {
        const std::array<int, 2> choice{a, b};
        int node = src;
        for (int i = 0; i < k; ++i) {
          const int slot = (order + i) % k;
          node = walk(node, dims[slot], mesh_.coordinate(dst, dims[slot]),
                      options[slot][choice[slot]], out);
        }
        out.close_path(share);
      }
    }
  }
}

}  // namespace topocoll::topo
