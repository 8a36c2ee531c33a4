// make_router: which routings each kind of topology offers.
#include "topology/routing.hpp"

#include "core/registry.hpp"
#include "topology/grid.hpp"
#include "topology/grid_routing.hpp"

namespace topocoll::topo {

void Router::routes(int src, int dst, std::vector<Path>& out) const {
  RouteSet set;
  route_set(src, dst, set);
  for (int i = 0; i < set.size(); ++i) {
    const std::span<const int> links = set.path(i);
    out.push_back(Path{std::vector<int>(links.begin(), links.end()), set.shares[i]});
  }
}

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

}  // namespace

std::vector<std::string> routings_for(const Topology& topology) {
  if (dynamic_cast<const GridTopology*>(&topology) != nullptr) return {"minimal", "dor"};
  return {};
}

std::unique_ptr<Router> make_router(const Topology& topology, std::string_view routing) {
  if (const auto* grid = dynamic_cast<const GridTopology*>(&topology)) {
    if (routing == "minimal") return std::make_unique<GridRouter>(*grid, true);
    if (routing == "dor") return std::make_unique<GridRouter>(*grid, false);
  }
  throw UnsupportedRequest("routing '" + std::string(routing) + "' is not offered on '" +
                           topology.spec() + "'; accepted: " + joined(routings_for(topology)));
}

}  // namespace topocoll::topo
