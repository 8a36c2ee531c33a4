#include "topology/topology.hpp"

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

int Topology::add_link(int from, int to, double bandwidth_bytes_per_s, double latency_s,
                       std::string label) {
  const int id = static_cast<int>(links_.size());
  links_.push_back(Link{from, to, bandwidth_bytes_per_s, latency_s, std::move(label)});
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

}  // namespace topocoll::topo
