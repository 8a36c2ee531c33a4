#include "topology/graph.hpp"

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <queue>

#include "topology/spec_parse.hpp"
#include "topology/topology_builders.hpp"
#include "topology/units.hpp"

namespace topocoll::topo {

namespace {

using nlohmann::json;

// Nodes reachable from `start` following links forward (or backward).
std::vector<bool> reachable(const Topology& topology, int start, bool forward,
                            const std::vector<std::vector<int>>& in_links) {
  std::vector<bool> seen(static_cast<std::size_t>(topology.node_count()), false);
  std::queue<int> frontier;
  seen[start] = true;
  frontier.push(start);
  while (!frontier.empty()) {
    const int node = frontier.front();
    frontier.pop();
    for (const int link : forward ? topology.out_links(node) : in_links[node]) {
      const int next = forward ? topology.links()[link].to : topology.links()[link].from;
      if (!seen[next]) {
        seen[next] = true;
        frontier.push(next);
      }
    }
  }
  return seen;
}

std::string text_of(const json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

}  // namespace

GraphTopology::GraphTopology(std::string spec, const NetworkParams& params, const std::string& path)
    : Topology(spec, params) {
  std::ifstream in(path);
  if (!in) spec_error(spec, "cannot open '" + path + "'");
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::exception& error) {
    spec_error(spec, "'" + path + "' is not valid JSON: " + error.what());
  }
  if (!doc.is_object() || !doc.contains("nodes") || !doc["nodes"].is_array() ||
      !doc.contains("links") || !doc["links"].is_array()) {
    spec_error(spec, "'" + path + "' needs arrays \"nodes\" and \"links\"");
  }
  const json& nodes = doc["nodes"];
  const json& links = doc["links"];
  check_size(spec, static_cast<long long>(nodes.size()),
             2LL * static_cast<long long>(links.size()));
  // Hosts first, in file order, then switches.
  std::map<std::string, int> id_of;
  std::vector<std::string> names;
  for (const bool hosts : {true, false}) {
    for (const json& node : nodes) {
      if (!node.is_object() || !node.contains("name")) {
        spec_error(spec, "every node needs a \"name\", got " + node.dump());
      }
      const bool is_host = node.value("host", false);
      if (is_host != hosts) continue;
      const std::string name = text_of(node["name"]);
      if (!id_of.emplace(name, add_node(is_host)).second) {
        spec_error(spec, "node '" + name + "' is defined twice");
      }
      names.push_back(name);
    }
  }
  if (host_count() < 2) spec_error(spec, "the graph needs at least 2 hosts (\"host\": true)");
  std::vector<std::vector<int>> in_links(static_cast<std::size_t>(node_count()));
  for (const json& link : links) {
    if (!link.is_object() || !link.contains("from") || !link.contains("to")) {
      spec_error(spec, "every link needs \"from\" and \"to\", got " + link.dump());
    }
    const auto end = [&](const char* key) {
      const std::string name = text_of(link[key]);
      const auto found = id_of.find(name);
      if (found == id_of.end())
        spec_error(spec, "link " + link.dump() + ": unknown node '" + name + "'");
      return found->second;
    };
    const int from = end("from");
    const int to = end("to");
    if (from == to) spec_error(spec, "link " + link.dump() + " joins a node to itself");
    double bandwidth = params.bandwidth_bytes_per_s;
    double latency = params.link_latency_s;
    try {
      if (link.contains("bandwidth")) bandwidth = parse_rate(text_of(link["bandwidth"]));
      if (link.contains("latency")) latency = parse_time(text_of(link["latency"]));
    } catch (const std::invalid_argument& error) {
      spec_error(spec, "link " + link.dump() + ": " + error.what());
    }
    latency += params.hop_latency_s;
    const int id = add_link(from, to, bandwidth, latency, names[from] + "->" + names[to]);
    in_links[to].push_back(id);
    if (link.value("bidirectional", true)) {
      in_links[from].push_back(
          add_link(to, from, bandwidth, latency, names[to] + "->" + names[from]));
    }
  }
  // Every host must reach every other: all hosts reachable from host 0 and reaching it.
  const std::vector<bool> forward = reachable(*this, 0, true, in_links);
  const std::vector<bool> backward = reachable(*this, 0, false, in_links);
  for (int host = 1; host < host_count(); ++host) {
    if (!forward[host] || !backward[host]) {
      spec_error(spec,
                 "hosts '" + names[0] + "' and '" + names[host] + "' are not connected both ways");
    }
  }
}

TopologyPtr build_graph(std::string_view spec, std::string_view body, const NetworkParams& params) {
  if (body.empty()) spec_error(spec, "expected graph:FILE.json");
  try {
    return std::make_unique<GraphTopology>(std::string(spec), params, std::string(body));
  } catch (const json::exception& error) {  // a field of the wrong type
    spec_error(spec, std::string("invalid graph file: ") + error.what());
  }
}

}  // namespace topocoll::topo
