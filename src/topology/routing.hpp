#pragma once
// Routes between hosts: the set of paths a message takes and the share of its bytes on each.
// `minimal` splits a message evenly over its minimal paths (the flow-level stand-in for
// minimal adaptive routing); `dor` is one dimension-order path; ECMP and Valiant where the
// topology has them. Every tie-break is documented in docs/simulator.md.
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "topology/topology.hpp"

namespace topocoll::topo {

struct Path {
  std::vector<int> links;  // link ids from source host to destination host
  double share = 1.0;      // fraction of the message's bytes on this path; shares sum to 1
};

// The same paths in flat form, reusable across calls without allocating once its vectors
// have grown: path i is links[offsets[i] .. offsets[i + 1]) and carries shares[i].
struct RouteSet {
  std::vector<int> links;
  std::vector<int> offsets{0};
  std::vector<double> shares;

  void clear() {
    links.clear();
    offsets.assign(1, 0);
    shares.clear();
  }
  [[nodiscard]] int size() const { return static_cast<int>(shares.size()); }
  [[nodiscard]] std::span<const int> path(int i) const {
    return {links.data() + offsets[i], links.data() + offsets[i + 1]};
  }
  // Closes the path whose links were appended since the previous close.
  void close_path(double share) {
    offsets.push_back(static_cast<int>(links.size()));
    shares.push_back(share);
  }
};

// Implementations override route_set (the fast form); routes() is derived from it.
class Router {
 public:
  virtual ~Router() = default;
  // Fills `out` (arrives empty) with the paths from host `src` to host `dst` (src != dst).
  virtual void routes(int src, int dst, std::vector<Path>& out) const;
  // Replaces the contents of `out` with the paths from host `src` to host `dst` (src != dst).
  // Allocation-free once `out` has grown; the flow engine calls it for every message.
  virtual void route_set(int src, int dst, RouteSet& out) const = 0;
  [[nodiscard]] virtual std::string name() const = 0;
  // True when translating source and destination by a translation of the topology (a torus
  // or hypercube: GridTopology::translate) translates every path by it, shares unchanged.
  // The flow model's symmetry reduction relies on it (docs/simulator-engines.md).
  [[nodiscard]] virtual bool commutes_with_translations() const { return false; }
};

// Throws UnsupportedRequest for a routing the topology does not offer, naming those it does.
// The router refers to `topology`, which must outlive it.
[[nodiscard]] std::unique_ptr<Router> make_router(const Topology& topology,
                                                  std::string_view routing);
// The routings `topology` offers, default first ("minimal, dor").
[[nodiscard]] std::vector<std::string> routings_for(const Topology& topology);

}  // namespace topocoll::topo
