#include "topology/node_network.hpp"

#include "topology/node_mapping.hpp"

namespace topocoll::topo {

NodeNetwork::NodeNetwork(const Topology& network, const Router& router, const NodeSpec& spec)
    : network_(network), network_router_(router), spec_(spec) {
  check_node_spec(spec_);
  if (spec_.trivial()) return;
  nodes_ = std::make_unique<NodeTopology>(network, spec_);
  router_ = std::make_unique<NodeRouter>(*nodes_, router);
}

const Topology& NodeNetwork::topology() const { return nodes_ ? *nodes_ : network_; }

const Router& NodeNetwork::router() const {
  return router_ ? static_cast<const Router&>(*router_) : network_router_;
}

Mapping NodeNetwork::mapping(int ranks) const {
  if (!nodes_) return make_mapping("linear", ranks, network_);
  return make_node_mapping(spec_.mapping, ranks, *nodes_);
}

}  // namespace topocoll::topo
