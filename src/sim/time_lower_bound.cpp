#include "sim/time_lower_bound.hpp"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace topocoll::sim {
namespace {

// The smallest latency of a path from `src` to `dst` (0 on the same host), cached per
// destination: one rank has few distinct peers.
class PathLatency {
 public:
  PathLatency(const topo::Topology& topology, const topo::Router& router, int src)
      : topology_(topology), router_(router), src_(src) {}

  double operator()(int dst) {
    if (dst == src_) return 0;
    const auto found = cache_.find(dst);
    if (found != cache_.end()) return found->second;
    router_.route_set(src_, dst, routes_);
    double shortest = routes_.size() == 0 ? 0 : std::numeric_limits<double>::infinity();
    for (int p = 0; p < routes_.size(); ++p) {
      double latency = 0;
      for (const int link : routes_.path(p))
        latency += topology_.links()[static_cast<std::size_t>(link)].latency_s;
      shortest = std::min(shortest, latency);
    }
    cache_.emplace(dst, shortest);
    return shortest;
  }

 private:
  const topo::Topology& topology_;
  const topo::Router& router_;
  int src_;
  topo::RouteSet routes_;
  std::unordered_map<int, double> cache_;
};

}  // namespace

double flow_time_lower_bound(const Schedule& schedule, const topo::Topology& topology,
                             const topo::Router& router, std::span<const int> host_of) {
  constexpr int rank = 0;
  const double alpha = topology.params().alpha_s;
  PathLatency latency(topology, router, host_of[rank]);
  double bound = 0;
  Step step;
  for (int lane = 0; lane < schedule.lane_count(rank); ++lane) {
    double total = 0;
    for (int k = 0; k < schedule.lane_step_count(rank, lane); ++k) {
      step.clear();
      schedule.build_lane_step(rank, lane, k, step);
      // The step ends when every send of it has arrived.
      double wait = 0;
      for (const Operation& op : step.ops) {
        if (op.kind != OpKind::send || op.peer == rank || op.peer < 0 ||
            op.peer >= schedule.ranks())
          continue;
        wait = std::max(wait, latency(host_of[static_cast<std::size_t>(op.peer)]));
      }
      total += alpha + wait;
    }
    bound = std::max(bound, total);
  }
  return bound;
}

}  // namespace topocoll::sim
