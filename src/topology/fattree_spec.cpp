// fattree:2:..., fattree:3:..., fattree:radix=K[:levels=L][:oversub=R], fattree:canary.
#include <algorithm>

#include "topology/fattree.hpp"
#include "topology/spec_parse.hpp"
#include "topology/topology_builders.hpp"

namespace topocoll::topo {

namespace {

constexpr long long max_count = 1 << 20;

// The 2-level fabric of canary-fgcs24.txt section 5.2: 32 leaf switches with 32 hosts and 32
// up-links each, 32 spine switches, 1024 hosts.
FatTreeShape canary_shape() { return FatTreeShape{2, 1, 32, 32, 32, 0}; }

// Switches of radix K, oversubscription R:1 at the leaves (K/(R+1) up-links, the rest hosts).
// 2 levels: K leaves and K/(R+1) spines. 3 levels: the k-ary fat tree, K pods of K/2 leaves
// and K/(R+1) aggregation switches, each aggregation switch with K/2 core switches.
FatTreeShape radix_shape(std::string_view spec, const std::vector<std::string_view>& parts) {
  int radix = 0;
  int levels = 2;
  int oversub = 1;
  std::vector<std::string_view> seen;
  for (const std::string_view part : parts) {
    const std::size_t equals = part.find('=');
    const std::string_view key = part.substr(0, equals);
    const std::string_view value = equals == std::string_view::npos ? "" : part.substr(equals + 1);
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
      spec_error(spec, "'" + std::string(key) + "' is given twice");
    }
    seen.push_back(key);
    if (key == "radix") {
      radix = parse_int(spec, value, "switch radix", 2, 4096);
    } else if (key == "levels") {
      levels = parse_int(spec, value, "levels", 2, 3);
    } else if (key == "oversub") {
      oversub = parse_int(spec, value, "oversubscription", 1, 4095);
    } else {
      spec_error(spec, "unknown fat tree parameter '" + std::string(part) +
                           "' (radix=K, levels=2|3, oversub=R)");
    }
  }
  if (radix == 0) spec_error(spec, "missing radix=K");
  if (radix % (oversub + 1) != 0) {
    spec_error(spec, "radix " + std::to_string(radix) + " is not divisible by oversub + 1 = " +
                         std::to_string(oversub + 1) + " (up-links = radix / (oversub + 1))");
  }
  const int uplinks = radix / (oversub + 1);
  const int hosts = radix - uplinks;
  if (levels == 2) return FatTreeShape{2, 1, radix, hosts, uplinks, 0};
  if (radix % 2 != 0) spec_error(spec, "a 3-level fat tree needs an even radix");
  return FatTreeShape{3, radix, radix / 2, hosts, uplinks, radix / 2};
}

FatTreeShape explicit_shape(std::string_view spec, const std::vector<std::string_view>& parts) {
  if (parts[0] == "2" && parts.size() == 4) {
    return FatTreeShape{2,
                        1,
                        parse_int(spec, parts[1], "leaves", 1, max_count),
                        parse_int(spec, parts[2], "hosts per leaf", 1, max_count),
                        parse_int(spec, parts[3], "spines", 1, max_count),
                        0};
  }
  if (parts[0] == "3" && parts.size() == 6) {
    return FatTreeShape{
        3,
        parse_int(spec, parts[1], "pods", 1, max_count),
        parse_int(spec, parts[2], "leaves per pod", 1, max_count),
        parse_int(spec, parts[3], "hosts per leaf", 1, max_count),
        parse_int(spec, parts[4], "aggregation switches per pod", 1, max_count),
        parse_int(spec, parts[5], "core switches per aggregation switch", 1, max_count)};
  }
  spec_error(spec,
             "expected fattree:2:LEAVES:HOSTS_PER_LEAF:SPINES or "
             "fattree:3:PODS:LEAVES_PER_POD:HOSTS_PER_LEAF:AGGS_PER_POD:CORES_PER_AGG");
}

}  // namespace

TopologyPtr build_fattree(std::string_view spec, std::string_view body,
                          const NetworkParams& params) {
  const std::vector<std::string_view> parts = split(body, ':');
  FatTreeShape shape;
  if (body == "canary") {
    shape = canary_shape();
  } else if (parts[0].starts_with("radix=") || parts[0].starts_with("levels=") ||
             parts[0].starts_with("oversub=")) {
    shape = radix_shape(spec, parts);
  } else {
    shape = explicit_shape(spec, parts);
  }
  // Each count is <= 2^20, so these products fit in 64 bits before the check.
  check_size(spec, shape.host_count(), shape.link_count());
  if (shape.host_count() < 2) spec_error(spec, "a fat tree needs at least 2 hosts");
  return std::make_unique<FatTreeTopology>(std::string(spec), params, shape);
}

}  // namespace topocoll::topo
