#include "topology/machine_file.hpp"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/registry.hpp"
#include "mpi/runtime/byte_size.hpp"  // header-only: the byte grammar of topocoll.units
#include "topology/input_file.hpp"
#include "topology/parameter_ranges.hpp"
#include "topology/spec_parse.hpp"
#include "topology/units.hpp"

namespace topocoll::topo {
namespace {

using nlohmann::json;

constexpr std::string_view kFormat = "topocoll-machine/1";
constexpr std::array<std::string_view, 8> kTopKeys{"format",  "name", "description", "topology",
                                                   "network", "host", "nodes",       "working_set"};
constexpr std::array<std::string_view, 8> kWorkingSetKeys{
    "bytes",          "bandwidth",        "copy_rate",
    "reduce_rate",    "fabric_bandwidth", "memory_bandwidth",
    "lent_copy_rate", "lent_reduce_rate"};
// A working-set table is a calibration's few sizes, not a curve sampled finely.
constexpr std::size_t kMaxWorkingSetPoints = 64;
constexpr std::array<std::string_view, 4> kNetworkKeys{"bandwidth", "link_latency", "hop_latency",
                                                       "nic_ports"};
constexpr std::array<std::string_view, 13> kHostKeys{
    "step_overhead",       "send_overhead", "recv_overhead", "gap",
    "copy_rate",           "overhead_rate", "reduce_rate",   "eager_threshold",
    "rendezvous_overhead", "step_cpu",      "call_overhead", "lent_copy_rate",
    "lent_reduce_rate"};
constexpr std::array<std::string_view, 9> kNodeKeys{
    "ranks_per_node",   "mapping", "fabric",        "fabric_bandwidth", "fabric_latency",
    "memory_bandwidth", "nics",    "nic_bandwidth", "intra_node"};
constexpr std::array<std::string_view, 2> kIntraKeys{"network", "host"};
constexpr std::array<std::string_view, 3> kIntraNetworkKeys{"bandwidth", "link_latency",
                                                            "hop_latency"};
constexpr std::array<std::string_view, 6> kIntraHostKeys{
    "send_overhead", "recv_overhead", "gap", "copy_rate", "eager_threshold", "rendezvous_overhead"};
constexpr std::array<std::string_view, 3> kReduceClasses{"float", "double", "int"};
// Copy and reduction rates: the slowest is the --reduce-cost bound (1 us per byte).
constexpr double kMinHostRate = 1e6;

template <std::size_t N>
std::string joined(const std::array<std::string_view, N>& words) {
  std::string out;
  for (const auto w : words) out += (out.empty() ? "" : ", ") + std::string(w);
  return out;
}

// One line per problem: the file, the key, what is wrong and what is accepted.
class Reader {
 public:
  Reader(std::string_view origin, Machine& machine) : origin_(origin), machine_(machine) {}

  [[noreturn]] void fail(std::string_view key, const std::string& problem) const {
    std::string line = "machine file '" + printable(origin_) + "'";
    if (!key.empty()) line += ": key '" + std::string(key) + "'";
    throw UnsupportedRequest(line + ": " + problem);
  }

  template <std::size_t N>
  void check_keys(const json& object, std::string_view where,
                  const std::array<std::string_view, N>& accepted) const {
    if (!object.is_object())
      fail(where, "is not an object; accepted: {KEY: ...} with keys " + joined(accepted));
    for (const auto& [key, _] : object.items()) {
      if (std::find(accepted.begin(), accepted.end(), key) == accepted.end())
        fail(path(where, printable(key)), "is unknown; accepted: " + joined(accepted));
    }
  }

  // The value of a {"value": ..., "source": "..."} entry; records the source.
  const json& entry(const json& item, const std::string& key) const {
    constexpr std::array<std::string_view, 2> kEntryKeys{"value", "source"};
    check_keys(item, key, kEntryKeys);
    if (!item.contains("value"))
      fail(key, "has no \"value\"; accepted: {\"value\": ..., \"source\": \"...\"}");
    const auto source = item.find("source");
    if (source == item.end() || !source->is_string() ||
        source->get_ref<const std::string&>().find_first_not_of(" \t") == std::string::npos)
      fail(key,
           "needs a non-empty \"source\" string (a paper's section, a datasheet, a "
           "simulator's default or a calibration)");
    machine_.sources[key] = source->get<std::string>();
    return item["value"];
  }

  const std::string& text(const json& value, const std::string& key,
                          std::string_view accepted) const {
    if (!value.is_string()) fail(key, "is not a string; accepted: " + std::string(accepted));
    return value.get_ref<const std::string&>();
  }

  double time(const json& value, const std::string& key) const {
    const std::string& t = text(value, key, "a duration such as 100ns or 1.5us");
    double seconds = 0;
    try {
      seconds = parse_time(t);
    } catch (const std::invalid_argument& error) {
      fail(key, error.what());
    }
    return ranged(key, "alpha", seconds);
  }

  double rate(const json& value, const std::string& key) const {
    const std::string& t = text(value, key, "a rate such as 400Gbps or 20GBps");
    try {
      return parse_rate(t);
    } catch (const std::invalid_argument& error) {
      fail(key, error.what());
    }
  }

  // Seconds per byte of a copy or reduction rate.
  double per_byte(const json& value, const std::string& key) const {
    const double r = rate(value, key);
    if (r < kMinHostRate)
      fail(key, "'" + value.get<std::string>() + "' is too slow; accepted: at least 1MBps");
    return 1 / r;
  }

  double ranged(const std::string& key, std::string_view parameter, double value) const {
    try {
      return check_parameter(parameter, value, "'" + key + "'");
    } catch (const std::invalid_argument& error) {
      fail("", error.what());
    }
  }

  static std::string path(std::string_view where, std::string_view key) {
    return where.empty() ? std::string(key) : std::string(where) + "." + std::string(key);
  }

 private:
  std::string_view origin_;
  Machine& machine_;
};

bool valid_name(const std::string& name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

void read_header(const Reader& r, const json& doc, Machine& m) {
  if (!doc.contains("format") || !doc["format"].is_string() || doc["format"] != kFormat)
    r.fail("format", "is missing or not \"" + std::string(kFormat) + "\"; accepted: \"" +
                         std::string(kFormat) + "\"");
  if (!doc.contains("name") || !doc["name"].is_string() ||
      !valid_name(doc["name"].get<std::string>()))
    r.fail("name", "is missing or not a name; accepted: 1 to 64 characters of a-z, 0-9 and -");
  m.name = doc["name"].get<std::string>();
  if (!doc.contains("description") || !doc["description"].is_string() ||
      doc["description"].get_ref<const std::string&>().find('\n') != std::string::npos)
    r.fail("description", "is missing or not one line of text; accepted: a string on one line");
  m.description = doc["description"].get<std::string>();
  if (doc.contains("topology"))
    m.topology = r.text(r.entry(doc["topology"], "topology"), "topology",
                        "a topology spec such as torus:8x8");
}

void read_network(const Reader& r, const json& network, NetworkParams& p) {
  r.check_keys(network, "network", kNetworkKeys);
  for (const auto& [key, item] : network.items()) {
    const std::string at = "network." + key;
    const json& value = r.entry(item, at);
    if (key == "bandwidth") {
      p.bandwidth_bytes_per_s = r.ranged(at, "bandwidth", r.rate(value, at));
    } else if (key == "link_latency") {
      p.link_latency_s = r.ranged(at, "latency", r.time(value, at));
    } else if (key == "hop_latency") {
      p.hop_latency_s = r.ranged(at, "hop_latency", r.time(value, at));
    } else {  // nic_ports
      if (!value.is_number_integer()) r.fail(at, "is not a whole number; accepted: 1..64");
      p.nic_ports = static_cast<int>(r.ranged(at, "nic_ports", value.get<double>()));
    }
  }
}

std::uint64_t eager_threshold(const Reader& r, const json& value, const std::string& at) {
  const std::string accepted = std::string("\"none\" (always eager) or ") + mpi::kByteSizeSyntax;
  const std::string& t = r.text(value, at, accepted);
  if (t == "none") return HostCosts::kAlwaysEager;
  const auto bytes = mpi::parse_byte_size(t);
  if (!bytes) r.fail(at, "'" + printable(t) + "' is not a size; accepted: " + accepted);
  return *bytes;
}

void read_reduce(const Reader& r, const json& value, const std::string& at, Machine& m) {
  if (!value.is_object()) {
    m.params.reduce_s_per_byte = r.per_byte(value, at);
    return;
  }
  r.check_keys(value, at, kReduceClasses);
  if (value.empty())
    r.fail(at, "gives no datatype class; accepted: a rate, or rates for " + joined(kReduceClasses));
  for (const auto& [cls, rate] : value.items())
    m.reduce_s_per_byte_by_class[cls] = r.per_byte(rate, at + "." + cls);
}

void read_host(const Reader& r, const json& host, Machine& m) {
  r.check_keys(host, "host", kHostKeys);
  HostCosts& h = m.params.host;
  for (const auto& [key, item] : host.items()) {
    const std::string at = "host." + key;
    const json& value = r.entry(item, at);
    if (key == "step_overhead") m.params.alpha_s = r.time(value, at);
    if (key == "send_overhead") h.send_overhead_s = r.time(value, at);
    if (key == "recv_overhead") h.recv_overhead_s = r.time(value, at);
    if (key == "gap") h.gap_s = r.time(value, at);
    if (key == "step_cpu") h.step_cpu_s = r.time(value, at);
    if (key == "call_overhead") h.call_overhead_s = r.time(value, at);
    if (key == "copy_rate") h.copy_s_per_byte = r.per_byte(value, at);
    if (key == "overhead_rate") h.overhead_s_per_byte = r.per_byte(value, at);
    if (key == "reduce_rate") read_reduce(r, value, at, m);
    if (key == "eager_threshold") h.eager_threshold_bytes = eager_threshold(r, value, at);
    if (key == "rendezvous_overhead") h.rendezvous_s = r.time(value, at);
    if (key == "lent_copy_rate") h.lent_copy_s_per_byte = r.per_byte(value, at);
    if (key == "lent_reduce_rate") h.lent_reduce_s_per_byte = r.per_byte(value, at);
  }
}

int count(const Reader& r, const json& value, const std::string& at, int most) {
  const std::string accepted = "accepted: 1.." + std::to_string(most);
  if (!value.is_number_integer()) r.fail(at, "is not a whole number; " + accepted);
  const auto n = value.get<long long>();
  if (n < 1 || n > most) r.fail(at, std::to_string(n) + " is out of range; " + accepted);
  return static_cast<int>(n);
}

// A calibration's on-node pair (`topocoll calibrate`): its wire values stand for the fabric's
// where the section gives none; its host values are the intra-node host costs.
void read_intra_node(const Reader& r, const json& intra, Machine& m, NodeSpec& spec,
                     double& bandwidth, std::optional<double>& latency) {
  r.check_keys(intra, "nodes.intra_node", kIntraKeys);
  if (intra.contains("network")) {
    const json& network = intra["network"];
    r.check_keys(network, "nodes.intra_node.network", kIntraNetworkKeys);
    for (const auto& [key, item] : network.items()) {
      const std::string at = "nodes.intra_node.network." + key;
      const json& value = r.entry(item, at);
      if (key == "bandwidth")
        bandwidth = r.ranged(at, "bandwidth", r.rate(value, at));
      else
        latency = latency.value_or(0) + r.ranged(at, "latency", r.time(value, at));
    }
  }
  if (intra.contains("host")) {
    const json& host = intra["host"];
    r.check_keys(host, "nodes.intra_node.host", kIntraHostKeys);
    HostCosts h = m.params.host;  // what the pair does not give is the machine's
    for (const auto& [key, item] : host.items()) {
      const std::string at = "nodes.intra_node.host." + key;
      const json& value = r.entry(item, at);
      if (key == "send_overhead") h.send_overhead_s = r.time(value, at);
      if (key == "recv_overhead") h.recv_overhead_s = r.time(value, at);
      if (key == "gap") h.gap_s = r.time(value, at);
      if (key == "copy_rate") h.copy_s_per_byte = r.per_byte(value, at);
      if (key == "eager_threshold") h.eager_threshold_bytes = eager_threshold(r, value, at);
      if (key == "rendezvous_overhead") h.rendezvous_s = r.time(value, at);
    }
    spec.intra_host = h;
  }
}

void read_nodes(const Reader& r, const json& nodes, Machine& m) {
  r.check_keys(nodes, "nodes", kNodeKeys);
  if (nodes.empty()) return;  // {}: one rank per host, as without the section
  NodeSpec spec;
  double intra_bandwidth = 0;
  std::optional<double> intra_latency;
  for (const auto& [key, item] : nodes.items()) {
    const std::string at = "nodes." + key;
    if (key == "intra_node") {
      read_intra_node(r, item, m, spec, intra_bandwidth, intra_latency);
      continue;
    }
    const json& value = r.entry(item, at);
    if (key == "ranks_per_node") spec.ranks_per_node = count(r, value, at, kMaxRanksPerNode);
    if (key == "nics") spec.nics = count(r, value, at, kMaxNicsPerNode);
    if (key == "fabric_bandwidth")
      spec.fabric_bandwidth = r.ranged(at, "bandwidth", r.rate(value, at));
    if (key == "memory_bandwidth")
      spec.memory_bandwidth = r.ranged(at, "bandwidth", r.rate(value, at));
    if (key == "nic_bandwidth") spec.nic_bandwidth = r.ranged(at, "bandwidth", r.rate(value, at));
    if (key == "fabric_latency") spec.fabric_latency = r.ranged(at, "latency", r.time(value, at));
    if (key == "fabric") {
      try {
        spec.fabric = parse_fabric(r.text(value, at, "shared-memory, gpu-mesh, switch"));
      } catch (const UnsupportedRequest& error) {
        r.fail(at, error.what());
      }
    }
    if (key == "mapping") spec.mapping = r.text(value, at, "block, cyclic, file:PATH");
  }
  // The section's own fabric keys win over a calibration's on-node pair.
  if (spec.fabric_bandwidth == 0) spec.fabric_bandwidth = intra_bandwidth;
  if (!spec.fabric_latency) spec.fabric_latency = intra_latency;
  try {
    check_node_spec(spec);
  } catch (const UnsupportedRequest& error) {
    r.fail("nodes", error.what());
  }
  m.nodes = std::move(spec);
}

WorkingSetPoint read_point(const Reader& r, const json& item, const std::string& at) {
  r.check_keys(item, at, kWorkingSetKeys);
  WorkingSetPoint point;
  if (!item.contains("bytes")) r.fail(at, "has no \"bytes\"; accepted: a size such as 1MiB");
  const std::string& size = r.text(item["bytes"], at + ".bytes", mpi::kByteSizeSyntax);
  const auto bytes = mpi::parse_byte_size(size);
  if (!bytes || *bytes == 0)
    r.fail(at + ".bytes", "'" + printable(size) + "' is not a size above 0; accepted: " +
                              std::string(mpi::kByteSizeSyntax));
  point.bytes = *bytes;
  for (const auto& [key, value] : item.items()) {
    const std::string where = at + "." + key;
    if (key == "bandwidth")
      point.values["bandwidth_bytes_per_s"] = r.ranged(where, "bandwidth", r.rate(value, where));
    if (key == "fabric_bandwidth" || key == "memory_bandwidth")
      point.values[key] = r.ranged(where, "bandwidth", r.rate(value, where));
    if (key == "copy_rate") point.values["copy_s_per_byte"] = r.per_byte(value, where);
    if (key == "lent_copy_rate") point.values["lent_copy_s_per_byte"] = r.per_byte(value, where);
    if (key == "lent_reduce_rate")
      point.values["lent_reduce_s_per_byte"] = r.per_byte(value, where);
    if (key != "reduce_rate") continue;
    if (!value.is_object()) {
      point.values["reduce_s_per_byte"] = r.per_byte(value, where);
      continue;
    }
    r.check_keys(value, where, kReduceClasses);
    for (const auto& [cls, rate] : value.items())
      point.values["reduce_s_per_byte:" + cls] = r.per_byte(rate, where + "." + cls);
  }
  if (point.values.empty())
    r.fail(at, "gives no rate; accepted: one or more of " + joined(kWorkingSetKeys));
  return point;
}

// The points of a working-set table, by strictly increasing bytes.
void read_working_set(const Reader& r, const json& item, Machine& m) {
  const json& points = r.entry(item, "working_set");
  if (!points.is_array() || points.empty() || points.size() > kMaxWorkingSetPoints)
    r.fail("working_set",
           "is not a list of 1 to " + std::to_string(kMaxWorkingSetPoints) +
               " points; accepted: [{\"bytes\": \"1MiB\", \"copy_rate\": ...}, ...]");
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::string at = "working_set[" + std::to_string(i) + "]";
    WorkingSetPoint point = read_point(r, points[i], at);
    if (!m.working_set.empty() && point.bytes <= m.working_set.back().bytes)
      r.fail(at + ".bytes", "is not above the previous point's; accepted: increasing sizes");
    m.working_set.push_back(std::move(point));
  }
}

// nlohmann keeps the last of two equal keys: a repeated key is refused instead.
json parse_strict(std::string_view text, const Reader& r) {
  std::vector<std::vector<std::string>> open;
  std::string duplicate;
  const json::parser_callback_t no_duplicates = [&](int, json::parse_event_t event, json& item) {
    if (event == json::parse_event_t::object_start) open.emplace_back();
    if (event == json::parse_event_t::object_end) open.pop_back();
    if (event == json::parse_event_t::key && duplicate.empty()) {
      const auto& key = item.get_ref<const std::string&>();
      if (std::find(open.back().begin(), open.back().end(), key) != open.back().end())
        duplicate = key;
      open.back().push_back(key);
    }
    return true;
  };
  json doc;
  try {
    doc = json::parse(text, no_duplicates);
  } catch (const json::exception& error) {
    r.fail("", std::string("not valid JSON (") + error.what() + ")");
  }
  if (!duplicate.empty())
    r.fail(printable(duplicate), "appears twice in one object; accepted: each key once");
  return doc;
}

}  // namespace

NetworkParams Machine::params_for(std::string_view datatype_class) const {
  NetworkParams p = params;
  if (reduce_s_per_byte_by_class.empty()) return p;
  const auto found = reduce_s_per_byte_by_class.find(datatype_class);
  if (found == reduce_s_per_byte_by_class.end()) {
    std::string classes;
    for (const auto& [cls, _] : reduce_s_per_byte_by_class)
      classes += (classes.empty() ? "" : ", ") + cls;
    throw UnsupportedRequest("machine '" + name + "' gives no reduction rate for datatype class '" +
                             printable(datatype_class) + "'; accepted: " + classes);
  }
  p.reduce_s_per_byte = found->second;
  return p;
}

Machine parse_machine(std::string_view text, std::string_view origin) {
  Machine m;
  const Reader r(origin, m);
  const json doc = parse_strict(text, r);
  r.check_keys(doc, "", kTopKeys);
  read_header(r, doc, m);
  if (doc.contains("network")) read_network(r, doc["network"], m.params);
  if (doc.contains("host")) read_host(r, doc["host"], m);
  if (doc.contains("nodes")) read_nodes(r, doc["nodes"], m);  // after host: intra costs build on it
  if (doc.contains("working_set")) read_working_set(r, doc["working_set"], m);
  return m;
}

Machine read_machine_file(const std::string& path) {
  return parse_machine(read_input_file(path, "machine file", kMaxMachineFileBytes), path);
}

}  // namespace topocoll::topo
