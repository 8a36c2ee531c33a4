#pragma once
// Hand-built networks and schedules for the simulator tests: links and routes spelled out,
// so that each expected time is a closed form computed in the test.
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/registry.hpp"
#include "core/schedule.hpp"
#include "sim/simulate.hpp"
#include "topology/mapping.hpp"
#include "topology/routing.hpp"
#include "topology/topology.hpp"

namespace topocoll::sim::testing {

// Hosts only, joined by the directed links the test adds.
class HandNetwork final : public topo::Topology {
 public:
  HandNetwork(int hosts, topo::NetworkParams params) : Topology("hand", params) {
    for (int h = 0; h < hosts; ++h) add_node(true);
  }
  int link(int from, int to, double bandwidth, double latency) {
    return add_link(from, to, bandwidth, latency, "l" + std::to_string(links().size()));
  }
};

// Routes given per (src, dst) as lists of (links, share).
class HandRouter final : public topo::Router {
 public:
  void set(int src, int dst, std::vector<std::pair<std::vector<int>, double>> paths) {
    routes_[{src, dst}] = std::move(paths);
  }
  void route_set(int src, int dst, topo::RouteSet& out) const override {
    out.clear();
    for (const auto& [links, share] : routes_.at({src, dst})) {
      out.links.insert(out.links.end(), links.begin(), links.end());
      out.close_path(share);
    }
  }
  [[nodiscard]] std::string name() const override { return "hand"; }

 private:
  std::map<std::pair<int, int>, std::vector<std::pair<std::vector<int>, double>>> routes_;
};

inline topo::Mapping linear(int ranks) {
  topo::Mapping m;
  for (int r = 0; r < ranks; ++r) m.host_of.push_back(r);
  return m;
}

// A schedule of `ranks` ranks over `blocks` one-byte blocks (allreduce layout), steps given.
inline ExplicitSchedule hand_schedule(int blocks, std::vector<std::vector<Step>> steps) {
  ScheduleInfo info;
  info.collective = Collective::allreduce;
  info.algorithm = "hand";
  info.ranks = static_cast<int>(steps.size());
  info.blocks = blocks;
  return ExplicitSchedule(info, std::move(steps));
}

inline Step step(std::vector<Operation> ops) { return Step{std::move(ops)}; }

// Two hosts, one link each way (bandwidth in bytes per second, latency in seconds).
struct HandPair {
  HandNetwork net;
  HandRouter router;
  HandPair(const topo::NetworkParams& p, double bandwidth, double latency, double back_latency)
      : net(2, p) {
    router.set(0, 1, {{{net.link(0, 1, bandwidth, latency)}, 1.0}});
    router.set(1, 0, {{{net.link(1, 0, bandwidth, back_latency)}, 1.0}});
  }
};

// Rank 0 sends `blocks` to rank 1, which receives them with `combine`.
inline ExplicitSchedule one_send(const BlockSet& blocks, int block_count, Combine combine) {
  return hand_schedule(block_count, {{step({Operation::send(1, blocks)})},
                                     {step({Operation::recv(0, blocks, combine)})}});
}

// In place: the hand-computed cases count the schedule's own costs, not the copies an
// out-of-place call adds (call_copies_test.cpp has those).
inline SimConfig config(Model model, std::uint64_t bytes) {
  SimConfig c;
  c.model = model;
  c.vector_bytes = bytes;
  c.in_place = true;
  return c;
}

// Links with no latency: times are then bandwidth terms alone.
inline topo::NetworkParams quiet() {
  topo::NetworkParams p;
  p.link_latency_s = 0;
  p.hop_latency_s = 0;
  return p;
}

// The papers' links: swing-nsdi24.txt section 5 (400 Gb/s, 100 ns, 300 ns per hop) and the
// per-step alpha of trivance.txt section 6.
inline topo::NetworkParams paper_params() {
  topo::NetworkParams p;
  p.bandwidth_bytes_per_s = 400e9 / 8;
  p.link_latency_s = 100e-9;
  p.hop_latency_s = 300e-9;
  p.alpha_s = 1.5e-6;
  return p;
}

// A topology with its router and the linear mapping of `ranks`.
struct TestNetwork {
  std::unique_ptr<topo::Topology> topology;
  std::unique_ptr<topo::Router> router;
  topo::Mapping mapping;
};

inline TestNetwork make_network(const std::string& spec, int ranks, const std::string& routing,
                                topo::NetworkParams params = paper_params()) {
  TestNetwork n;
  n.topology = topo::make_topology(spec, params);
  n.router = topo::make_router(*n.topology, routing);
  n.mapping = topo::make_mapping("linear", ranks, *n.topology);
  return n;
}

inline SchedulePtr build(const std::string& name, Collective c, int ranks,
                         std::vector<int> dims = {}, int ports = 0) {
  ScheduleRequest request;
  request.collective = c;
  request.ranks = ranks;
  request.dims = std::move(dims);
  request.ports = ports;
  return registry().build(name, request);
}

}  // namespace topocoll::sim::testing
