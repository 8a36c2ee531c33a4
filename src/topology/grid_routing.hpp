#pragma once
// Routing on rings, tori, meshes and hypercubes (docs/simulator.md "Routing").
//  dor:     one path, dimensions in increasing order; a tie on an even ring (offset n/2) goes +.
//  minimal: the message is split evenly over the k cyclic rotations of the increasing order of
//           its k differing dimensions (for k <= 2 these are all the dimension orders); when some
//           dimensions are tied, each rotation is taken once with all of them + and once with all
//           of them -. A dimension's segment depends only on its direction and on which
//           dimensions were corrected before it, so coupling the tied directions gives every link
//           the same load as splitting each tie independently, with 2 paths instead of 2^t.
#include "topology/grid.hpp"
#include "topology/routing.hpp"

namespace topocoll::topo {

class GridRouter : public Router {
 public:
  GridRouter(const GridTopology& topology, bool minimal) : grid_(topology), minimal_(minimal) {}
  void route_set(int src, int dst, RouteSet& out) const override;
  [[nodiscard]] std::string name() const override { return minimal_ ? "minimal" : "dor"; }
  // Paths depend only on the offsets between the hosts (ties go + on even rings), and a
  // torus or hypercube looks the same from every host; a mesh has edges.
  [[nodiscard]] bool commutes_with_translations() const override {
    return grid_.kind() != GridTopology::Kind::mesh;
  }

 private:
  // Appends `steps` links from `node` along `dim`; returns the node reached.
  int walk(int node, int dim, int direction, int steps, RouteSet& out) const;

  const GridTopology& grid_;
  bool minimal_;
};

}  // namespace topocoll::topo
