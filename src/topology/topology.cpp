#include "topology/topology.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace topocoll::topo {

int Topology::add_node(bool host) {
  // Hosts come first so that host ids are 0..H-1 (the contract of topology.hpp).
  if (host && hosts_ != nodes_) throw std::logic_error("topology: hosts must be added first");
  if (host) ++hosts_;
  out_.emplace_back();
  return nodes_++;
}

std::string_view link_kind_name(LinkKind kind) {
  switch (kind) {
    case LinkKind::network: return "network";
    case LinkKind::nic: return "nic";
    case LinkKind::intra_node: return "intra-node";
  }
  return "network";
}

int Topology::add_link(int from, int to, double bandwidth_bytes_per_s, double latency_s,
                       std::string label, LinkKind kind) {
  const int id = static_cast<int>(links_.size());
  links_.push_back(Link{from, to, bandwidth_bytes_per_s, latency_s, std::move(label), kind});
  out_.at(from).push_back(id);
  return id;
}

int Topology::add_cable(int a, int b, double bandwidth_bytes_per_s, double latency_s,
                        const std::string& name_a, const std::string& name_b) {
  const int id = add_link(a, b, bandwidth_bytes_per_s, latency_s, name_a + "->" + name_b);
  add_link(b, a, bandwidth_bytes_per_s, latency_s, name_b + "->" + name_a);
  return id;
}

void Topology::reserve(int nodes, long long links) {
  out_.reserve(static_cast<std::size_t>(nodes));
  links_.reserve(static_cast<std::size_t>(links));
}

double Topology::host_injection_bandwidth(int host) const {
  // Incoming links are not indexed: they are found among the out-links of the host's
  // neighbours (every topology here cables both directions).
  double out = 0, in = 0;
  std::vector<int> neighbours;
  for (int id : out_links(host)) {
    const Link& link = links_[static_cast<std::size_t>(id)];
    out += link.bandwidth_bytes_per_s;
    neighbours.push_back(link.to);
  }
  std::sort(neighbours.begin(), neighbours.end());
  neighbours.erase(std::unique(neighbours.begin(), neighbours.end()), neighbours.end());
  for (int n : neighbours)
    for (int id : out_links(n))
      if (links_[static_cast<std::size_t>(id)].to == host)
        in += links_[static_cast<std::size_t>(id)].bandwidth_bytes_per_s;
  return std::min(out, in);
}

int Topology::translated_link(int, std::span<const int>) const {
  throw std::logic_error("translated_link on a network without translations: " + spec_);
}

int Topology::translated_node(int node, std::span<const int> offset) const {
  int moved = 0, stride = 1;
  for (std::size_t d = 0; d < grid_dims_.size(); ++d) {
    const int n = grid_dims_[d];
    moved += ((node / stride) % n + offset[d]) % n * stride;
    stride *= n;
  }
  return moved;
}

}  // namespace topocoll::topo
