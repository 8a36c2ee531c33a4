#include "topology/grid.hpp"

#include <stdexcept>
#include <utility>

#include "topology/spec_parse.hpp"

namespace topocoll::topo {

namespace {

std::string host_name(int node) { return numbered("h", node); }

}  // namespace

long long GridTopology::link_count(const std::vector<int>& dims, Kind kind) {
  long long hosts = 1;
  for (const int size : dims) hosts *= size;
  long long links = 0;
  for (const int size : dims) {
    const long long lines = hosts / size;
    switch (kind) {
      case Kind::torus: links += lines * size * 2; break;
      case Kind::mesh: links += lines * (size - 1) * 2; break;
      case Kind::hypercube: links += hosts; break;
    }
  }
  return links;
}

GridTopology::GridTopology(std::string spec, const NetworkParams& params, std::vector<int> dims,
                           Kind kind)
    : Topology(std::move(spec), params), kind_(kind) {
  int hosts = 1;
  for (const int size : dims) {
    strides_.push_back(hosts);
    hosts *= size;
  }
  const int d = static_cast<int>(dims.size());
  ports_per_node_ = kind == Kind::hypercube ? d : 2 * d;
  set_grid_dims(std::move(dims));
  reserve(hosts, link_count(grid_dims(), kind));
  for (int node = 0; node < hosts; ++node) add_node(true);
  if (kind == Kind::mesh) port_links_.assign(static_cast<std::size_t>(hosts) * ports_per_node_, -1);
  const double bandwidth = params.bandwidth_bytes_per_s;
  const double latency = params.link_latency_s + params.hop_latency_s;
  for (int node = 0; node < hosts; ++node) {
    for (int dim = 0; dim < d; ++dim) {
      if (kind == Kind::hypercube) {
        const int peer = neighbour(node, dim, 1);
        add_link(node, peer, bandwidth, latency, host_name(node) + "->" + host_name(peer));
        continue;
      }
      const int x = coordinate(node, dim);
      for (const int direction : {1, -1}) {
        if (kind == Kind::mesh && (x + direction < 0 || x + direction >= size(dim))) continue;
        const int peer = neighbour(node, dim, direction);
        // On a size-2 torus dimension both ports reach the same neighbour: two cables.
        const std::string sign = direction > 0 ? "+" : "-";
        const int id = add_link(
            node, peer, bandwidth, latency,
            host_name(node) + "->" + host_name(peer) + " (d" + std::to_string(dim) + sign + ")");
        if (kind == Kind::mesh) {
          port_links_[static_cast<std::size_t>(node) * ports_per_node_ + port(dim, direction)] = id;
        } else if (id != node * ports_per_node_ + port(dim, direction)) {
          throw std::logic_error("torus links out of port order");
        }
      }
    }
  }
}

}  // namespace topocoll::topo
