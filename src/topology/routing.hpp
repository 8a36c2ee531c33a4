#pragma once
// Routes between hosts: the set of paths a message takes and the share of its bytes on each.
// `minimal` splits a message evenly over its minimal paths (the flow-level stand-in for
// minimal adaptive routing); `dor` is one dimension-order path; ECMP and Valiant where the
// topology has them. Every tie-break is documented in docs/simulator.md.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "topology/topology.hpp"

namespace topocoll::topo {

struct Path {
  std::vector<int> links;  // link ids from source host to destination host
  double share = 1.0;      // fraction of the message's bytes on this path; shares sum to 1
};

class Router {
 public:
  virtual ~Router() = default;
  // Fills `out` (arrives empty) with the paths from host `src` to host `dst` (src != dst).
  virtual void routes(int src, int dst, std::vector<Path>& out) const = 0;
  [[nodiscard]] virtual std::string name() const = 0;
};

// Throws UnsupportedRequest for a routing the topology does not offer, naming those it does.
[[nodiscard]] std::unique_ptr<Router> make_router(const Topology& topology,
                                                  std::string_view routing);

}  // namespace topocoll::topo
