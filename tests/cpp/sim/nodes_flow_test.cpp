// Nodes of several ranks in the flow model (topology/node_topology.hpp, docs/nodes.md): every
// expected time is computed by hand from the case's numbers. The network under the nodes is
// hand-built (one link each way between the NICs), so that only the node model is under test.
#include <gtest/gtest.h>

#include <string>

#include "sim/simulate.hpp"
#include "support/sim_test_support.hpp"
#include "topology/node_network.hpp"
#include "topology/node_topology.hpp"

namespace topocoll::sim {
namespace {

using testing::config;
using testing::hand_schedule;
using testing::HandNetwork;
using testing::HandRouter;
using testing::quiet;
using testing::step;

constexpr double kTol = 1e-12;        // seconds; the cases last about 1e-4 s
constexpr double kNet = 4e9;          // network link, bytes/s
constexpr double kNetLatency = 1e-6;  // network link
constexpr double kCopy = 10e9;        // shared memory: a rank's copy rate
constexpr double kMemory = 16e9;      // shared memory: node-wide
constexpr double kFabricLatency = 200e-9;
constexpr double kNic = 5e9;

// `nics` NIC hosts per node and two nodes; NIC j of node 0 has a link each way to NIC j of
// node 1.
struct TwoNodes {
  HandNetwork net;
  HandRouter router;
  TwoNodes(int nics, double bandwidth) : net(2 * nics, quiet()) {
    for (int j = 0; j < nics; ++j) {
      router.set(j, nics + j, {{{net.link(j, nics + j, bandwidth, kNetLatency)}, 1.0}});
      router.set(nics + j, j, {{{net.link(nics + j, j, bandwidth, kNetLatency)}, 1.0}});
    }
  }
};

topo::NodeSpec shared_memory(int k) {
  topo::NodeSpec s;
  s.ranks_per_node = k;
  s.fabric = topo::Fabric::shared_memory;
  s.fabric_bandwidth = kCopy;
  s.memory_bandwidth = kMemory;
  s.fabric_latency = kFabricLatency;
  s.nic_bandwidth = kNic;
  return s;
}

SimResult run(const ExplicitSchedule& schedule, const topo::NodeNetwork& machine,
              std::uint64_t vector_bytes, bool links = false) {
  auto c = config(Model::flow, vector_bytes);
  c.record_links = links;
  return simulate(schedule, machine.topology(), machine.router(), machine.mapping(schedule.ranks()),
                  c);
}

BlockSet blocks(std::initializer_list<BlockIndex> list) {
  BlockSet s;
  for (const BlockIndex b : list) s.add(b);
  return s;
}

// 2 nodes x 2 ranks, block mapping; four blocks of 500 kB. At once: r0 -> r1 (1 MB) and
// r1 -> r0 (500 kB) inside node 0, r0 -> r2 (1 MB) across the network.
// Intra: both start after the fabric latency and share the memory link, 8 GB/s each (under
// the 10 GB/s copy rate); r1 -> r0 ends at 200 ns + 62.5 us; r0 -> r1 then copies its last
// 500 kB at the copy rate: 50 us more. Inter: alone on the NIC (5 GB/s) and the network link
// (4 GB/s): 1 us + 1 MB / 4 GB/s = 251 us. No intra-node message touches a NIC.
TEST(NodeFlow, IntraAndInterNodeMessagesAtOnceHandComputed) {
  TwoNodes two(1, kNet);
  const topo::NodeNetwork machine(two.net, two.router, shared_memory(2));
  const auto schedule = hand_schedule(
      4,
      {{step({Operation::send(1, blocks({0, 1})), Operation::send(2, blocks({0, 1})),
              Operation::recv(1, blocks({2}), Combine::copy)})},
       {step({Operation::send(0, blocks({2})), Operation::recv(0, blocks({0, 1}), Combine::copy)})},
       {step({Operation::recv(0, blocks({0, 1}), Combine::copy)})},
       {step({})}});
  const auto r = run(schedule, machine, 2'000'000, true);
  const double inter = kNetLatency + 1e6 / kNet;
  const double intra = kFabricLatency + 0.5e6 / (kMemory / 2) + 0.5e6 / kCopy;
  EXPECT_NEAR(r.rank_finish_s[0], inter, kTol);
  EXPECT_NEAR(r.rank_finish_s[1], intra, kTol);
  EXPECT_NEAR(r.rank_finish_s[2], inter, kTol);
  EXPECT_NEAR(intra, 112.7e-6, kTol);  // the hand figure of the comment above
  // Bytes per kind of link: 1.5 MB through node 0's memory, 1 MB through the NICs and the wire.
  double memory = 0, nic_out = 0, wire = 0;
  for (const LinkUsage& u : r.links) {
    const topo::Link& l = machine.topology().links()[static_cast<std::size_t>(u.link)];
    if (l.label == "n0.memory") memory += u.bytes;
    if (l.label == "n0.nic0->h0") nic_out += u.bytes;
    if (l.kind == topo::LinkKind::network) wire += u.bytes;
  }
  EXPECT_DOUBLE_EQ(memory, 1.5e6);
  EXPECT_DOUBLE_EQ(nic_out, 1e6);
  EXPECT_DOUBLE_EQ(wire, 1e6);
}

// One node of four ranks: r0 -> r1 and r2 -> r3 use four different copy legs but one memory:
// 8 GB/s each instead of their copy rate of 10 GB/s.
TEST(NodeFlow, NodeWideMemoryBandwidthIsSharedByConcurrentCopies) {
  HandNetwork one(1, quiet());
  HandRouter none;
  const auto schedule =
      hand_schedule(2, {{step({Operation::send(1, blocks({0, 1}))})},
                        {step({Operation::recv(0, blocks({0, 1}), Combine::copy)})},
                        {step({Operation::send(3, blocks({0, 1}))})},
                        {step({Operation::recv(2, blocks({0, 1}), Combine::copy)})}});
  const topo::NodeNetwork capped(one, none, shared_memory(4));
  const auto r = run(schedule, capped, 1'000'000);
  EXPECT_NEAR(r.time_s, kFabricLatency + 1e6 / (kMemory / 2), kTol);
  topo::NodeSpec uncapped_spec = shared_memory(4);
  uncapped_spec.memory_bandwidth = 0;  // no node-wide cap: each copies at its own rate
  const topo::NodeNetwork uncapped(one, none, uncapped_spec);
  EXPECT_NEAR(run(schedule, uncapped, 1'000'000).time_s, kFabricLatency + 1e6 / kCopy, kTol);
}

// r0 -> r2 and r1 -> r3 across the network, the network link faster than the NICs (40 GB/s).
// One NIC per node: both ranks share it, 2.5 GB/s each. Two NICs per node: one each, 5 GB/s.
TEST(NodeFlow, RanksMappedToOneNicShareIt) {
  const auto schedule =
      hand_schedule(2, {{step({Operation::send(2, blocks({0, 1}))})},
                        {step({Operation::send(3, blocks({0, 1}))})},
                        {step({Operation::recv(0, blocks({0, 1}), Combine::copy)})},
                        {step({Operation::recv(1, blocks({0, 1}), Combine::copy)})}});
  TwoNodes one_nic(1, 40e9);
  const topo::NodeNetwork shared(one_nic.net, one_nic.router, shared_memory(2));
  EXPECT_NEAR(run(schedule, shared, 1'000'000).time_s, kNetLatency + 1e6 / (kNic / 2), kTol);
  TwoNodes two_nics(2, 40e9);
  topo::NodeSpec spec = shared_memory(2);
  spec.nics = 2;
  const topo::NodeNetwork own(two_nics.net, two_nics.router, spec);
  EXPECT_NEAR(run(schedule, own, 1'000'000).time_s, kNetLatency + 1e6 / kNic, kTol);
}

// Block puts ranks 0 and 1 on node 0: their message crosses the memory (200 ns + 100 us at
// the copy rate). Cyclic puts rank 1 on node 1: it crosses the network (1 us + 250 us).
TEST(NodeFlow, BlockAndCyclicMappingsDecideWhichMessagesStayOnTheNode) {
  TwoNodes two(1, kNet);
  const auto schedule =
      hand_schedule(2, {{step({Operation::send(1, blocks({0, 1}))})},
                        {step({Operation::recv(0, blocks({0, 1}), Combine::copy)})},
                        {step({})},
                        {step({})}});
  const topo::NodeNetwork block(two.net, two.router, shared_memory(2));
  EXPECT_EQ(block.mapping(4).host_of, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_NEAR(run(schedule, block, 1'000'000).time_s, kFabricLatency + 1e6 / kCopy, kTol);
  topo::NodeSpec spec = shared_memory(2);
  spec.mapping = "cyclic";
  const topo::NodeNetwork cyclic(two.net, two.router, spec);
  EXPECT_EQ(cyclic.mapping(4).host_of, (std::vector<int>{0, 2, 1, 3}));
  const auto r = run(schedule, cyclic, 1'000'000, true);
  EXPECT_NEAR(r.time_s, kNetLatency + 1e6 / kNet, kTol);
  for (const LinkUsage& u : r.links)
    if (u.bytes > 0)
      EXPECT_NE(cyclic.topology().links()[static_cast<std::size_t>(u.link)].kind,
                topo::LinkKind::intra_node);
}

// A GPU mesh gives each pair its own link: r0 -> r1 and r0 -> r2 at once at full rate. A node
// switch gives each rank one port: the two messages share r0's port, half each.
TEST(NodeFlow, MeshLinksArePerPairSwitchPortsArePerRank) {
  HandNetwork one(1, quiet());
  HandRouter none;
  const auto schedule = hand_schedule(
      2, {{step({Operation::send(1, blocks({0, 1})), Operation::send(2, blocks({0, 1}))})},
          {step({Operation::recv(0, blocks({0, 1}), Combine::copy)})},
          {step({Operation::recv(0, blocks({0, 1}), Combine::copy)})}});
  topo::NodeSpec spec;
  spec.ranks_per_node = 3;
  spec.fabric = topo::Fabric::gpu_mesh;
  spec.fabric_bandwidth = 50e9;
  spec.fabric_latency = 1e-6;
  const topo::NodeNetwork mesh(one, none, spec);
  EXPECT_NEAR(run(schedule, mesh, 1'000'000).time_s, 1e-6 + 1e6 / 50e9, kTol);
  spec.fabric = topo::Fabric::node_switch;
  const topo::NodeNetwork node_switch(one, none, spec);
  EXPECT_NEAR(run(schedule, node_switch, 1'000'000).time_s, 1e-6 + 1e6 / 25e9, kTol);
}

// A node's intra-node host costs (a calibration's on-node pair) apply between ranks of one node
// only: r0 -> r1 pays o = 3 us at each side, r0 -> r2 (across the network) the machine's 0.
TEST(NodeFlow, IntraNodeHostCostsApplyToMessagesInsideANode) {
  TwoNodes two(1, kNet);
  topo::NodeSpec spec = shared_memory(2);
  topo::HostCosts intra;
  intra.send_overhead_s = 3e-6;
  intra.recv_overhead_s = 3e-6;
  spec.intra_host = intra;
  const topo::NodeNetwork machine(two.net, two.router, spec);
  const auto schedule = hand_schedule(
      2, {{step({Operation::send(1, blocks({0, 1})), Operation::send(2, blocks({0, 1}))})},
          {step({Operation::recv(0, blocks({0, 1}), Combine::copy)})},
          {step({Operation::recv(0, blocks({0, 1}), Combine::copy)})},
          {step({})}});
  const auto r = run(schedule, machine, 1'000'000);
  EXPECT_NEAR(r.rank_finish_s[1], 3e-6 + kFabricLatency + 1e6 / kCopy + 3e-6, kTol);
  EXPECT_NEAR(r.rank_finish_s[2], kNetLatency + 1e6 / kNet, kTol);
}

// One rank per node with nothing else said is today's network: the same object, the same run.
TEST(NodeFlow, OneRankPerNodeIsTheNetworkItselfBitForBit) {
  auto n = testing::make_network("torus:4x4", 16, "minimal");
  const topo::NodeNetwork machine(*n.topology, *n.router, topo::NodeSpec{});
  EXPECT_FALSE(machine.has_nodes());
  EXPECT_EQ(&machine.topology(), n.topology.get());
  const auto ring = testing::build("ring", Collective::allreduce, 16, {}, 1);
  auto c = config(Model::flow, 1 << 20);
  const auto plain = simulate(*ring, *n.topology, *n.router, n.mapping, c);
  const auto nodes = simulate(*ring, machine.topology(), machine.router(), machine.mapping(16), c);
  EXPECT_EQ(plain.time_s, nodes.time_s);
  EXPECT_EQ(plain.rank_finish_s, nodes.rank_finish_s);
  // Spelled out as a node model (a NIC as fast as the torus ports), the times agree too:
  // the rank's NIC legs have no latency and never bind.
  topo::NodeSpec explicit_nic;
  explicit_nic.nic_bandwidth = n.topology->host_injection_bandwidth(0);
  const topo::NodeNetwork spelled(*n.topology, *n.router, explicit_nic);
  ASSERT_TRUE(spelled.has_nodes());
  c.use_symmetry = false;
  const auto legs = simulate(*ring, spelled.topology(), spelled.router(), spelled.mapping(16), c);
  EXPECT_NEAR(legs.time_s, plain.time_s, plain.time_s * 1e-12);
}

}  // namespace
}  // namespace topocoll::sim

namespace topocoll::sim {
namespace {

// A hierarchical composition (hier:ring, 4 nodes of 4 GPUs with 4 NICs each on a fat tree of
// 16 NICs) runs on every model: the packet and analytic models get the nodes from the topology
// too. Its intra-node phases cross the mesh only, its inter-node phase the NICs only.
TEST(NodeModels, HierarchicalScheduleRunsOnEveryModelThroughTheNodes) {
  auto n = testing::make_network("fattree:2:4:4:4", 16, "minimal");
  topo::NodeSpec spec;
  spec.ranks_per_node = 4;
  spec.nics = 4;
  spec.fabric = topo::Fabric::gpu_mesh;
  spec.fabric_bandwidth = 100e9;
  spec.fabric_latency = 1e-6;
  const topo::NodeNetwork machine(*n.topology, *n.router, spec);
  ScheduleRequest request;
  request.collective = Collective::allreduce;
  request.ranks = 16;
  request.ranks_per_node = 4;
  const auto schedule = registry().build("hier:ring", request);
  for (const Model model : {Model::flow, Model::packet, Model::analytic}) {
    auto c = config(model, 1 << 20);
    c.record_links = true;
    const auto r =
        simulate(*schedule, machine.topology(), machine.router(), machine.mapping(16), c);
    EXPECT_GT(r.time_s, 0);
    double intra = 0, nic = 0, wire = 0;
    for (const LinkUsage& u : r.links) {
      const auto kind = machine.topology().links()[static_cast<std::size_t>(u.link)].kind;
      (kind == topo::LinkKind::intra_node ? intra
       : kind == topo::LinkKind::nic      ? nic
                                          : wire) += u.bytes;
    }
    EXPECT_GT(intra, 0);
    EXPECT_GT(nic, 0);
    EXPECT_GT(wire, 0);
  }
}

}  // namespace
}  // namespace topocoll::sim
