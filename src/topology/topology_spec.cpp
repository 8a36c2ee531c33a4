// make_topology: the spec strings of the CLI contract (docs/simulator.md, "Topology specs"),
// dispatched on the prefix.
#include <algorithm>
#include <functional>
#include <map>

#include "topology/grid.hpp"
#include "topology/hyperx.hpp"
#include "topology/parameter_ranges.hpp"
#include "topology/spec_parse.hpp"
#include "topology/topology.hpp"
#include "topology/topology_builders.hpp"

namespace topocoll::topo {

namespace {

// Product of dims, saturating above max_hosts so that huge specs fail the size check instead
// of overflowing.
long long saturating_product(const std::vector<int>& dims) {
  long long product = 1;
  for (const int size : dims) product = std::min(product * size, max_hosts + 1);
  return product;
}

std::unique_ptr<Topology> make_grid(std::string_view spec, std::string_view body,
                                    const NetworkParams& params, GridTopology::Kind kind) {
  const std::vector<int> dims = parse_dims(spec, body, 2, max_hosts);
  const long long hosts = saturating_product(dims);
  check_size(spec, hosts, hosts > max_hosts ? 0 : GridTopology::link_count(dims, kind));
  return std::make_unique<GridTopology>(std::string(spec), params, dims, kind);
}

std::unique_ptr<Topology> make_ring(std::string_view spec, std::string_view body,
                                    const NetworkParams& params) {
  if (body.find('x') != std::string_view::npos) {
    spec_error(spec, "a ring has one size (use torus:AxB for more dimensions)");
  }
  const int size = parse_int(spec, body, "ring size", 2, max_hosts);
  return std::make_unique<GridTopology>(std::string(spec), params, std::vector<int>{size},
                                        GridTopology::Kind::torus);
}

std::unique_ptr<Topology> make_hypercube(std::string_view spec, std::string_view body,
                                         const NetworkParams& params) {
  // D = 20 would need 20 x 2^20 directed links, past max_links.
  const int d = parse_int(spec, body, "hypercube dimension", 1, 19);
  const std::vector<int> dims(d, 2);
  check_size(spec, 1LL << d, GridTopology::link_count(dims, GridTopology::Kind::hypercube));
  return std::make_unique<GridTopology>(std::string(spec), params, dims,
                                        GridTopology::Kind::hypercube);
}

std::unique_ptr<Topology> make_hyperx(std::string_view spec, std::string_view body,
                                      const NetworkParams& params) {
  const std::vector<int> dims = parse_dims(spec, body, 2, max_hosts);
  const long long hosts = saturating_product(dims);
  check_size(spec, hosts, hosts > max_hosts ? 0 : HyperXTopology::link_count(dims));
  return std::make_unique<HyperXTopology>(std::string(spec), params, dims);
}

using Builder = std::function<std::unique_ptr<Topology>(std::string_view, std::string_view,
                                                        const NetworkParams&)>;

const std::map<std::string_view, Builder>& builders() {
  static const std::map<std::string_view, Builder> table = {
      {"ring", make_ring},
      {"torus",
       [](auto spec, auto body, const auto& params) {
         return make_grid(spec, body, params, GridTopology::Kind::torus);
       }},
      {"mesh",
       [](auto spec, auto body, const auto& params) {
         return make_grid(spec, body, params, GridTopology::Kind::mesh);
       }},
      {"hypercube", make_hypercube},
      {"hyperx", make_hyperx},
      {"hammingmesh", build_hammingmesh},
      {"fattree", build_fattree},
      {"graph", build_graph},
      {"dragonfly", build_dragonfly},
      {"dragonfly+", build_dragonfly_plus},
  };
  return table;
}

}  // namespace

std::unique_ptr<Topology> make_topology(std::string_view spec, const NetworkParams& params) {
  const std::size_t colon = spec.find(':');
  if (colon == std::string_view::npos) spec_error(spec, "missing ':' after the topology kind");
  const std::string_view kind = spec.substr(0, colon);
  const auto found = builders().find(kind);
  if (found == builders().end()) spec_error(spec, "unknown kind '" + std::string(kind) + "'");
  check_network_params(params);
  return found->second(spec, spec.substr(colon + 1), params);
}

std::string topology_spec_help() {
  return "ring:N                 ring of N hosts (N >= 2), a cable to each neighbour\n"
         "torus:AxB[x...]        torus, dimension 0 first; 2 cables per dimension per host\n"
         "mesh:AxB[x...]         mesh (no wrap-around)\n"
         "hypercube:D            2^D hosts (1 <= D <= 19), one cable per dimension\n"
         "hyperx:AxB[x...]       HyperX: a cable between every two hosts of a row in any "
         "dimension\n"
         "hammingmesh:AxB:XxY    XxY boards of AxB 2D meshes; each grid row and column of board\n"
         "                       edges joined by a fat tree (one non-blocking switch);\n"
         "                       Hx2Mesh = hammingmesh:2x2:XxY, Hx4Mesh = hammingmesh:4x4:XxY\n"
         "fattree:2:LEAVES:HOSTS_PER_LEAF:SPINES\n"
         "                       2-level fat tree, every leaf cabled to every spine\n"
         "fattree:3:PODS:LEAVES_PER_POD:HOSTS_PER_LEAF:AGGS_PER_POD:CORES_PER_AGG\n"
         "                       3-level fat tree, aggregation switch a of each pod cabled to\n"
         "                       the CORES_PER_AGG core switches of plane a\n"
         "fattree:radix=K[:levels=2|3][:oversub=R]\n"
         "                       fat tree of radix-K switches, R:1 oversubscribed at the leaves\n"
         "fattree:canary         the 1024-host 2-level fabric of canary-fgcs24.txt 5.2 "
         "(32:32:32)\n"
         "dragonfly:GROUPS:ROUTERS:HOSTS_PER_ROUTER:GLOBAL_PER_ROUTER\n"
         "                       all-to-all routers per group, global cables spread evenly\n"
         "                       over the pairs of groups\n"
         "dragonfly:lumi         shaped like LUMI (bine-trees-sc25.txt 5.1): 24:31:4:16\n"
         "dragonfly+:GROUPS:LEAVES:HOSTS_PER_LEAF:SPINES:GLOBAL_PER_SPINE\n"
         "                       leaf-spine groups, global cables on the spines\n"
         "dragonfly+:leonardo    shaped like Leonardo (bine-trees-sc25.txt 5.2): 23:18:10:18:22\n"
         "graph:FILE.json        {\"nodes\": [{\"name\": \"h0\", \"host\": true}, ...], "
         "\"links\":\n"
         "                       [{\"from\": \"h0\", \"to\": \"s0\", \"bandwidth\": \"400Gbps\",\n"
         "                       \"latency\": \"100ns\", \"bidirectional\": true}, ...]}\n";
}

}  // namespace topocoll::topo
