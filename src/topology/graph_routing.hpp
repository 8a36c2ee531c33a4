#pragma once
// Routing on any graph (graph:FILE) by hop count.
//  minimal: evenly over the first 16 shortest paths in depth-first order, taking each node's
//           out-links in increasing link id (all of them when there are fewer).
//  dor:     the first of those paths.
// The hop distances to a destination are computed by a reverse breadth-first search the first
// time a message goes there, and kept (one int per node per destination host).
#include <memory>
#include <mutex>
#include <vector>

#include "topology/routing.hpp"

namespace topocoll::topo {

class GraphRouter : public Router {
 public:
  static constexpr int max_paths = 16;

  GraphRouter(const Topology& topology, bool minimal);
  void route_set(int src, int dst, RouteSet& out) const override;
  [[nodiscard]] std::string name() const override { return minimal_ ? "minimal" : "dor"; }

 private:
  const std::vector<int>& distances_to(int dst) const;

  const Topology& topology_;
  bool minimal_;
  std::vector<std::vector<int>> in_links_;
  mutable std::mutex mutex_;
  mutable std::vector<std::unique_ptr<std::vector<int>>> distance_to_;  // per host
};

}  // namespace topocoll::topo
