#pragma once
// What a caller (the CLI, the Python API) runs with nodes: the network itself when the node
// spec changes nothing (one rank per host, bit for bit as without nodes), else the network
// with its nodes (node_topology.hpp), and the ranks placed by the spec's node mapping.
#include <memory>

#include "topology/mapping.hpp"
#include "topology/node_spec.hpp"
#include "topology/node_topology.hpp"
#include "topology/routing.hpp"

namespace topocoll::topo {

class NodeNetwork {
 public:
  // `network` and `router` must outlive it. Throws UnsupportedRequest as NodeTopology does.
  NodeNetwork(const Topology& network, const Router& router, const NodeSpec& spec);

  [[nodiscard]] bool has_nodes() const { return nodes_ != nullptr; }
  [[nodiscard]] const Topology& topology() const;
  [[nodiscard]] const Router& router() const;
  // Rank r's host: the spec's node mapping, or "linear" without nodes.
  [[nodiscard]] Mapping mapping(int ranks) const;
  // Nullptr without nodes.
  [[nodiscard]] const NodeTopology* nodes() const { return nodes_.get(); }

 private:
  const Topology& network_;
  const Router& network_router_;
  NodeSpec spec_;
  std::unique_ptr<NodeTopology> nodes_;
  std::unique_ptr<NodeRouter> router_;
};

}  // namespace topocoll::topo
