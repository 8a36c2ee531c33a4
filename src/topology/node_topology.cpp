#include "topology/node_topology.hpp"

#include <string>

#include "core/registry.hpp"

namespace topocoll::topo {
namespace {

std::string rank_name(int node, int local) {
  return "n" + std::to_string(node) + ".r" + std::to_string(local);
}

std::string describe(const Topology& network, const NodeSpec& spec) {
  return network.spec() + " with nodes of " + std::to_string(spec.ranks_per_node) + " ranks and " +
         std::to_string(spec.nics) + " NICs";
}

int nodes_of(const Topology& network, const NodeSpec& spec) {
  check_node_spec(spec);
  const int hosts = network.host_count();
  if (hosts % spec.nics != 0)
    throw UnsupportedRequest("the " + std::to_string(hosts) + " hosts of '" + network.spec() +
                             "' do not split into nodes of " + std::to_string(spec.nics) +
                             " NICs; accepted: NICs per node dividing the host count");
  return hosts / spec.nics;
}

}  // namespace

NodeTopology::NodeTopology(const Topology& network, const NodeSpec& spec)
    : Topology(describe(network, spec), network.params()),
      network_(network),
      spec_(spec),
      nodes_(nodes_of(network, spec)) {
  const int k = spec_.ranks_per_node;
  const int slots = nodes_ * k;
  reserve(slots + network.node_count() + nodes_ * (2 * spec_.nics + 2),
          static_cast<long long>(network.links().size()) + static_cast<long long>(slots) * (4 + k));
  for (int s = 0; s < slots; ++s) add_node(true);
  offset_ = slots;
  for (int n = 0; n < network.node_count(); ++n) add_node(false);
  // The network's links first, so that their ids are the network router's.
  for (const Link& l : network.links())
    add_link(l.from + offset_, l.to + offset_, l.bandwidth_bytes_per_s, l.latency_s, l.label,
             l.kind);
  legs_.resize(static_cast<std::size_t>(slots));
  // Unset fabric values cost what a network link costs (docs/nodes.md "Defaults").
  const double bandwidth =
      spec_.fabric_bandwidth > 0 ? spec_.fabric_bandwidth : params().bandwidth_bytes_per_s;
  const double latency = spec_.fabric_latency.value_or(params().link_latency_s);
  for (int n = 0; n < nodes_; ++n) {
    add_nics(n);
    if (k > 1) add_fabric(n, bandwidth, latency);
  }
}

int NodeTopology::nic_host(int host) const {
  const int local = host % ranks_per_node();
  return machine_node_of(host) * spec_.nics + local % spec_.nics;
}

double NodeTopology::host_injection_bandwidth(int host) const {
  return links()[static_cast<std::size_t>(legs_.at(static_cast<std::size_t>(host)).out[1])]
      .bandwidth_bytes_per_s;
}

void NodeTopology::add_nics(int node) {
  const int k = ranks_per_node();
  for (int j = 0; j < spec_.nics; ++j) {
    const int host = node * spec_.nics + j;
    const int net = host + offset_;
    // A NIC as fast as its network ports unless the spec says otherwise.
    const double bw =
        spec_.nic_bandwidth > 0 ? spec_.nic_bandwidth : network_.host_injection_bandwidth(host);
    const std::string nic = "n" + std::to_string(node) + ".nic" + std::to_string(j);
    const std::string wire = "h" + std::to_string(host);
    // One hub per direction: the NIC link behind it is what the NIC's ranks share.
    const int tx = add_node(false);
    const int rx = add_node(false);
    const int tx_link = add_link(tx, net, bw, 0, nic + "->" + wire, LinkKind::nic);
    const int rx_link = add_link(net, rx, bw, 0, wire + "->" + nic, LinkKind::nic);
    for (int l = j; l < k; l += spec_.nics) {
      const int s = slot(node, l);
      Legs& legs = legs_[static_cast<std::size_t>(s)];
      legs.out = {add_link(s, tx, bw, 0, rank_name(node, l) + "->" + nic, LinkKind::nic), tx_link};
      legs.in = {rx_link, add_link(rx, s, bw, 0, nic + "->" + rank_name(node, l), LinkKind::nic)};
    }
  }
}

void NodeTopology::add_fabric(int node, double bandwidth, double latency) {
  const int k = ranks_per_node();
  const std::string n = "n" + std::to_string(node);
  const auto kind = LinkKind::intra_node;
  if (spec_.fabric == Fabric::gpu_mesh) {
    if (mesh_.empty()) mesh_.assign(static_cast<std::size_t>(nodes_) * k * k, -1);
    for (int a = 0; a < k; ++a)
      for (int b = 0; b < k; ++b)
        if (a != b)
          mesh_[(static_cast<std::size_t>(node) * k + a) * k + b] =
              add_link(slot(node, a), slot(node, b), bandwidth, latency,
                       rank_name(node, a) + "->" + rank_name(node, b), kind);
    return;
  }
  // Shared memory: every copy of the node crosses one memory link between two hubs, which
  // max-min sharing divides among them: the node-wide cap. A switch has one hub, its ports.
  const bool memory = spec_.fabric == Fabric::shared_memory;
  const std::string hub = n + (memory ? ".mem" : ".sw");
  const int in = add_node(false);
  const int out = memory ? add_node(false) : in;
  if (memory) {
    const double cap = spec_.memory_bandwidth > 0 ? spec_.memory_bandwidth : bandwidth * k;
    memory_link_.resize(static_cast<std::size_t>(nodes_), -1);
    memory_link_[static_cast<std::size_t>(node)] = add_link(in, out, cap, 0, n + ".memory", kind);
  }
  for (int l = 0; l < k; ++l) {
    const int s = slot(node, l);
    Legs& legs = legs_[static_cast<std::size_t>(s)];
    // The fabric's latency is paid once per message, on the way in.
    legs.fabric_up = add_link(s, in, bandwidth, latency, rank_name(node, l) + "->" + hub, kind);
    legs.fabric_down = add_link(out, s, bandwidth, 0, hub + "->" + rank_name(node, l), kind);
  }
}

void NodeTopology::fabric_path(int src, int dst, std::vector<int>& links) const {
  const int k = ranks_per_node();
  const int node = machine_node_of(src);
  if (spec_.fabric == Fabric::gpu_mesh) {
    links.push_back(mesh_[(static_cast<std::size_t>(node) * k + src % k) * k + dst % k]);
    return;
  }
  links.push_back(legs_[static_cast<std::size_t>(src)].fabric_up);
  if (spec_.fabric == Fabric::shared_memory)
    links.push_back(memory_link_[static_cast<std::size_t>(node)]);
  links.push_back(legs_[static_cast<std::size_t>(dst)].fabric_down);
}

void NodeRouter::route_set(int src, int dst, RouteSet& out) const {
  out.clear();
  if (topology_.machine_node_of(src) == topology_.machine_node_of(dst)) {
    topology_.fabric_path(src, dst, out.links);
    out.close_path(1.0);
    return;
  }
  thread_local RouteSet network;
  network_router_.route_set(topology_.nic_host(src), topology_.nic_host(dst), network);
  const auto up = topology_.nic_out(src);
  const auto down = topology_.nic_in(dst);
  for (int p = 0; p < network.size(); ++p) {
    out.links.insert(out.links.end(), up.begin(), up.end());
    const auto path = network.path(p);
    out.links.insert(out.links.end(), path.begin(), path.end());
    out.links.insert(out.links.end(), down.begin(), down.end());
    out.close_path(network.shares[static_cast<std::size_t>(p)]);
  }
}

}  // namespace topocoll::topo
