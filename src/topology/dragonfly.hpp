#pragma once
// Dragonfly (groups of all-to-all connected routers, hosts on every router) and Dragonfly+
// (groups that are two-level leaf-spine fat trees, hosts on the leaves), with global cables
// between the groups on the routers (Dragonfly) or the spines (Dragonfly+).
//
// Global wiring: an upper router (router or spine) has GLOBAL ports; a group has
// U x GLOBAL of them (U upper routers per group). Every pair of groups is joined by
// L = floor(U x GLOBAL / (GROUPS - 1)) cables; the rest of the ports stay unused. Cable c
// (0 <= c < L) from group i to group j uses global port c x (GROUPS - 1) + (j < i ? j : j - 1)
// of group i, i.e. upper router port / GLOBAL, so consecutive groups use consecutive ports and
// a pair's L cables land on routers GROUPS - 1 ports apart.
//
// Node ids: hosts (group-major, then router or leaf, then host), then per group its routers
// (Dragonfly) or its leaves and then its spines (Dragonfly+).
#include <string>
#include <vector>

#include "topology/topology.hpp"

namespace topocoll::topo {

struct DragonflyShape {
  bool plus = false;  // Dragonfly+: leaf-spine groups
  int groups = 0;
  int routers = 0;            // Dragonfly: routers per group; Dragonfly+: leaves per group
  int hosts_per_router = 0;   // hosts per router (Dragonfly) or per leaf (Dragonfly+)
  int spines = 0;             // Dragonfly+ only: spines per group
  int global_per_router = 0;  // global ports per router (Dragonfly) or per spine (Dragonfly+)

  [[nodiscard]] int uppers() const { return plus ? spines : routers; }  // per group
  [[nodiscard]] long long cables_per_pair() const;
  [[nodiscard]] long long host_count() const;
  [[nodiscard]] long long link_count() const;
};

class DragonflyTopology : public Topology {
 public:
  DragonflyTopology(std::string spec, const NetworkParams& params, const DragonflyShape& shape);

  [[nodiscard]] const DragonflyShape& shape() const { return shape_; }
  [[nodiscard]] int cables_per_pair() const { return cables_; }
  [[nodiscard]] int hosts_per_group() const { return shape_.routers * shape_.hosts_per_router; }
  [[nodiscard]] int group_of(int host) const { return host / hosts_per_group(); }
  // Router (Dragonfly) or leaf (Dragonfly+) of a host, as an index within its group.
  [[nodiscard]] int router_of(int host) const {
    return (host % hosts_per_group()) / shape_.hosts_per_router;
  }
  // Upper router (index within group `from`) holding cable c towards group `to`.
  [[nodiscard]] int gateway(int from, int to, int c) const {
    return (c * (shape_.groups - 1) + (to < from ? to : to - 1)) / shape_.global_per_router;
  }
  // Link ids. host_up(h) is host -> router/leaf; host_up(h) + 1 the way back.
  [[nodiscard]] int host_up(int host) const { return host_cable_[host]; }
  // Dragonfly: router r -> router s of `group`. Dragonfly+: leaf r -> spine s.
  [[nodiscard]] int local(int group, int r, int s) const {
    return local_link_[(static_cast<std::size_t>(group) * shape_.routers + r) * local_width_ + s];
  }
  // Dragonfly+: spine s -> leaf r of `group`.
  [[nodiscard]] int spine_down(int group, int s, int r) const { return local(group, r, s) + 1; }
  // Cable c from group `from` to group `to`, in that direction.
  [[nodiscard]] int global(int from, int to, int c) const {
    const int index = to < from ? to : to - 1;
    return global_link_[(static_cast<std::size_t>(from) * (shape_.groups - 1) + index) * cables_ +
                        c];
  }

 private:
  void wire_groups(double bandwidth, double latency);
  void wire_globals(double bandwidth, double latency);

  DragonflyShape shape_;
  int cables_ = 0;
  int local_width_ = 0;
  int first_router_ = 0;
  std::vector<int> host_cable_;
  std::vector<int> local_link_;
  std::vector<int> global_link_;
};

}  // namespace topocoll::topo
