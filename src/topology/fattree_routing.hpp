#pragma once
// Up/down routing on fat trees: a message climbs to the lowest level shared by both hosts
// (leaf, aggregation, core) and descends.
//  ecmp (= minimal): evenly over every up-path: one path under the same leaf, one per
//      aggregation switch inside a pod (or per spine on 2 levels), one per (aggregation,
//      core) pair between pods.
//  dor: one path, destination-mod-k: upper switch (dst mod AGGS), core (dst / AGGS mod
//      CORES_PER_AGG), the static routing of InfiniBand-style fabrics.
#include "topology/fattree.hpp"
#include "topology/routing.hpp"

namespace topocoll::topo {

class FatTreeRouter : public Router {
 public:
  FatTreeRouter(const FatTreeTopology& topology, std::string name, bool all_paths)
      : tree_(topology), name_(std::move(name)), all_paths_(all_paths) {}
  void route_set(int src, int dst, RouteSet& out) const override;
  [[nodiscard]] std::string name() const override { return name_; }

 private:
  const FatTreeTopology& tree_;
  std::string name_;
  bool all_paths_;
};

}  // namespace topocoll::topo
