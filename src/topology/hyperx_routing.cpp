#include "topology/hyperx_routing.hpp"

#include <array>

namespace topocoll::topo {

void HyperXRouter::route_set(int src, int dst, RouteSet& out) const {
  out.clear();
  if (src == dst) return;
  std::array<int, 32> differing{};  // <= 20 dimensions of size >= 2 within 2^20 hosts
  int k = 0;
  for (int dim = 0; dim < hyperx_.dimensions(); ++dim) {
    if (hyperx_.coordinate(src, dim) != hyperx_.coordinate(dst, dim)) differing[k++] = dim;
  }
  const int rotations = minimal_ ? k : 1;
  for (int rotation = 0; rotation < rotations; ++rotation) {
    int node = src;
    for (int i = 0; i < k; ++i) {
      const int dim = differing[(rotation + i) % k];
      const int to = hyperx_.coordinate(dst, dim);
      out.links.push_back(hyperx_.row_link(node, dim, to));
      node = hyperx_.row_peer(node, dim, to);
    }
    out.close_path(1.0 / rotations);
  }
}

}  // namespace topocoll::topo
