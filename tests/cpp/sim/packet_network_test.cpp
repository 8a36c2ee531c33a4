// The packet model (docs/simulator-packet.md). Without congestion a transfer of S bytes over
// h links of bandwidth B and latencies L_i, cut into packets of at most m bytes of payload
// plus a header of e bytes, arrives after
//   T = sum L_i + W / B + (h - 1) x s / B,
// W = S + ceil(S / m) x e the bytes on the wire and s = min(S, m) + e the first (largest)
// packet: the first link serializes every packet back to back, and the last packet then
// waits one full packet time behind its predecessor at each further link (store and forward,
// pipelined). With congestion the packet and flow models differ; on large messages they agree
// within a few percent, which the sweep here checks.
#include "sim/packet_network.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/registry.hpp"
#include "sim/simulate.hpp"
#include "support/sim_test_support.hpp"
#include "support/topology_test_support.hpp"
#include "topology/mapping.hpp"
#include "topology/routing.hpp"

namespace topocoll::sim {
namespace {

using testing::hand_schedule;
using testing::HandNetwork;
using testing::HandRouter;
using testing::linear;
using testing::quiet;
using testing::step;

constexpr double kBw = 1e9;  // bytes per second

SimConfig packet_config(std::uint64_t bytes, PacketParams packet = {}) {
  SimConfig c;
  c.model = Model::packet;
  c.vector_bytes = bytes;
  c.packet = packet;
  return c;
}

// The closed form of the file comment.
double store_and_forward(double bytes, int hops, double latency, double bandwidth,
                         const PacketParams& p) {
  const auto mtu = static_cast<double>(p.mtu_bytes);
  const auto header = static_cast<double>(p.header_bytes);
  const double packets = std::max(1.0, std::ceil(bytes / mtu));
  const double wire = bytes + packets * header;
  const double first = std::min(bytes, mtu) + header;
  return latency + wire / bandwidth + (hops - 1) * first / bandwidth;
}

// Rank 0 sends `bytes` to rank 1 over a chain of `hops` links through `hops - 1` relay hosts
// (the relays run no rank's steps: they have no step).
struct Chain {
  HandNetwork net;
  HandRouter router;
  std::vector<int> links;
  Chain(int hops, double latency) : net(hops + 1, quiet()) {
    for (int h = 0; h < hops; ++h) links.push_back(net.link(h, h + 1, kBw, latency));
    router.set(0, hops, {{links, 1.0}});
  }
  SimResult run(std::uint64_t bytes, const PacketParams& p) const {
    const auto all = BlockSet::range(0, 1);
    std::vector<std::vector<Step>> steps(static_cast<std::size_t>(links.size()) + 1);
    steps.front() = {step({Operation::send(static_cast<int>(links.size()), all)})};
    steps.back() = {step({Operation::recv(0, all, Combine::copy)})};
    const auto schedule = hand_schedule(1, steps);
    return simulate(schedule, net, router, linear(static_cast<int>(steps.size())),
                    packet_config(bytes, p));
  }
};

TEST(SimPacketModel, OneLinkIsLatencyPlusWireBytes) {
  const Chain chain(1, 1e-6);
  PacketParams p;
  p.mtu_bytes = 1024;
  p.header_bytes = 64;
  // 10000 B: 10 packets (9 full, 784 B), 10640 B on the wire.
  EXPECT_NEAR(chain.run(10000, p).time_s, 1e-6 + 10640 / kBw, 1e-15);
  EXPECT_NEAR(chain.run(10000, p).time_s, store_and_forward(10000, 1, 1e-6, kBw, p), 1e-15);
}

TEST(SimPacketModel, EachFurtherHopAddsOnePacketTime) {
  PacketParams p;
  p.mtu_bytes = 4096;
  for (int hops : {2, 3, 5}) {
    const Chain chain(hops, 250e-9);
    for (std::uint64_t bytes : {std::uint64_t{100}, std::uint64_t{4096}, std::uint64_t{50000}}) {
      const double expected =
          store_and_forward(static_cast<double>(bytes), hops, hops * 250e-9, kBw, p);
      EXPECT_NEAR(chain.run(bytes, p).time_s, expected, expected * 1e-12)
          << hops << " hops, " << bytes << " B";
    }
  }
  p.header_bytes = 57;  // the partial last packet queues behind a full one at every hop
  const Chain chain(4, 100e-9);
  const double expected = store_and_forward(10000, 4, 400e-9, kBw, p);
  EXPECT_NEAR(chain.run(10000, p).time_s, expected, expected * 1e-12);
}

TEST(SimPacketModel, SmallBuffersThrottleButNeverDeadlock) {
  // One packet of buffer per port: credits come back only when a packet has left the next
  // port, so a stream moves at most one packet per (2 packet times + latency).
  PacketParams p;
  p.mtu_bytes = 1000;
  p.buffer_bytes = 1000;
  const Chain chain(3, 0);
  const double roomy = chain.run(100000, PacketParams{1000, 0, 64000}).time_s;
  const double tight = chain.run(100000, p).time_s;
  EXPECT_NEAR(roomy, store_and_forward(100000, 3, 0, kBw, {1000, 0, 64000}), 1e-15);
  EXPECT_GT(tight, roomy * 1.5);
}

TEST(SimPacketModel, TwoStreamsIntoOneLinkShareIt) {
  // Ranks 0 and 1 both send S to rank 2; rank 0's packets cross L0 then L1, rank 1's start on
  // L1 (hop classes 1 and 0 there). L1 serves its classes in turn, so both streams get half
  // of it and finish within a packet time or two of 2S / B, the flow model's max-min answer
  // for both; L1 never idles, so the last packet arrives at exactly 2S / B.
  HandNetwork net(3, quiet());
  HandRouter router;
  const int l0 = net.link(0, 1, kBw, 0);
  const int l1 = net.link(1, 2, kBw, 0);
  router.set(0, 2, {{{l0, l1}, 1.0}});
  router.set(1, 2, {{{l1}, 1.0}});
  const auto all = BlockSet::range(0, 1);
  const auto schedule = hand_schedule(1, {{step({Operation::send(2, all)})},
                                          {step({Operation::send(2, all)})},
                                          {step({Operation::recv(0, all, Combine::reduce),
                                                 Operation::recv(1, all, Combine::reduce)})}});
  const std::uint64_t s = 4 << 20;
  const auto r = simulate(schedule, net, router, linear(3), packet_config(s));
  const double both = 2.0 * s / kBw;
  const double packet = 4096 / kBw;
  EXPECT_NEAR(r.rank_finish_s[0], both, 2 * packet);
  EXPECT_NEAR(r.rank_finish_s[1], both, 2 * packet);
  EXPECT_NEAR(r.time_s, both, both * 1e-12);
}

TEST(SimPacketModel, ZeroByteMessagesPayLatencyOrOneHeader) {
  const Chain chain(2, 1e-6);
  EXPECT_NEAR(chain.run(0, {}).time_s, 2e-6, 1e-15);
  PacketParams p;
  p.header_bytes = 100;
  EXPECT_NEAR(chain.run(0, p).time_s, 2e-6 + 2 * 100 / kBw, 1e-15);
}

TEST(SimPacketModel, BadParametersAreRefused) {
  const Chain chain(1, 0);
  EXPECT_THROW((void)chain.run(1000, {8, 0, 1 << 16}), UnsupportedRequest);        // mtu < 16 B
  EXPECT_THROW((void)chain.run(1000, {4096, 8192, 1 << 16}), UnsupportedRequest);  // header
  EXPECT_THROW((void)chain.run(1000, {4096, 64, 4096}), UnsupportedRequest);       // < one packet
  EXPECT_NO_THROW((void)chain.run(1000, {4096, 64, 4160}));
}

// Registered algorithms on the real topologies.
topo::NetworkParams paper_params() {
  topo::NetworkParams p;  // swing-nsdi24.txt section 5: 400 Gb/s, 100 ns, 300 ns per hop
  p.alpha_s = 1.5e-6;     // trivance.txt section 6
  return p;
}

struct Net {
  std::unique_ptr<topo::Topology> topology;
  std::unique_ptr<topo::Router> router;
  explicit Net(const std::string& spec, const std::string& routing = "minimal")
      : topology(topo::make_topology(spec, paper_params())),
        router(topo::make_router(*topology, routing)) {}
  SimResult run(const Schedule& schedule, Model model, std::uint64_t bytes,
                PacketParams packet = {}) const {
    SimConfig c;
    c.model = model;
    c.vector_bytes = bytes;
    c.packet = packet;
    c.record_links = true;
    const auto mapping = topo::make_mapping("linear", schedule.ranks(), *topology);
    return simulate(schedule, *topology, *router, mapping, c);
  }
};

SchedulePtr build(const std::string& name, int ranks, std::vector<int> dims = {}, int ports = 0) {
  ScheduleRequest request;
  request.collective = Collective::allreduce;
  request.ranks = ranks;
  request.dims = std::move(dims);
  request.ports = ports;
  return registry().build(name, request);
}

TEST(SimPacketModel, RingOnARingIsTheClosedFormPerStep) {
  // Every step moves n/P bytes over one link, uncontended: alpha + L + W / B per step, exactly
  // the flow model's closed form plus the headers.
  const int p = 8;
  const Net net("ring:8");
  const auto params = paper_params();
  const std::uint64_t n = 8 << 20;
  const auto ring = build("ring", p, {}, 1);
  PacketParams packet;
  packet.header_bytes = 64;
  const double block = static_cast<double>(n) / p;
  const double step_time = params.alpha_s + 400e-9 +
                           store_and_forward(block, 1, 0, params.bandwidth_bytes_per_s, packet);
  const double expected = 2 * (p - 1) * step_time;
  EXPECT_NEAR(net.run(*ring, Model::packet, n, packet).time_s, expected, expected * 1e-9);
  const double flow = net.run(*ring, Model::flow, n).time_s;
  EXPECT_NEAR(net.run(*ring, Model::packet, n).time_s, flow, flow * 1e-9);  // no header
}

TEST(SimPacketModel, RecursiveDoublingOnAHypercubeIsOneHopPerStep) {
  const int p = 16;
  const Net net("hypercube:4");
  const auto params = paper_params();
  const double bw = params.bandwidth_bytes_per_s;
  const std::uint64_t n = 1 << 24;
  PacketParams packet;
  packet.mtu_bytes = 1024;
  packet.header_bytes = 57;
  double expected = 0;
  for (int k = 0; k < 4; ++k)
    expected += 2 * (params.alpha_s + 400e-9 +
                     store_and_forward(std::ldexp(n, -(k + 1)), 1, 0, bw, packet));
  const auto bw_opt = build("recdoub-bw", p);
  EXPECT_NEAR(net.run(*bw_opt, Model::packet, n, packet).time_s, expected, expected * 1e-9);
}

// On large vectors the packetization terms vanish; where every port carries one stream at a
// time, or streams of equal demand, arrival-order service comes to the max-min answer and the
// two models agree within a few percent.
TEST(SimPacketModel, AgreesWithTheFlowModelOnLargeVectors) {
  struct Case {
    std::string spec;
    std::string algorithm;
    std::vector<int> dims;
  };
  const std::vector<Case> cases = {
      {"torus:4x4", "swing-bw", {4, 4}},     {"torus:4x4", "bucket", {4, 4}},
      {"torus:4x4", "recdoub-bw", {4, 4}},   {"torus:4x4", "ring", {}},
      {"fattree:2:4:4:4", "recdoub-bw", {}}, {"fattree:2:4:4:4", "ring", {}},
  };
  const std::uint64_t n = 16 << 20;
  for (const Case& c : cases) {
    const Net net(c.spec);
    const auto schedule = build(c.algorithm, 16, c.dims);
    const double flow = net.run(*schedule, Model::flow, n).time_s;
    const double packet = net.run(*schedule, Model::packet, n).time_s;
    EXPECT_NEAR(packet / flow, 1.0, 0.03) << c.algorithm << " on " << c.spec;
  }
}

// Where a host sends a one-path message inside its leaf and a four-path one across the spines
// at the same time (bidirectional swing on a fat tree), full buffers block the packets behind
// a stalled head: the packet model is slower than with buffers that never fill. With deep
// buffers it stays 5% above the flow model's time (the sharing rule); it was 17% while the two
// lanes ran in lock-step (docs/simulator-packet.md).
TEST(SimPacketModel, HeadOfLineBlockingShowsOnAFatTree) {
  const Net net("fattree:2:4:4:4");
  const auto schedule = build("swing-bw", 16);
  const std::uint64_t n = 16 << 20;
  const double flow = net.run(*schedule, Model::flow, n).time_s;
  const double blocked = net.run(*schedule, Model::packet, n).time_s;
  PacketParams deep;
  deep.buffer_bytes = std::uint64_t{1} << 28;
  const double unblocked = net.run(*schedule, Model::packet, n, deep).time_s;
  EXPECT_GT(blocked, unblocked * 1.05);
  EXPECT_GT(unblocked, flow * 1.02);
  EXPECT_LT(unblocked, flow * 1.10);
}

TEST(SimPacketModel, SameInputSameOutput) {
  const Net net("torus:4x4");
  const auto schedule = build("swing-bw", 16, {4, 4});
  const auto a = net.run(*schedule, Model::packet, 3 << 20);
  const auto b = net.run(*schedule, Model::packet, 3 << 20);
  EXPECT_EQ(a.time_s, b.time_s);
  EXPECT_EQ(a.rank_finish_s, b.rank_finish_s);
  ASSERT_EQ(a.links.size(), b.links.size());
  for (std::size_t l = 0; l < a.links.size(); ++l) {
    EXPECT_EQ(a.links[l].bytes, b.links[l].bytes);
    EXPECT_EQ(a.links[l].busy_s, b.links[l].busy_s);
  }
}

TEST(SimPacketModel, LinkBytesAreTheWireBytes) {
  // recdoub-lat on hypercube:3 sends the whole vector over one link per rank and step.
  const Net net("hypercube:3");
  const auto schedule = build("recdoub-lat", 8);
  PacketParams packet;
  packet.header_bytes = 64;
  const std::uint64_t n = 10000;  // 3 packets of 4096, 4096, 1808 B
  const auto r = net.run(*schedule, Model::packet, n, packet);
  double total = 0;
  for (const auto& u : r.links) total += u.bytes;
  EXPECT_DOUBLE_EQ(total, 8.0 * 3 * (n + 3 * 64));
}

TEST(SimPacketModel, RunsOnEveryTopologyKind) {
  // Many-hop routes, switches and multi-path routing with tiny buffers: every transfer is
  // delivered (a deadlock would leave ranks waiting, which simulate() reports by throwing).
  PacketParams tiny;
  tiny.mtu_bytes = 256;
  tiny.buffer_bytes = 512;
  for (const std::string spec :
       {"ring:16", "torus:4x4", "mesh:4x4", "hypercube:4", "hyperx:4x4", "hammingmesh:2x2:2x2",
        "fattree:2:4:4:2", "dragonfly:4:2:2:2", "dragonfly+:2:2:4:2:2"}) {
    const Net net(spec);
    const int hosts = net.topology->host_count();
    const int p = hosts >= 16 ? 16 : 8;
    const auto schedule = build("recdoub-lat", p);
    const auto r = net.run(*schedule, Model::packet, 1 << 16, tiny);
    EXPECT_GT(r.time_s, 0) << spec;
    const double flow = net.run(*schedule, Model::flow, 1 << 16).time_s;
    EXPECT_GT(r.time_s, flow * 0.5) << spec;
  }
  // A graph file: a 4-cycle of switches with a host on each (two paths between opposite hosts).
  const std::string path = topo::testing::write_cycle_graph("packet_graph_cycle.json");
  const Net graph("graph:" + path);
  const auto schedule = build("recdoub-lat", 4);
  EXPECT_GT(graph.run(*schedule, Model::packet, 1 << 16, tiny).time_s, 0);
}

}  // namespace
}  // namespace topocoll::sim
