// Python binding of the packet-level in-network allreduce simulator (src/sim/innet):
// innet_run(topology, options) -> dict. Bad requests raise ValueError (UnsupportedRequest).
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>

#include "bindings/bindings.hpp"
#include "core/registry.hpp"
#include "sim/innet/bounds.hpp"
#include "sim/innet/engine.hpp"
#include "topology/fattree.hpp"
#include "topology/topology.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace topocoll::bindings {
namespace {

using sim::innet::Algorithm;
using sim::innet::BackgroundRouting;
using sim::innet::InnetConfig;
using sim::innet::InnetResult;
using sim::innet::TableIndex;

template <typename T>
T option(const nb::dict& d, const char* key, T fallback) {
  return d.contains(key) ? nb::cast<T>(d[key]) : fallback;
}

Algorithm parse_algorithm(const std::string& name, int& trees) {
  if (name == "canary") return Algorithm::canary;
  if (name == "ring") return Algorithm::ring;
  if (name.rfind("static-", 0) == 0) {
    const std::string n = name.substr(7);
    if (!n.empty() && n.size() < 5 && n.find_first_not_of("0123456789") == std::string::npos &&
        std::stoi(n) >= 1) {
      trees = std::stoi(n);
      return Algorithm::static_trees;
    }
  }
  throw UnsupportedRequest("unknown algorithm '" + name +
                           "'; accepted: canary, static-N (N >= 1 static trees), ring");
}

// "spine3", "leaf0" or a switch index (0 = the first switch after the hosts).
int switch_node(const topo::Topology& t, const std::string& name) {
  const auto* ft = dynamic_cast<const topo::FatTreeTopology*>(&t);
  const int switches = t.node_count() - t.host_count();
  auto number = [&](const std::string& s) {
    if (s.empty() || s.size() > 7 || s.find_first_not_of("0123456789") != std::string::npos)
      throw UnsupportedRequest("switch '" + name +
                               "' not understood; accepted: leafN, spineN or a switch index 0.." +
                               std::to_string(switches - 1));
    return std::stoi(s);
  };
  int index = 0;
  if (name.rfind("leaf", 0) == 0 && ft) {
    index = number(name.substr(4));
    if (index >= ft->shape().leaves) index = switches;  // out of range below
  } else if (name.rfind("spine", 0) == 0 && ft) {
    index = number(name.substr(5));
    index = index >= ft->shape().aggs ? switches : ft->shape().leaves + index;
  } else {
    index = number(name);
  }
  if (index >= switches)
    throw UnsupportedRequest("switch '" + name + "' out of range; accepted: leaf0..leaf" +
                             std::to_string(ft ? ft->shape().leaves - 1 : 0) + ", spine0..spine" +
                             std::to_string(ft ? ft->shape().aggs - 1 : 0) + " or 0.." +
                             std::to_string(switches - 1));
  return t.host_count() + index;
}

// A link by its label ("leaf0->spine1") or index; the checks of run_innet name what fails.
int link_id(const topo::Topology& t, const std::string& name) {
  for (std::size_t l = 0; l < t.links().size(); ++l)
    if (t.links()[l].label == name) return static_cast<int>(l);
  const bool digits = !name.empty() && name.size() <= 9 &&
                      name.find_first_not_of("0123456789") == std::string::npos;
  if (!digits)
    throw UnsupportedRequest("link '" + name +
                             "' not understood; accepted: a link label such as leaf0->spine1, or "
                             "a link index 0.." +
                             std::to_string(t.links().size() - 1));
  return std::stoi(name);
}

TableIndex parse_table_index(const std::string& name) {
  if (name == "static") return TableIndex::static_slots;
  if (name == "switch-hash") return TableIndex::per_switch_hash;
  if (name == "shared-hash") return TableIndex::shared_hash;
  throw UnsupportedRequest("--table-index '" + name +
                           "' unknown; accepted: static, switch-hash, shared-hash");
}

BackgroundRouting parse_background_routing(const std::string& name) {
  if (name == "adaptive") return BackgroundRouting::adaptive;
  if (name == "ecmp") return BackgroundRouting::ecmp;
  if (name == "default") return BackgroundRouting::default_port;
  throw UnsupportedRequest("--background-routing '" + name +
                           "' unknown; accepted: default, ecmp, adaptive");
}

nb::dict result_dict(const InnetResult& r) {
  nb::dict d;
  d["completed"] = r.completed;
  d["exact"] = r.exact;
  d["time_s"] = r.time_s;
  d["goodput_gbps"] = r.goodput_gbps;
  d["tenant_time_s"] = r.tenant_time_s;
  d["events"] = r.events;
  d["packets_sent"] = r.packets_sent;
  d["aggregated"] = r.aggregated;
  d["to_leader"] = r.to_leader;
  d["collisions"] = r.collisions;
  d["stragglers"] = r.stragglers;
  d["retransmissions"] = r.retransmissions;
  d["restarts"] = r.restarts;
  d["fallbacks"] = r.fallbacks;
  d["drops"] = r.drops;
  d["mismatches"] = r.mismatches;
  d["peak_packets"] = r.peak_packets;
  d["rto_s"] = r.rto_s;
  d["max_block_rtt_s"] = r.max_block_rtt_s;
  d["mean_link_utilization"] = r.mean_link_utilization;
  nb::dict wait, background;
  const char* hops[] = {"host-leaf", "leaf-spine", "spine-leaf", "leaf-host"};
  for (int h = 0; h < 4; ++h) {
    wait[hops[h]] = r.allreduce_wait_s[h];
    background[hops[h]] = r.background_wait_s[h];
  }
  d["allreduce_wait_s"] = wait;
  d["background_wait_s"] = background;
  nb::list links;
  for (const auto& l : r.links) {
    nb::dict row;
    row["link"] = l.link;
    row["bytes"] = l.bytes;
    row["utilization"] = l.utilization;
    links.append(row);
  }
  d["links"] = links;
  return d;
}

InnetConfig config_from(const topo::Topology& topology, const std::string& algorithm,
                        const nb::dict& o) {
  InnetConfig c;
  c.algorithm = parse_algorithm(algorithm, c.trees);
  c.hosts = option<int>(o, "hosts", topology.host_count() / 2);
  c.tenants = option<int>(o, "tenants", 1);
  c.size_bytes = option<std::uint64_t>(o, "size_bytes", c.size_bytes);
  c.elements_per_packet = option<int>(o, "elements_per_packet", c.elements_per_packet);
  c.buffer_bytes = option<std::uint64_t>(o, "buffer_bytes", c.buffer_bytes);
  c.lossless = option<bool>(o, "lossless", c.lossless);
  c.ecmp = option<bool>(o, "ecmp", c.ecmp);
  c.congestion = option<bool>(o, "congestion", c.congestion);
  c.background_permutation = option<bool>(o, "permutation", c.background_permutation);
  c.input_credits = option<bool>(o, "input_credits", c.input_credits);
  c.timeout_s = option<double>(o, "timeout_s", c.timeout_s);
  c.rto_s = option<double>(o, "rto_s", c.rto_s);
  c.adaptive_rto = option<bool>(o, "adaptive_rto", c.adaptive_rto);
  c.max_attempts = option<int>(o, "max_attempts", c.max_attempts);
  c.table_entries = option<int>(o, "table_entries", c.table_entries);
  if (o.contains("table_index"))
    c.table_index = parse_table_index(nb::cast<std::string>(o["table_index"]));
  if (o.contains("background_routing"))
    c.background_routing = parse_background_routing(nb::cast<std::string>(o["background_routing"]));
  c.background_load = option<double>(o, "background_load", c.background_load);
  c.background_message_bytes =
      option<std::uint64_t>(o, "background_message_bytes", c.background_message_bytes);
  c.window_blocks = option<int>(o, "window", c.window_blocks);
  c.force = option<bool>(o, "force", c.force);
  c.partition_table = option<bool>(o, "partition_table", c.partition_table);
  c.drop_probability = option<double>(o, "drop", c.drop_probability);
  c.noise_probability = option<double>(o, "noise", c.noise_probability);
  c.max_time_s = option<double>(o, "max_time_s", c.max_time_s);
  c.seed = option<std::uint64_t>(o, "seed", c.seed);
  c.link_stats = option<bool>(o, "links", false);
  const auto switches = option<std::vector<std::string>>(o, "fail_switches", {});
  const auto times = option<std::vector<double>>(o, "fail_times", {});
  if (switches.size() != times.size()) throw UnsupportedRequest("one failure time per switch");
  for (std::size_t i = 0; i < switches.size(); ++i)
    c.faults.push_back(sim::innet::Fault{switch_node(topology, switches[i]), -1, times[i]});
  const auto links = option<std::vector<std::string>>(o, "fail_links", {});
  const auto link_times = option<std::vector<double>>(o, "fail_link_times", {});
  if (links.size() != link_times.size()) throw UnsupportedRequest("one failure time per link");
  for (std::size_t i = 0; i < links.size(); ++i)
    c.faults.push_back(sim::innet::Fault{-1, link_id(topology, links[i]), link_times[i]});
  return c;
}

nb::dict innet_run(const topo::Topology& topology, const std::string& algorithm,
                   const nb::dict& o) {
  const InnetConfig c = config_from(topology, algorithm, o);
  InnetResult r;
  {
    nb::gil_scoped_release release;
    r = sim::innet::run_innet(topology, c);
  }
  return result_dict(r);
}

}  // namespace

void bind_innet(nb::module_& m) {
  m.def("innet_run", &innet_run, "topology"_a, "algorithm"_a, "options"_a = nb::dict());
  m.def(
      "innet_check",
      [](const topo::Topology& t, const std::string& algorithm, const nb::dict& o) {
        (void)sim::innet::check_innet(t, config_from(t, algorithm, o));
      },
      "topology"_a, "algorithm"_a, "options"_a = nb::dict());
  m.def(
      "innet_estimate",
      [](const topo::Topology& t, const std::string& algorithm, const nb::dict& o) {
        InnetConfig c = config_from(t, algorithm, o);
        c.force = true;  // the figures, whatever they are
        const auto& tree = sim::innet::check_innet(t, c);
        const auto e = sim::innet::estimate_innet(tree, c);
        nb::dict d;
        d["memory_bytes"] = e.memory_bytes;
        d["events"] = e.events;
        d["seconds"] = e.seconds;
        d["rto_s"] = sim::innet::base_rto_s(tree, c);
        d["horizon_s"] = sim::innet::horizon_s(tree, c);
        return d;
      },
      "topology"_a, "algorithm"_a, "options"_a = nb::dict());
}

}  // namespace topocoll::bindings
