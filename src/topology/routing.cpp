// make_router: which routings each kind of topology offers.
#include "topology/routing.hpp"

#include <functional>

#include "core/registry.hpp"
#include "topology/dragonfly.hpp"
#include "topology/dragonfly_routing.hpp"
#include "topology/fattree.hpp"
#include "topology/fattree_routing.hpp"
#include "topology/graph.hpp"
#include "topology/graph_routing.hpp"
#include "topology/grid.hpp"
#include "topology/grid_routing.hpp"
#include "topology/hammingmesh.hpp"
#include "topology/hammingmesh_routing.hpp"
#include "topology/hyperx.hpp"
#include "topology/hyperx_routing.hpp"

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

// The routings a topology offers (default first) and how to build one of them.
struct Offer {
  std::vector<std::string> names;
  std::function<std::unique_ptr<Router>(std::string_view)> make;
};

Offer offer_for(const Topology& topology) {
  if (const auto* grid = dynamic_cast<const GridTopology*>(&topology)) {
    return {{"minimal", "dor"}, [grid](std::string_view routing) {
              return std::make_unique<GridRouter>(*grid, routing == "minimal");
            }};
  }
  if (const auto* hyperx = dynamic_cast<const HyperXTopology*>(&topology)) {
    return {{"minimal", "dor"}, [hyperx](std::string_view routing) {
              return std::make_unique<HyperXRouter>(*hyperx, routing == "minimal");
            }};
  }
  if (const auto* tree = dynamic_cast<const FatTreeTopology*>(&topology)) {
    return {{"minimal", "ecmp", "dor"}, [tree](std::string_view routing) {
              return std::make_unique<FatTreeRouter>(*tree, std::string(routing), routing != "dor");
            }};
  }
  if (const auto* fly = dynamic_cast<const DragonflyTopology*>(&topology)) {
    return {{"minimal", "valiant", "dor"}, [fly](std::string_view routing) {
              const auto mode = routing == "minimal"   ? DragonflyRouter::Mode::minimal
                                : routing == "valiant" ? DragonflyRouter::Mode::valiant
                                                       : DragonflyRouter::Mode::single;
              return std::make_unique<DragonflyRouter>(*fly, mode, std::string(routing));
            }};
  }
  if (const auto* mesh = dynamic_cast<const HammingMeshTopology*>(&topology)) {
    return {{"minimal", "dor"}, [mesh](std::string_view routing) {
              return std::make_unique<HammingMeshRouter>(*mesh, routing == "minimal");
            }};
  }
  if (dynamic_cast<const GraphTopology*>(&topology) != nullptr) {
    return {{"minimal", "dor"}, [&topology](std::string_view routing) {
              return std::make_unique<GraphRouter>(topology, routing == "minimal");
            }};
  }
  return {};
}

}  // namespace

std::vector<std::string> routings_for(const Topology& topology) {
  return offer_for(topology).names;
}

std::unique_ptr<Router> make_router(const Topology& topology, std::string_view routing) {
  const Offer offer = offer_for(topology);
  for (const std::string& name : offer.names) {
    if (name == routing) return offer.make(routing);
  }
  throw UnsupportedRequest("routing '" + std::string(routing) + "' is not offered on '" +
                           topology.spec() + "'; accepted: " + joined(offer.names));
}

}  // namespace topocoll::topo
