// dragonfly:GROUPS:ROUTERS:HOSTS_PER_ROUTER:GLOBAL_PER_ROUTER, dragonfly:lumi,
// dragonfly+:GROUPS:LEAVES:HOSTS_PER_LEAF:SPINES:GLOBAL_PER_SPINE, dragonfly+:leonardo.
#include "topology/dragonfly.hpp"
#include "topology/spec_parse.hpp"
#include "topology/topology_builders.hpp"

namespace topocoll::topo {

namespace {

constexpr long long max_count = 1 << 20;

// Shaped like LUMI as bine-trees-sc25.txt section 5.1 describes it: 24 groups of 124 nodes.
// The paper gives no switch counts; we assume 31 routers with 4 hosts each (one host per
// node) and 16 global ports per router, which joins every pair of groups with 21 cables.
constexpr DragonflyShape lumi{false, 24, 31, 4, 0, 16};

// Shaped like Leonardo as bine-trees-sc25.txt section 5.2 describes it: 23 groups of 180
// nodes, each group a two-level fat tree. Assumed: 18 leaves with 10 hosts, 18 spines, 22
// global ports per spine, so every spine reaches every other group and each pair of groups
// is joined by 18 cables.
constexpr DragonflyShape leonardo{true, 23, 18, 10, 18, 22};

TopologyPtr checked(std::string_view spec, const DragonflyShape& shape,
                    const NetworkParams& params) {
  if (shape.host_count() < 2) spec_error(spec, "a dragonfly needs at least 2 hosts");
  if (shape.groups > 1 && shape.cables_per_pair() < 1) {
    spec_error(spec,
               std::to_string(static_cast<long long>(shape.uppers()) * shape.global_per_router) +
                   " global ports per group cannot reach the other " +
                   std::to_string(shape.groups - 1) + " groups");
  }
  check_size(spec, shape.host_count(), shape.link_count());
  return std::make_unique<DragonflyTopology>(std::string(spec), params, shape);
}

}  // namespace

TopologyPtr build_dragonfly(std::string_view spec, std::string_view body,
                            const NetworkParams& params) {
  if (body == "lumi") return checked(spec, lumi, params);
  const std::vector<std::string_view> parts = split(body, ':');
  if (parts.size() != 4) {
    spec_error(spec, "expected dragonfly:GROUPS:ROUTERS:HOSTS_PER_ROUTER:GLOBAL_PER_ROUTER");
  }
  DragonflyShape shape;
  shape.groups = parse_int(spec, parts[0], "groups", 1, max_count);
  shape.routers = parse_int(spec, parts[1], "routers per group", 1, 4096);
  shape.hosts_per_router = parse_int(spec, parts[2], "hosts per router", 1, max_count);
  shape.global_per_router = parse_int(spec, parts[3], "global ports per router", 0, max_count);
  return checked(spec, shape, params);
}

TopologyPtr build_dragonfly_plus(std::string_view spec, std::string_view body,
                                 const NetworkParams& params) {
  if (body == "leonardo") return checked(spec, leonardo, params);
  const std::vector<std::string_view> parts = split(body, ':');
  if (parts.size() != 5) {
    spec_error(spec, "expected dragonfly+:GROUPS:LEAVES:HOSTS_PER_LEAF:SPINES:GLOBAL_PER_SPINE");
  }
  DragonflyShape shape;
  shape.plus = true;
  shape.groups = parse_int(spec, parts[0], "groups", 1, max_count);
  shape.routers = parse_int(spec, parts[1], "leaves per group", 1, 4096);
  shape.hosts_per_router = parse_int(spec, parts[2], "hosts per leaf", 1, max_count);
  shape.spines = parse_int(spec, parts[3], "spines per group", 1, 4096);
  shape.global_per_router = parse_int(spec, parts[4], "global ports per spine", 0, max_count);
  return checked(spec, shape, params);
}

}  // namespace topocoll::topo
