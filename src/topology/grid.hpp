#pragma once
// Direct networks on a grid of hosts: ring and torus (wrap-around, a cable to each neighbour
// in every dimension), mesh (no wrap-around) and hypercube (one cable per dimension). Node
// ids are coordinates in mixed radix, dimension 0 varying fastest, as the torus algorithms
// number ranks.
#include <string>
#include <vector>

#include "topology/topology.hpp"

namespace topocoll::topo {

class GridTopology : public Topology {
 public:
  enum class Kind { torus, mesh, hypercube };

  // dims: sizes, each >= 2 (hypercube: all 2). A torus dimension of size 2 still has two
  // cables per node (the + and - neighbours coincide), so every torus node has 2D ports.
  GridTopology(std::string spec, const NetworkParams& params, std::vector<int> dims, Kind kind);

  [[nodiscard]] Kind kind() const { return kind_; }
  [[nodiscard]] int dimensions() const { return static_cast<int>(grid_dims().size()); }
  [[nodiscard]] int size(int dim) const { return grid_dims()[dim]; }
  [[nodiscard]] int stride(int dim) const { return strides_[dim]; }
  [[nodiscard]] int coordinate(int node, int dim) const {
    return (node / strides_[dim]) % grid_dims()[dim];
  }
  // The link leaving `node` along `dim` towards +1 or -1 (ignored on a hypercube); -1 at a
  // mesh boundary. Tori and hypercubes number their links node-major, port-minor, so the id
  // is computed without touching memory (routing is on the flow engine's hot path).
  [[nodiscard]] int port_link(int node, int dim, int direction) const {
    const int index = node * ports_per_node_ + port(dim, direction);
    return kind_ == Kind::mesh ? port_links_[index] : index;
  }
  // The host one step from `node` along `dim` (torus/mesh: towards `direction`, hypercube:
  // across); the caller knows the step exists.
  [[nodiscard]] int neighbour(int node, int dim, int direction) const {
    if (kind_ == Kind::hypercube) return node ^ strides_[dim];
    const int x = coordinate(node, dim);
    const int n = grid_dims()[dim];
    const int next = x + direction == n ? 0 : (x + direction < 0 ? n - 1 : x + direction);
    return node + (next - x) * strides_[dim];
  }

  // Tori and hypercubes: a translation keeps every port (node-major, port-minor numbering).
  [[nodiscard]] bool translatable() const override { return kind_ != Kind::mesh; }
  [[nodiscard]] int translated_link(int link, std::span<const int> offset) const override {
    return translated_node(link / ports_per_node_, offset) * ports_per_node_ +
           link % ports_per_node_;
  }

  // Hosts and links a grid of these dims would have, for the size check before building.
  [[nodiscard]] static long long link_count(const std::vector<int>& dims, Kind kind);

 private:
  [[nodiscard]] int port(int dim, int direction) const {
    return kind_ == Kind::hypercube ? dim : 2 * dim + (direction > 0 ? 0 : 1);
  }

  Kind kind_;
  std::vector<int> strides_;
  int ports_per_node_ = 0;
  std::vector<int> port_links_;  // mesh only: node x port -> link id, -1 where none
};

}  // namespace topocoll::topo
