// Python bindings of the network simulator: topologies, parameter presets, routers, mappings,
// the run's configuration (SimConfig, bound whole) and simulate(). Requests the core cannot
// serve raise UnsupportedRequest, which the module's translator turns into a one-line
// ValueError.
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <string>

#include "bindings/bindings.hpp"
#include "core/registry.hpp"
#include "sim/flow_network.hpp"
#include "sim/packet_network.hpp"
#include "sim/run_estimate.hpp"
#include "sim/simulate.hpp"
#include "sim/trace_writer.hpp"
#include "topology/input_file.hpp"
#include "topology/machine_file.hpp"
#include "topology/mapping.hpp"
#include "topology/node_network.hpp"
#include "topology/node_spec.hpp"
#include "topology/parameter_ranges.hpp"
#include "topology/params.hpp"
#include "topology/routing.hpp"
#include "topology/topology.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace topocoll::bindings {
namespace {

std::string model_name(sim::Model model) {
  switch (model) {
    case sim::Model::analytic: return "analytic";
    case sim::Model::flow: return "flow";
    case sim::Model::packet: return "packet";
    case sim::Model::simgrid: return "simgrid";
  }
  return "flow";
}

sim::Model model_from(const std::string& name) {
  if (name == "analytic") return sim::Model::analytic;
  if (name == "flow") return sim::Model::flow;
  if (name == "packet") return sim::Model::packet;
  if (name == "simgrid") return sim::Model::simgrid;
  throw UnsupportedRequest("unknown model '" + name +
                           "'; accepted: analytic, flow, packet, simgrid");
}

// Python strings may hold NUL characters, which a C++ path or a message would cut short.
void check_text(const std::string& value, const char* what) {
  if (value.find('\0') != std::string::npos) {
    throw UnsupportedRequest(std::string(what) + " '" + topo::printable(value) +
                             "' contains a NUL character");
  }
}

// The packet model's sizes against the parameter table (the model checks them again).
void check_packet_sizes(std::uint64_t mtu, std::uint64_t header, std::uint64_t buffer) {
  topo::check_parameter("mtu", static_cast<double>(mtu));
  topo::check_parameter("header", static_cast<double>(header));
  topo::check_parameter("buffer", static_cast<double>(buffer));
  if (buffer < mtu + header) {
    throw UnsupportedRequest("--buffer " + std::to_string(buffer) +
                             " B is out of range; accepted: one packet (mtu + header = " +
                             std::to_string(mtu + header) + " B) to 1GiB");
  }
}

nb::dict params_dict(const topo::NetworkParams& p) {
  nb::dict d;
  d["bandwidth_bytes_per_s"] = p.bandwidth_bytes_per_s;
  d["link_latency_s"] = p.link_latency_s;
  d["hop_latency_s"] = p.hop_latency_s;
  d["alpha_s"] = p.alpha_s;
  d["reduce_s_per_byte"] = p.reduce_s_per_byte;
  d["nic_ports"] = p.nic_ports;
  // Host costs, flat (Setup.params in python/topocoll/simulation.py keeps them as pairs too);
  // an always-eager threshold is -1, which JSON and a tuple of numbers can hold.
  d["send_overhead_s"] = p.host.send_overhead_s;
  d["recv_overhead_s"] = p.host.recv_overhead_s;
  d["gap_s"] = p.host.gap_s;
  d["copy_s_per_byte"] = p.host.copy_s_per_byte;
  d["overhead_s_per_byte"] = p.host.overhead_s_per_byte;
  d["step_cpu_s"] = p.host.step_cpu_s;
  d["call_overhead_s"] = p.host.call_overhead_s;
  d["rendezvous_s"] = p.host.rendezvous_s;
  d["lent_copy_s_per_byte"] = p.host.lent_copy_s_per_byte;
  d["lent_reduce_s_per_byte"] = p.host.lent_reduce_s_per_byte;
  d["eager_threshold_bytes"] = p.host.eager_threshold_bytes == topo::HostCosts::kAlwaysEager
                                   ? -1.0
                                   : static_cast<double>(p.host.eager_threshold_bytes);
  return d;
}

// Per host, what it can inject for a collective (Topology::host_injection_bandwidth): what
// bounds a collective's bandwidth term.
std::vector<double> host_bandwidths(const topo::Topology& t) {
  std::vector<double> result(static_cast<std::size_t>(t.host_count()));
  for (int h = 0; h < t.host_count(); ++h)
    result[static_cast<std::size_t>(h)] = t.host_injection_bandwidth(h);
  return result;
}

// The smallest host bandwidth over the hosts that run a rank.
double min_host_bandwidth(const topo::Topology& t, const std::vector<int>& hosts) {
  const std::vector<double> bandwidth = host_bandwidths(t);
  double smallest = std::numeric_limits<double>::infinity();
  for (int h : hosts) smallest = std::min(smallest, bandwidth.at(static_cast<std::size_t>(h)));
  return hosts.empty() ? 0.0 : smallest;
}

nb::dict result_dict(const sim::SimResult& r, const topo::Topology& t, bool with_links) {
  nb::dict d;
  d["time_s"] = r.time_s;
  d["goodput_gbps"] = r.goodput_gbps;
  d["messages"] = r.messages;
  d["transfers"] = r.transfers;
  d["max_link_utilization"] = r.max_link_utilization;
  d["mean_link_utilization"] = r.mean_link_utilization;
  d["rank_finish_s"] = r.rank_finish_s;
  d["symmetry_group"] = r.symmetry_group;
  if (with_links) {
    nb::list links;
    for (const auto& u : r.links) {
      const auto& link = t.links().at(static_cast<std::size_t>(u.link));
      nb::dict row;
      row["link"] = u.link;
      row["label"] = link.label;
      row["kind"] = std::string(topo::link_kind_name(link.kind));  // network, nic, intra-node
      row["from"] = link.from;
      row["to"] = link.to;
      row["bytes"] = u.bytes;
      row["busy_s"] = u.busy_s;
      row["utilization"] = r.time_s > 0 ? u.busy_s / r.time_s : 0.0;
      links.append(row);
    }
    d["links"] = links;
  }
  return d;
}

// The checks every run's configuration gets before the engine sees it.
void check_config(const sim::SimConfig& config) {
  check_text(config.trace_path, "trace path");
  if (config.model == sim::Model::packet) {
    check_packet_sizes(config.packet.mtu_bytes, config.packet.header_bytes,
                       config.packet.buffer_bytes);
    sim::check_packet_params(config.packet);
  }
  topo::check_parameter("size", static_cast<double>(config.vector_bytes), "vector_bytes");
  if (config.element_bytes < 1 ||
      static_cast<std::uint64_t>(config.element_bytes) > config.vector_bytes) {
    throw UnsupportedRequest("element_bytes = " + std::to_string(config.element_bytes) +
                             " is out of range; accepted: 1..vector_bytes");
  }
}

// One run: the engine's result with the definitions of size, goodput and peak, which live here
// only. The size is the largest buffer of the MPI call (P x count for the chunked collectives,
// whose vector_bytes is the per-rank count); goodput = size x 8 / time; peak goodput = the
// bandwidth bound, the smallest host bandwidth H of the job over f(P) (bandwidth_factor).
nb::dict simulate_config(const Schedule& schedule, const topo::Topology& topology,
                         const topo::Router& router, const topo::Mapping& placed,
                         const sim::SimConfig& config) {
  check_config(config);
  sim::SimResult result;
  {
    nb::gil_scoped_release release;
    result = sim::simulate(schedule, topology, router, placed, config);
  }
  nb::dict d = result_dict(result, topology, config.record_links);
  const Collective collective = schedule.info().collective;
  const int ranks = schedule.ranks();
  const double size =
      static_cast<double>(config.vector_bytes) * (is_chunked_per_rank(collective) ? ranks : 1);
  const double host = min_host_bandwidth(topology, placed.host_of);
  const double factor = bandwidth_factor(collective, ranks);
  d["host_of"] = placed.host_of;
  d["size_bytes"] = static_cast<std::uint64_t>(size);
  d["goodput_gbps"] = result.time_s > 0 ? size * 8 / result.time_s / 1e9 : 0.0;
  d["host_bandwidth_bytes_per_s"] = host;
  d["peak_goodput_gbps"] = factor > 0 ? host * 8 / 1e9 / factor : 0.0;
  return d;
}

topo::Mapping place(const std::string& spec, int ranks, const topo::Topology& topology) {
  check_text(spec, "mapping");
  return topo::make_mapping(spec, ranks, topology);
}

nb::dict run_simulation(const Schedule& schedule, const topo::Topology& topology,
                        const topo::Router& router, const std::string& mapping,
                        const std::string& model, std::uint64_t vector_bytes, int element_bytes,
                        bool record_links, const std::string& trace_path, std::uint64_t mtu,
                        std::uint64_t header, std::uint64_t buffer, bool symmetry,
                        double global_load) {
  sim::SimConfig config;
  config.global_load = global_load;
  config.use_symmetry = symmetry;
  config.model = model_from(model);
  config.packet = {mtu, header, buffer};
  config.vector_bytes = vector_bytes;
  config.element_bytes = element_bytes;
  config.record_links = record_links;
  config.trace_path = trace_path;
  return simulate_config(schedule, topology, router, place(mapping, schedule.ranks(), topology),
                         config);
}

nb::dict estimate_config(const Schedule& schedule, const topo::Topology& topology,
                         const topo::Router& router, const topo::Mapping& placed,
                         sim::SimConfig config, bool search) {
  topo::check_parameter("size", static_cast<double>(config.vector_bytes), "vector_bytes");
  topo::check_parameter("mtu", static_cast<double>(config.packet.mtu_bytes));
  if (config.element_bytes < 1 ||
      static_cast<std::uint64_t>(config.element_bytes) > config.vector_bytes) {
    throw UnsupportedRequest("element_bytes = " + std::to_string(config.element_bytes) +
                             " is out of range; accepted: 1..vector_bytes");
  }
  if (!config.trace_path.empty()) config.trace_path = "trace";  // a traced run: every rank
  sim::RunEstimate e;
  {
    nb::gil_scoped_release release;
    e = sim::estimate_run(schedule, topology, router, placed, config, search);
  }
  nb::dict d;
  d["ranks"] = e.ranks;
  d["rank_steps"] = e.rank_steps;
  d["max_steps"] = e.max_steps;
  d["messages"] = e.messages;
  d["transfers"] = e.transfers;
  d["link_crossings"] = e.link_crossings;
  d["groups"] = e.groups;
  d["group_crossings"] = e.group_crossings;
  d["peak_groups"] = e.peak_groups;
  d["peak_group_crossings"] = e.peak_group_crossings;
  d["packets"] = e.packets;
  d["packet_hops"] = e.packet_hops;
  d["flow_work"] = e.flow_work;
  d["event_work"] = e.event_work;
  d["drift_work"] = e.drift_work;
  d["symmetry_group"] = e.symmetry_group;
  d["time_lower_bound_s"] = e.time_lower_bound_s;
  d["drifts"] = e.drifts;
  d["symmetry_search"] = e.symmetry_search;
  d["symmetry_known"] = e.symmetry_known;
  d["packet_work"] = e.packet_work;
  d["max_hops"] = e.max_hops;
  d["route_pairs"] = e.route_pairs;
  d["route_paths"] = e.route_paths;
  d["route_links"] = e.route_links;
  d["peak_transfers"] = e.peak_transfers;
  d["peak_crossings"] = e.peak_crossings;
  d["sampled_steps"] = e.sampled_steps;
  d["exact"] = e.exact;
  return d;
}

nb::dict run_estimate(const Schedule& schedule, const topo::Topology& topology,
                      const topo::Router& router, const std::string& mapping,
                      const std::string& model, std::uint64_t vector_bytes, int element_bytes,
                      std::uint64_t mtu, bool trace, bool symmetry, bool search) {
  sim::SimConfig config;
  config.model = model_from(model);
  config.vector_bytes = vector_bytes;
  config.element_bytes = element_bytes;
  config.packet.mtu_bytes = mtu;
  config.use_symmetry = symmetry;
  if (trace) config.trace_path = "trace";
  return estimate_config(schedule, topology, router, place(mapping, schedule.ranks(), topology),
                         config, search);
}

// The run's configuration, bound whole (src/sim/simulate.hpp): the Python package fills one from
// its options and passes it to simulate and estimate_simulation. A new knob of SimConfig is one
// line here.
void bind_config(nb::module_& m) {
  nb::class_<sim::SimConfig>(m, "SimConfig")
      .def(nb::init<>())
      .def_prop_rw(
          "model", [](const sim::SimConfig& c) { return model_name(c.model); },
          [](sim::SimConfig& c, const std::string& name) { c.model = model_from(name); })
      .def_rw("vector_bytes", &sim::SimConfig::vector_bytes)
      .def_rw("element_bytes", &sim::SimConfig::element_bytes)
      .def_rw("record_links", &sim::SimConfig::record_links)
      .def_rw("trace_path", &sim::SimConfig::trace_path)
      .def_rw("use_symmetry", &sim::SimConfig::use_symmetry)
      .def_prop_rw(
          "mtu", [](const sim::SimConfig& c) { return c.packet.mtu_bytes; },
          [](sim::SimConfig& c, std::uint64_t v) { c.packet.mtu_bytes = v; })
      .def_prop_rw(
          "header", [](const sim::SimConfig& c) { return c.packet.header_bytes; },
          [](sim::SimConfig& c, std::uint64_t v) { c.packet.header_bytes = v; })
      .def_prop_rw(
          "buffer", [](const sim::SimConfig& c) { return c.packet.buffer_bytes; },
          [](sim::SimConfig& c, std::uint64_t v) { c.packet.buffer_bytes = v; })
      .def_rw("global_load", &sim::SimConfig::global_load)
      .def_rw("message_per_range", &sim::SimConfig::message_per_range)
      .def_rw("in_place", &sim::SimConfig::in_place);
  nb::class_<topo::Mapping>(m, "Mapping").def_ro("host_of", &topo::Mapping::host_of);
  m.def("place", &place, "spec"_a, "ranks"_a, "topology"_a);
}

// Nodes of several ranks (docs/nodes.md): the spec, bound field by field, and the network the
// engines run on with it (the plain network when the spec changes nothing).
void bind_nodes(nb::module_& m) {
  nb::class_<topo::NodeSpec>(m, "NodeSpec")
      .def(nb::init<>())
      .def_rw("ranks_per_node", &topo::NodeSpec::ranks_per_node)
      .def_prop_rw(
          "mapping", [](const topo::NodeSpec& s) { return s.mapping; },
          [](topo::NodeSpec& s, const std::string& v) {
            check_text(v, "node mapping");
            s.mapping = v;
          })
      .def_prop_rw(
          "fabric",
          [](const topo::NodeSpec& s) { return std::string(topo::fabric_name(s.fabric)); },
          [](topo::NodeSpec& s, const std::string& v) {
            check_text(v, "fabric");
            s.fabric = topo::parse_fabric(v);
          })
      .def_rw("fabric_bandwidth", &topo::NodeSpec::fabric_bandwidth)
      .def_rw("memory_bandwidth", &topo::NodeSpec::memory_bandwidth)
      .def_rw("nic_bandwidth", &topo::NodeSpec::nic_bandwidth)
      .def_rw("fabric_latency", &topo::NodeSpec::fabric_latency)
      .def_rw("nics", &topo::NodeSpec::nics)
      .def_rw("intra_host", &topo::NodeSpec::intra_host)
      .def("trivial", &topo::NodeSpec::trivial);
  m.def("check_node_spec", &topo::check_node_spec, "spec"_a);
  m.attr("MAX_RANKS_PER_NODE") = topo::kMaxRanksPerNode;
  nb::class_<topo::NodeNetwork>(m, "NodeNetwork")
      .def(
          "__init__",
          [](topo::NodeNetwork* self, const topo::Topology& network, const topo::Router& router,
             const topo::NodeSpec& spec) {
            topo::check_node_spec(spec);
            new (self) topo::NodeNetwork(network, router, spec);
          },
          "network"_a, "router"_a, "spec"_a, nb::keep_alive<1, 2>(), nb::keep_alive<1, 3>())
      .def_prop_ro("has_nodes", &topo::NodeNetwork::has_nodes)
      .def_prop_ro("topology", &topo::NodeNetwork::topology, nb::rv_policy::reference_internal)
      .def_prop_ro("router", &topo::NodeNetwork::router, nb::rv_policy::reference_internal)
      .def(
          "mapping", [](const topo::NodeNetwork& net, int ranks) { return net.mapping(ranks); },
          "ranks"_a);
}

void bind_machine(nb::module_& m) {
  nb::class_<topo::Machine>(m, "Machine")
      .def_ro("nodes", &topo::Machine::nodes)
      .def_ro("name", &topo::Machine::name)
      .def_ro("description", &topo::Machine::description)
      .def_ro("topology", &topo::Machine::topology)
      .def_ro("params", &topo::Machine::params)
      .def_ro("reduce_s_per_byte_by_class", &topo::Machine::reduce_s_per_byte_by_class)
      .def_ro("sources", &topo::Machine::sources)
      // [(bytes, {field: value})], by increasing bytes (topo::WorkingSetPoint)
      .def_prop_ro("working_set",
                   [](const topo::Machine& machine) {
                     std::vector<std::pair<std::uint64_t, std::map<std::string, double>>> out;
                     for (const auto& point : machine.working_set)
                       out.emplace_back(point.bytes, std::map<std::string, double>(
                                                         point.values.begin(), point.values.end()));
                     return out;
                   })
      .def(
          "params_for",
          [](const topo::Machine& machine, const std::string& datatype_class) {
            check_text(datatype_class, "datatype class");
            return machine.params_for(datatype_class);
          },
          "datatype_class"_a);
  m.def(
      "read_machine_file",
      [](const std::string& path) {
        check_text(path, "machine file");
        return topo::read_machine_file(path);
      },
      "path"_a);
  m.def(
      "parse_machine",
      [](const std::string& text, const std::string& origin) {
        check_text(origin, "machine file name");
        return topo::parse_machine(text, origin);
      },
      "text"_a, "origin"_a = "<text>");
}

void bind_params(nb::module_& m) {
  nb::class_<topo::HostCosts>(m, "HostCosts")
      .def(nb::init<>())
      .def_rw("send_overhead_s", &topo::HostCosts::send_overhead_s)
      .def_rw("recv_overhead_s", &topo::HostCosts::recv_overhead_s)
      .def_rw("gap_s", &topo::HostCosts::gap_s)
      .def_rw("copy_s_per_byte", &topo::HostCosts::copy_s_per_byte)
      .def_rw("overhead_s_per_byte", &topo::HostCosts::overhead_s_per_byte)
      .def_rw("step_cpu_s", &topo::HostCosts::step_cpu_s)
      .def_rw("call_overhead_s", &topo::HostCosts::call_overhead_s)
      .def_rw("rendezvous_s", &topo::HostCosts::rendezvous_s)
      .def_rw("lent_copy_s_per_byte", &topo::HostCosts::lent_copy_s_per_byte)
      .def_rw("lent_reduce_s_per_byte", &topo::HostCosts::lent_reduce_s_per_byte)
      .def_rw("eager_threshold_bytes", &topo::HostCosts::eager_threshold_bytes)
      .def_prop_ro("idle", &topo::HostCosts::idle);
  m.attr("ALWAYS_EAGER") = topo::HostCosts::kAlwaysEager;
  nb::class_<topo::NetworkParams>(m, "NetworkParams")
      .def(nb::init<>())
      .def_rw("bandwidth_bytes_per_s", &topo::NetworkParams::bandwidth_bytes_per_s)
      .def_rw("link_latency_s", &topo::NetworkParams::link_latency_s)
      .def_rw("hop_latency_s", &topo::NetworkParams::hop_latency_s)
      .def_rw("alpha_s", &topo::NetworkParams::alpha_s)
      .def_rw("reduce_s_per_byte", &topo::NetworkParams::reduce_s_per_byte)
      .def_rw("nic_ports", &topo::NetworkParams::nic_ports)
      .def_rw("host", &topo::NetworkParams::host)
      .def("to_dict", &params_dict);
  m.def(
      "network_preset",
      [](const std::string& name) {
        check_text(name, "preset");
        return topo::preset_params(name);
      },
      "name"_a);
  m.def("parameter_ranges", [] {
    nb::list out;
    for (const topo::ParameterRange& r : topo::parameter_ranges()) {
      nb::dict d;
      d["name"] = std::string(r.name);
      d["option"] = std::string(r.option);
      d["low"] = r.low;
      d["high"] = r.high;
      d["unit"] = std::string(r.unit);
      d["integer"] = r.integer;
      d["accepted"] = std::string(r.accepted);
      d["why"] = std::string(r.why);
      out.append(d);
    }
    return out;
  });
  m.def(
      "check_parameter",
      [](const std::string& name, double value, const std::string& what) {
        return topo::check_parameter(name, value, what);
      },
      "name"_a, "value"_a, "what"_a = "");
  m.def("network_preset_names", [] { return topo::preset_names(); });
}

void bind_topology(nb::module_& m) {
  nb::class_<topo::Topology>(m, "Topology")
      .def_prop_ro("spec", &topo::Topology::spec)
      .def_prop_ro("hosts", &topo::Topology::host_count)
      .def_prop_ro("nodes", &topo::Topology::node_count)
      .def_prop_ro("link_count",
                   [](const topo::Topology& t) { return static_cast<int>(t.links().size()); })
      .def_prop_ro("grid_dims", &topo::Topology::grid_dims)
      .def_prop_ro("params", [](const topo::Topology& t) { return params_dict(t.params()); })
      .def("host_bandwidths", &host_bandwidths)
      .def("link_label", [](const topo::Topology& t, int link) {
        if (link < 0 || link >= static_cast<int>(t.links().size()))
          throw UnsupportedRequest("link " + std::to_string(link) + " out of range");
        return t.links()[static_cast<std::size_t>(link)].label;
      });
  m.def(
      "make_topology",
      [](const std::string& spec, const topo::NetworkParams& params) {
        check_text(spec, "topology");
        return topo::make_topology(spec, params);
      },
      "spec"_a, "params"_a = topo::NetworkParams{});
  m.def("topology_help", &topo::topology_spec_help);

  nb::class_<topo::Router>(m, "Router").def_prop_ro("name", &topo::Router::name);
  m.def(
      "make_router",
      [](const topo::Topology& t, const std::string& routing) {
        check_text(routing, "routing");
        return topo::make_router(t, routing);
      },
      "topology"_a, "routing"_a = "minimal", nb::keep_alive<0, 1>());
  m.def(
      "make_mapping",
      [](const std::string& spec, int ranks, const topo::Topology& t) {
        check_text(spec, "mapping");
        return topo::make_mapping(spec, ranks, t).host_of;
      },
      "spec"_a, "ranks"_a, "topology"_a);
}

}  // namespace

void bind_simulator(nb::module_& m) {
  bind_params(m);
  bind_nodes(m);
  bind_machine(m);
  bind_topology(m);
  bind_config(m);
  m.def("simulate", &simulate_config, "schedule"_a, "topology"_a, "router"_a, "mapping"_a,
        "config"_a);
  m.def("estimate_simulation", &estimate_config, "schedule"_a, "topology"_a, "router"_a,
        "mapping"_a, "config"_a, "search"_a = true);
  m.def("simulate", &run_simulation, "schedule"_a, "topology"_a, "router"_a, "mapping"_a = "linear",
        "model"_a = "flow", "vector_bytes"_a, "element_bytes"_a = 1, "record_links"_a = false,
        "trace_path"_a = "", "mtu"_a = sim::PacketParams{}.mtu_bytes,
        "header"_a = sim::PacketParams{}.header_bytes,
        "buffer"_a = sim::PacketParams{}.buffer_bytes, "symmetry"_a = true, "global_load"_a = 0.0);
  m.def("estimate_simulation", &run_estimate, "schedule"_a, "topology"_a, "router"_a,
        "mapping"_a = "linear", "model"_a = "flow", "vector_bytes"_a, "element_bytes"_a = 1,
        "mtu"_a = sim::PacketParams{}.mtu_bytes, "trace"_a = false, "symmetry"_a = true,
        "search"_a = true);
  m.attr("MAX_TRACE_MESSAGES") = sim::TraceWriter::kMaxSlices;
  m.attr("ESTIMATE_SYMMETRY_WORK") = sim::kEstimateSymmetryWork;
  m.attr("MAX_GLOBAL_LOAD") = sim::kMaxGlobalLoad;
}

}  // namespace topocoll::bindings
