#pragma once
// Routing on Dragonfly and Dragonfly+ networks. Messages inside a group use the group's own
// network: one local hop between routers (Dragonfly), leaf -> spine -> leaf (Dragonfly+, over
// every spine for minimal, spine dst mod SPINES for dor). Between groups:
//  minimal: evenly over the L cables joining the two groups, each path local -> global ->
//           local (a local hop is skipped where the host's router is the cable's end). Every
//           path crosses exactly one global cable (minimal in global hops; on a Dragonfly a
//           path may be up to two links longer than the shortest one).
//  valiant: evenly over every intermediate group (all groups but the two ends): minimal to
//           the intermediate group, then minimal to the destination, each leg on cable
//           (src + dst) mod L; inside the intermediate group one local hop (Dragonfly) or
//           spine -> leaf ((src + dst) mod LEAVES) -> spine (Dragonfly+). Messages inside a
//           group, and networks of two groups, route as minimal.
//  dor:     one minimal path, on cable (src + dst) mod L.
#include "topology/dragonfly.hpp"
#include "topology/routing.hpp"

namespace topocoll::topo {

class DragonflyRouter : public Router {
 public:
  enum class Mode { minimal, valiant, single };
  DragonflyRouter(const DragonflyTopology& topology, Mode mode, std::string name)
      : fly_(topology), mode_(mode), name_(std::move(name)) {}
  void route_set(int src, int dst, RouteSet& out) const override;
  [[nodiscard]] std::string name() const override { return name_; }

 private:
  void within_group(int src, int dst, RouteSet& out) const;
  // Router/leaf -> upper router (Dragonfly: a local hop unless equal; Dragonfly+: leaf->spine).
  void to_upper(int group, int router, int upper, RouteSet& out) const;
  void from_upper(int group, int upper, int router, RouteSet& out) const;
  // Between two upper routers of an intermediate group.
  void across(int group, int from, int to, int leaf, RouteSet& out) const;

  const DragonflyTopology& fly_;
  Mode mode_;
  std::string name_;
};

}  // namespace topocoll::topo
