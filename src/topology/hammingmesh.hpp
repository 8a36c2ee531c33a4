#pragma once
// HammingMesh (swing-nsdi24.txt section 5.4.1): X x Y boards, each an A x B 2D mesh, laid out
// as a (A*X) x (B*Y) grid of hosts (dimension 0 fastest in the host id). The hosts of a grid
// row that sit on a board's west or east edge are cabled to that row's fat tree, and those of
// a grid column on a board's north or south edge to that column's fat tree. Each row or column
// fat tree is modelled as one non-blocking switch (2X or 2Y ports: full bisection, two links
// between any two of its hosts). A board one host wide (A = 1 or B = 1) has both edge cables on
// the same host. Hx2Mesh is hammingmesh:2x2:XxY, Hx4Mesh hammingmesh:4x4:XxY.
// Node ids: hosts, then one switch per grid row, then one per grid column.
#include <string>
#include <vector>

#include "topology/topology.hpp"

namespace topocoll::topo {

class HammingMeshTopology : public Topology {
 public:
  // board: {A, B}; boards: {X, Y}.
  HammingMeshTopology(std::string spec, const NetworkParams& params, std::vector<int> board,
                      std::vector<int> boards);

  [[nodiscard]] int board_size(int dim) const { return board_[dim]; }
  [[nodiscard]] int width() const { return grid_dims()[0]; }
  [[nodiscard]] int coordinate(int node, int dim) const {
    return dim == 0 ? node % width() : node / width();
  }
  [[nodiscard]] int node_at(int x, int y) const { return x + width() * y; }
  // On-board link from `node` along `dim` towards +1/-1; -1 at a board edge.
  [[nodiscard]] int mesh_link(int node, int dim, int direction) const {
    return ports_[static_cast<std::size_t>(node) * 8 + 2 * dim + (direction > 0 ? 0 : 1)];
  }
  // Link from an edge host to the fat tree of its row (dim 0) or column (dim 1); side 0 is the
  // west/north edge, side 1 the east/south edge; the switch's link back is the id + 1.
  [[nodiscard]] int switch_link(int node, int dim, int side) const {
    return ports_[static_cast<std::size_t>(node) * 8 + 4 + 2 * dim + side];
  }

  // Moving every host by whole boards keeps each host's place on its board, so every link maps
  // to the link of the same port (and direction) of the moved host; row and column switches
  // move with their rows and columns.
  [[nodiscard]] bool translatable() const override { return true; }
  [[nodiscard]] int translation_step(int dim) const override { return board_[dim]; }
  [[nodiscard]] int translated_link(int link, std::span<const int> offset) const override;
  [[nodiscard]] int link_host(int link) const override {
    return link_port_[static_cast<std::size_t>(link)].host;
  }

  [[nodiscard]] static long long link_count(const std::vector<int>& board,
                                            const std::vector<int>& boards);

 private:
  std::vector<int> board_;
  // The host port a link belongs to: the link leaves `host` by `port` (towards_host false)
  // or, for a fat-tree cable, comes back to it from the switch (towards_host true).
  struct LinkPort {
    int host = 0;
    int port = 0;
    bool towards_host = false;
  };
  void record_port(int host, int port, int link);

  std::vector<int> ports_;           // per host: 4 mesh ports, then 4 fat-tree ports; -1 where none
  std::vector<LinkPort> link_port_;  // per link
};

}  // namespace topocoll::topo
