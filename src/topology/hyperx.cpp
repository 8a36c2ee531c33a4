#include "topology/hyperx.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "topology/spec_parse.hpp"

namespace topocoll::topo {

long long HyperXTopology::link_count(const std::vector<int>& dims) {
  long long hosts = 1;
  for (const int size : dims) hosts *= size;
  long long ports = 0;
  for (const int size : dims) ports += size - 1;
  return hosts * ports;
}

HyperXTopology::HyperXTopology(std::string spec, const NetworkParams& params, std::vector<int> dims)
    : Topology(std::move(spec), params) {
  int hosts = 1;
  for (const int size : dims) {
    strides_.push_back(hosts);
    port_offset_.push_back(ports_per_node_);
    ports_per_node_ += size - 1;
    hosts *= size;
  }
  set_grid_dims(std::move(dims));
  reserve(hosts, link_count(grid_dims()));
  for (int node = 0; node < hosts; ++node) add_node(true);
  const double latency = params.link_latency_s + params.hop_latency_s;
  for (int node = 0; node < hosts; ++node) {
    for (int dim = 0; dim < dimensions(); ++dim) {
      const int own = coordinate(node, dim);
      for (int to = 0; to < grid_dims()[dim]; ++to) {
        if (to == own) continue;
        const int peer = row_peer(node, dim, to);
        const int id = add_link(node, peer, params.bandwidth_bytes_per_s, latency,
                                numbered("h", node) + numbered("->h", peer));
        if (id != row_link(node, dim, to)) throw std::logic_error("hyperx links out of order");
      }
    }
  }
}

int HyperXTopology::translated_link(int link, std::span<const int> offset) const {
  const int node = link / ports_per_node_, port = link % ports_per_node_;
  int dim = dimensions() - 1;
  while (port_offset_[static_cast<std::size_t>(dim)] > port) --dim;
  const int index = port - port_offset_[static_cast<std::size_t>(dim)];
  const int own = coordinate(node, dim), n = grid_dims()[static_cast<std::size_t>(dim)];
  const int to = index < own ? index : index + 1;
  return row_link(translated_node(node, offset), dim,
                  (to + offset[static_cast<std::size_t>(dim)]) % n);
}

double HyperXTopology::host_injection_bandwidth(int) const {
  double ports = 0;
  for (int size : grid_dims()) ports += std::min(2, size - 1);
  return ports * params().bandwidth_bytes_per_s;
}

}  // namespace topocoll::topo
