#include "topology/graph.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <nlohmann/json.hpp>
#include <queue>

#include "core/registry.hpp"
#include "topology/input_file.hpp"
#include "topology/parameter_ranges.hpp"
#include "topology/spec_parse.hpp"
#include "topology/topology_builders.hpp"
#include "topology/units.hpp"

namespace topocoll::topo {

namespace {

using nlohmann::json;

// A graph file's JSON text is parsed into a tree of about ten times its size; 256 MiB of
// text (some three million links) is the most that stays within a few GB.
constexpr std::uint64_t kMaxGraphFileBytes = std::uint64_t{256} << 20;

constexpr std::array<std::string_view, 2> kDocumentKeys{"nodes", "links"};
constexpr std::array<std::string_view, 2> kNodeKeys{"name", "host"};
constexpr std::array<std::string_view, 5> kLinkKeys{"from", "to", "bandwidth", "latency",
                                                    "bidirectional"};

// Errors name the file and the place in it (nodes[3].host) and, for keys, the accepted ones.
class GraphErrors {
 public:
  explicit GraphErrors(const std::string& path) : path_(path) {}

  [[noreturn]] void fail(const std::string& where, const std::string& problem) const {
    throw UnsupportedRequest("graph file '" + printable(path_) +
                             "': " + (where.empty() ? "" : where + ": ") + problem);
  }

  template <std::size_t N>
  void check_keys(const json& object, const std::string& where,
                  const std::array<std::string_view, N>& accepted) const {
    if (!object.is_object()) fail(where, "expected an object, got " + kind(object));
    for (const auto& [key, value] : object.items()) {
      bool known = false;
      for (const std::string_view name : accepted) known = known || key == name;
      if (!known)
        fail(where, "unknown key " + topo::quoted(key) + "; accepted keys: " + list(accepted));
    }
  }

  const std::string& text(const json& object, const char* key, const std::string& where) const {
    const auto found = object.find(key);
    if (found == object.end()) fail(where, std::string("\"") + key + "\" is required");
    if (!found->is_string() || found->get_ref<const std::string&>().empty()) {
      fail(where + "." + key, "expected a non-empty string, got " + kind(*found));
    }
    return found->get_ref<const std::string&>();
  }

  bool flag(const json& object, const char* key, bool fallback, const std::string& where) const {
    const auto found = object.find(key);
    if (found == object.end()) return fallback;
    if (!found->is_boolean())
      fail(where + "." + key, "expected true or false, got " + kind(*found));
    return found->get<bool>();
  }

  static std::string kind(const json& value) {
    if (value.is_string())
      return "the string " + topo::quoted(value.get_ref<const std::string&>().substr(0, 40));
    const std::string name = value.type_name();
    return (name == "array" || name == "object" ? "an " : "a ") + name;
  }

 private:
  template <std::size_t N>
  static std::string list(const std::array<std::string_view, N>& names) {
    std::string out;
    for (const std::string_view name : names) out += (out.empty() ? "" : ", ") + std::string(name);
    return out;
  }

  const std::string& path_;
};

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

// A link's bandwidth or latency: a string with a unit, within the parameter's range.
double link_value(const GraphErrors& errors, const json& link, const char* key,
                  const char* parameter, double fallback, const std::string& where) {
  const auto found = link.find(key);
  if (found == link.end()) return fallback;
  const std::string at = where + "." + key;
  if (!found->is_string()) {
    errors.fail(at, "expected a string with a unit (\"400Gbps\", \"100ns\"), got " +
                        GraphErrors::kind(*found));
  }
  double value = 0;
  try {
    const std::string& text = found->get_ref<const std::string&>();
    value = std::string_view(key) == "bandwidth" ? parse_rate(text) : parse_time(text);
  } catch (const std::invalid_argument& error) {
    errors.fail(at, error.what());
  }
  try {
    return check_parameter(parameter, value, at);
  } catch (const std::invalid_argument& error) {
    errors.fail("", error.what());
  }
}

}  // namespace

GraphTopology::GraphTopology(std::string spec, const NetworkParams& params, const std::string& path)
    : Topology(spec, params) {
  const GraphErrors errors(path);
  json doc;
  // JSON leaves duplicate keys to the reader (nlohmann keeps the last): a second "links" or
  // "latency" in one object is refused instead of silently replacing the first.
  std::vector<std::vector<std::string>> keys_of_open_objects;
  std::string duplicate;
  const json::parser_callback_t no_duplicates = [&](int, json::parse_event_t event, json& item) {
    if (event == json::parse_event_t::object_start) keys_of_open_objects.emplace_back();
    if (event == json::parse_event_t::object_end) keys_of_open_objects.pop_back();
    if (event == json::parse_event_t::key && duplicate.empty()) {
      auto& keys = keys_of_open_objects.back();
      const auto& key = item.get_ref<const std::string&>();
      if (std::find(keys.begin(), keys.end(), key) != keys.end()) duplicate = key;
      keys.push_back(key);
    }
    return true;
  };
  try {
    doc = json::parse(read_input_file(path, "graph file", kMaxGraphFileBytes), no_duplicates);
  } catch (const json::exception& error) {
    errors.fail("", std::string("not valid JSON (") + error.what() + ")");
  }
  if (!duplicate.empty()) {
    errors.fail("", "the key " + topo::quoted(duplicate) + " appears twice in one object");
  }
  errors.check_keys(doc, "", kDocumentKeys);
  for (const char* key : {"nodes", "links"}) {
    if (!doc.contains(key) || !doc[key].is_array()) {
      errors.fail("", std::string("needs an array \"") + key + "\"; accepted keys: nodes, links");
    }
  }
  const json& nodes = doc["nodes"];
  const json& links = doc["links"];
  check_size(spec, static_cast<long long>(nodes.size()),
             2LL * static_cast<long long>(links.size()));
  // Hosts first, in file order, then switches.
  std::map<std::string, int> id_of;
  std::vector<std::string> names;
  for (const bool hosts : {true, false}) {
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const json& node = nodes[i];
      const std::string where = "nodes[" + std::to_string(i) + "]";
      errors.check_keys(node, where, kNodeKeys);
      const std::string& name = errors.text(node, "name", where);
      const bool is_host = errors.flag(node, "host", false, where);
      if (is_host != hosts) continue;
      if (!id_of.emplace(name, add_node(is_host)).second) {
        errors.fail(where, "node " + topo::quoted(name) + " is defined twice");
      }
      names.push_back(name);
    }
  }
  if (host_count() < 2) errors.fail("", "the graph needs at least 2 hosts (\"host\": true)");
  std::vector<std::vector<int>> in_links(static_cast<std::size_t>(node_count()));
  for (std::size_t i = 0; i < links.size(); ++i) {
    const json& link = links[i];
    const std::string where = "links[" + std::to_string(i) + "]";
    errors.check_keys(link, where, kLinkKeys);
    const auto end = [&](const char* key) {
      const std::string& name = errors.text(link, key, where);
      const auto found = id_of.find(name);
      if (found == id_of.end()) {
        errors.fail(where + "." + key, "unknown node " + topo::quoted(name));
      }
      return found->second;
    };
    const int from = end("from");
    const int to = end("to");
    if (from == to) errors.fail(where, "joins node " + topo::quoted(names[from]) + " to itself");
    const double bandwidth =
        link_value(errors, link, "bandwidth", "bandwidth", params.bandwidth_bytes_per_s, where);
    const double latency =
        link_value(errors, link, "latency", "latency", params.link_latency_s, where) +
        params.hop_latency_s;
    const bool both_ways = errors.flag(link, "bidirectional", true, where);
    const int id = add_link(from, to, bandwidth, latency, names[from] + "->" + names[to]);
    in_links[to].push_back(id);
    if (both_ways) {
      in_links[from].push_back(
          add_link(to, from, bandwidth, latency, names[to] + "->" + names[from]));
    }
  }
  // Every host must reach every other: all hosts reachable from host 0 and reaching it.
  const std::vector<bool> forward = reachable(*this, 0, true, in_links);
  const std::vector<bool> backward = reachable(*this, 0, false, in_links);
  for (int host = 1; host < host_count(); ++host) {
    if (!forward[host] || !backward[host]) {
      errors.fail("", "hosts " + topo::quoted(names[0]) + " and " + topo::quoted(names[host]) +
                          " are not connected both ways");
    }
  }
}

TopologyPtr build_graph(std::string_view spec, std::string_view body, const NetworkParams& params) {
  if (body.empty()) spec_error(spec, "expected graph:FILE.json");
  return std::make_unique<GraphTopology>(std::string(spec), params, std::string(body));
}

}  // namespace topocoll::topo
