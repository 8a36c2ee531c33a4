#pragma once
// Routing on a HyperX: a message crosses one link per differing dimension.
//  dor:     differing dimensions in increasing order.
//  minimal: evenly over the k cyclic rotations of that order (k differing dimensions), as on
//           a torus; every path has k links.
#include "topology/hyperx.hpp"
#include "topology/routing.hpp"

namespace topocoll::topo {

class HyperXRouter : public Router {
 public:
  HyperXRouter(const HyperXTopology& topology, bool minimal)
      : hyperx_(topology), minimal_(minimal) {}
  void route_set(int src, int dst, RouteSet& out) const override;
  [[nodiscard]] std::string name() const override { return minimal_ ? "minimal" : "dor"; }
  // Paths depend only on which dimensions differ and on the target coordinates, which a
  // translation moves with the hosts.
  [[nodiscard]] bool commutes_with_translations() const override { return true; }

 private:
  const HyperXTopology& hyperx_;
  bool minimal_;
};

}  // namespace topocoll::topo
