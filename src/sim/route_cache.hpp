#pragma once
// Routes between hosts as the engines need them: per path its links, its share of the
// message, the latency paid before the bandwidth phase (sum of Link::latency_s, docs/design.md,
// "4.2 Latency convention") and its bottleneck bandwidth. Routes are computed once per (source,
// destination) pair and cached; the cache is emptied when it outgrows its budget, so memory
// stays bounded on all-to-all patterns.
#include <cstdint>
#include <span>
#include <vector>

#include "sim/flat_map.hpp"
#include "topology/routing.hpp"
#include "topology/topology.hpp"

namespace topocoll::sim {

struct PathView {
  const int* links = nullptr;
  int hops = 0;
  double share = 1.0;
  double latency_s = 0;
  double min_bandwidth = 0;  // bytes per second of the slowest link on the path
};

class RouteCache {
 public:
  RouteCache(const topo::Topology& topology, const topo::Router& router,
             std::size_t max_links_stored = std::size_t{1} << 24);

  // The paths from `src` to `dst` (hosts, src != dst). Valid until the next call.
  std::span<const PathView> paths(int src, int dst);

 private:
  struct Entry {
    std::uint32_t first = 0;  // index into paths_
    std::uint32_t count = 0;
  };
  struct StoredPath {
    std::uint64_t offset = 0;  // into links_
    int hops = 0;
    double share = 1.0, latency_s = 0, min_bandwidth = 0;
  };

  const topo::Topology& topology_;
  const topo::Router& router_;
  std::size_t max_links_;
  FlatMap<Entry> index_;
  std::vector<StoredPath> paths_;
  std::vector<int> links_;
  topo::RouteSet scratch_;
  std::vector<PathView> views_;
};

}  // namespace topocoll::sim
