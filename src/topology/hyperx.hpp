#pragma once
// HyperX: hosts on a grid (dimension 0 varying fastest), each linked by a cable to every other
// host that differs from it in exactly one coordinate (its "row" in that dimension), so a
// message crosses one link per differing dimension.
#include <string>
#include <vector>

#include "topology/topology.hpp"

namespace topocoll::topo {

class HyperXTopology : public Topology {
 public:
  HyperXTopology(std::string spec, const NetworkParams& params, std::vector<int> dims);

  [[nodiscard]] int dimensions() const { return static_cast<int>(grid_dims().size()); }
  [[nodiscard]] int coordinate(int node, int dim) const {
    return (node / strides_[dim]) % grid_dims()[dim];
  }
  // The link from `node` to the host of its row in `dim` at coordinate `to` (!= its own).
  // Links are numbered node-major, port-minor, so the id is computed, not looked up.
  [[nodiscard]] int row_link(int node, int dim, int to) const {
    const int own = coordinate(node, dim);
    return node * ports_per_node_ + port_offset_[dim] + (to < own ? to : to - 1);
  }
  [[nodiscard]] int row_peer(int node, int dim, int to) const {
    return node + (to - coordinate(node, dim)) * strides_[dim];
  }

  // A translation moves a link's source and its target coordinate in the link's dimension.
  [[nodiscard]] bool translatable() const override { return true; }
  [[nodiscard]] int translated_link(int link, std::span<const int> offset) const override;

  [[nodiscard]] static long long link_count(const std::vector<int>& dims);
  // Two ports per dimension (one per direction, as on a torus of the same shape), not one per
  // cable: HyperX as a HammingMesh of 1x1 boards (swing-nsdi24.txt 5.4.2), whose hosts have
  // 2D ports. A dimension of size 2 has one cable.
  [[nodiscard]] double host_injection_bandwidth(int host) const override;

 private:
  std::vector<int> strides_;
  std::vector<int> port_offset_;  // first port of each dimension
  int ports_per_node_ = 0;
};

}  // namespace topocoll::topo
