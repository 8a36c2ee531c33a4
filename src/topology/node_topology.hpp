#pragma once
// Nodes of several ranks as a transformation of a network (docs/nodes.md): the network's hosts
// become NICs, M per node (node n owns hosts n*M .. n*M+M-1), and each node adds K rank
// endpoints, its intra-node fabric and the links from its ranks to its NICs. Rank endpoints
// are the hosts of the result (the rank slot of local index l on node n is host n*K + l), so
// the engines, the mappings and the routers work on it unchanged: a message between two ranks
// of one node crosses the node's fabric only, any other crosses the sender's NIC, the network
// and the receiver's NIC. The network's links keep their ids, labels and parameters.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "topology/node_spec.hpp"
#include "topology/routing.hpp"
#include "topology/topology.hpp"

namespace topocoll::topo {

class NodeTopology final : public Topology {
 public:
  // Throws UnsupportedRequest for a spec out of range or a network whose host count is not a
  // multiple of spec.nics. `network` must outlive the result.
  NodeTopology(const Topology& network, const NodeSpec& spec);

  [[nodiscard]] const Topology& network() const { return network_; }
  [[nodiscard]] const NodeSpec& node_spec() const { return spec_; }
  [[nodiscard]] int nodes() const { return nodes_; }
  [[nodiscard]] int ranks_per_node() const { return spec_.ranks_per_node; }
  [[nodiscard]] int slot(int node, int local) const { return node * ranks_per_node() + local; }
  [[nodiscard]] int machine_node_of(int host) const override { return host / ranks_per_node(); }
  [[nodiscard]] const HostCosts* intra_node_host_costs() const override {
    return spec_.intra_host ? &*spec_.intra_host : nullptr;
  }
  // The network host (NIC) a rank slot sends and receives through: local index l uses NIC
  // l % M of its node.
  [[nodiscard]] int nic_host(int host) const;
  // A rank's share of the network: what its NIC can carry (docs/nodes.md).
  [[nodiscard]] double host_injection_bandwidth(int host) const override;
  // The fabric's links from `src` to `dst`, two slots of one node, appended to `links`.
  void fabric_path(int src, int dst, std::vector<int>& links) const;
  // The links from a slot to its NIC's network host and back (two each).
  [[nodiscard]] std::array<int, 2> nic_out(int host) const { return legs_[host].out; }
  [[nodiscard]] std::array<int, 2> nic_in(int host) const { return legs_[host].in; }

 private:
  struct Legs {
    std::array<int, 2> out{};  // slot -> NIC hub, NIC hub -> network host
    std::array<int, 2> in{};   // network host -> NIC hub, NIC hub -> slot
    int fabric_up = -1;        // shared memory, switch: slot -> the node's hub
    int fabric_down = -1;      // hub -> slot
  };
  void add_nics(int node);
  void add_fabric(int node, double bandwidth, double latency);

  const Topology& network_;
  NodeSpec spec_;
  int nodes_ = 0;
  int offset_ = 0;  // network node i is node offset_ + i here
  std::vector<Legs> legs_;
  std::vector<int> memory_link_;  // shared memory: per node, the link all its copies cross
  std::vector<int> mesh_;         // gpu mesh: per node, K x K link ids (-1 on the diagonal)
};

// Routes between rank slots of a NodeTopology: the fabric inside a node, else the slot's NIC
// legs around each path of `network_router` between the two NICs (shares unchanged). Both
// arguments must outlive it.
class NodeRouter final : public Router {
 public:
  NodeRouter(const NodeTopology& topology, const Router& network_router)
      : topology_(topology), network_router_(network_router) {}
  void route_set(int src, int dst, RouteSet& out) const override;
  [[nodiscard]] std::string name() const override { return network_router_.name(); }

 private:
  const NodeTopology& topology_;
  const Router& network_router_;
};

}  // namespace topocoll::topo
