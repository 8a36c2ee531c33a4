#include "topology/spec_parse.hpp"

#include <charconv>

#include "core/registry.hpp"
#include "topology/input_file.hpp"

namespace topocoll::topo {

std::string numbered(std::string_view prefix, long long index) {
  std::string name(prefix);
  name += std::to_string(index);
  return name;
}

std::string quoted(std::string_view text) {
  std::string result("'");
  result += printable(text);
  result += '\'';
  return result;
}

std::string topology_spec_forms() {
  return "ring:N, torus:AxB[x...], mesh:AxB[x...], hypercube:D, hyperx:AxB[x...], "
         "hammingmesh:AxB:XxY, fattree:2:LEAVES:HOSTS_PER_LEAF:SPINES, "
         "fattree:3:PODS:LEAVES_PER_POD:HOSTS_PER_LEAF:AGGS_PER_POD:CORES_PER_AGG, "
         "fattree:radix=K[:levels=2|3][:oversub=R], fattree:canary, "
         "dragonfly:GROUPS:ROUTERS:HOSTS_PER_ROUTER:GLOBAL_PER_ROUTER, dragonfly:lumi, "
         "dragonfly+:GROUPS:LEAVES:HOSTS_PER_LEAF:SPINES:GLOBAL_PER_SPINE, dragonfly+:leonardo, "
         "graph:FILE.json";
}

void spec_error(std::string_view spec, const std::string& problem) {
  throw UnsupportedRequest("topology '" + printable(spec) + "': " + problem +
                           "; accepted: " + topology_spec_forms());
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = text.find(separator, begin);
    if (end == std::string_view::npos) {
      parts.push_back(text.substr(begin));
      return parts;
    }
    parts.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
}

int parse_int(std::string_view spec, std::string_view text, std::string_view what, long long low,
              long long high) {
  long long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    spec_error(spec, quoted(text) + " is not an integer (" + std::string(what) + ")");
  }
  if (value < low || value > high) {
    spec_error(spec, std::string(what) + " " + std::string(text) + " is out of range [" +
                         std::to_string(low) + ", " + std::to_string(high) + "]");
  }
  return static_cast<int>(value);
}

std::vector<int> parse_dims(std::string_view spec, std::string_view text, long long low,
                            long long high) {
  std::vector<int> dims;
  for (const std::string_view part : split(text, 'x')) {
    dims.push_back(parse_int(spec, part, "dimension size", low, high));
  }
  return dims;
}

void check_size(std::string_view spec, long long hosts, long long links) {
  if (hosts > max_hosts) {
    spec_error(spec,
               std::to_string(hosts) + " hosts exceed the limit of " + std::to_string(max_hosts));
  }
  if (links > max_links) {
    spec_error(spec,
               std::to_string(links) + " links exceed the limit of " + std::to_string(max_links));
  }
}

}  // namespace topocoll::topo
