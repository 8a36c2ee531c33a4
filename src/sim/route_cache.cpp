#include "sim/route_cache.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace topocoll::sim {

RouteCache::RouteCache(const topo::Topology& topology, const topo::Router& router,
                       std::size_t max_links_stored)
    : topology_(topology), router_(router), max_links_(max_links_stored) {}

std::span<const PathView> RouteCache::paths(int src, int dst) {
  const std::uint64_t key =
      static_cast<std::uint64_t>(src) * static_cast<std::uint64_t>(topology_.host_count()) +
      static_cast<std::uint64_t>(dst);
  const Entry* entry = index_.find(key);
  if (entry == nullptr) {
    router_.route_set(src, dst, scratch_);
    if (scratch_.size() == 0)
      throw std::logic_error("router " + router_.name() + " gave no path from host " +
                             std::to_string(src) + " to host " + std::to_string(dst));
    if (links_.size() > max_links_) {  // budget spent: start over rather than grow
      index_.clear();
      paths_.clear();
      links_.clear();
    }
    const auto& all = topology_.links();
    Entry e{static_cast<std::uint32_t>(paths_.size()), static_cast<std::uint32_t>(scratch_.size())};
    for (int i = 0; i < scratch_.size(); ++i) {
      const auto path = scratch_.path(i);
      StoredPath s;
      s.offset = links_.size();
      s.hops = static_cast<int>(path.size());
      s.share = scratch_.shares[static_cast<std::size_t>(i)];
      s.min_bandwidth = std::numeric_limits<double>::infinity();
      for (int l : path) {
        const auto& link = all.at(static_cast<std::size_t>(l));
        s.latency_s += link.latency_s;
        s.min_bandwidth = std::min(s.min_bandwidth, link.bandwidth_bytes_per_s);
        links_.push_back(l);
      }
      paths_.push_back(s);
    }
    index_[key] = e;
    entry = index_.find(key);
  }
  views_.clear();
  for (std::uint32_t i = 0; i < entry->count; ++i) {
    const StoredPath& s = paths_[entry->first + i];
    views_.push_back({links_.data() + s.offset, s.hops, s.share, s.latency_s, s.min_bandwidth});
  }
  return views_;
}

}  // namespace topocoll::sim
