// Host costs (LogGP's o and g, copies, reductions, the eager/rendezvous protocol) on
// hand-built networks: every expected time is computed by hand from the case's numbers
// (docs/host-costs.md says when each cost is charged).
#include <gtest/gtest.h>

#include "core/registry.hpp"
#include "sim/simulate.hpp"
#include "support/sim_test_support.hpp"

namespace topocoll::sim {
namespace {

using testing::config;
using testing::hand_schedule;
using testing::HandNetwork;
using testing::HandRouter;
using testing::linear;
using testing::one_send;
using testing::quiet;
using testing::step;

constexpr double kBw = 1e9;       // bytes per second
constexpr double kLat = 500e-9;   // 0 -> 1
constexpr double kBack = 700e-9;  // 1 -> 0
constexpr double kTol = 1e-15;

// Two hosts, one link each way.
struct Pair : testing::HandPair {
  explicit Pair(const topo::NetworkParams& p) : HandPair(p, kBw, kLat, kBack) {}
};

// Blocks 0, 2 and 4 of six: three ranges.
BlockSet three_ranges() {
  BlockSet s;
  s.add(0);
  s.add(2);
  s.add(4);
  return s;
}

class HostCosts : public ::testing::TestWithParam<Model> {};

// One message of three ranges: one o at each side, one latency, one pack and one unpack copy.
TEST_P(HostCosts, AMessageOfManyRangesPaysOneOverheadEachSideAndOneCopyEach) {
  topo::NetworkParams p = quiet();
  p.host.send_overhead_s = 1e-6;
  p.host.recv_overhead_s = 2e-6;
  p.host.copy_s_per_byte = 1e-10;  // 10 GB/s
  Pair pair(p);
  const double bytes = 6000;  // 1000 per block, 3000 sent
  const auto r = simulate(one_send(three_ranges(), 6, Combine::copy), pair.net, pair.router,
                          linear(2), config(GetParam(), bytes));
  const double copy = 3000 * 1e-10;
  const double arrival = copy + 1e-6 + kLat + 3000 / kBw;
  EXPECT_EQ(r.messages, 1u);
  EXPECT_NEAR(r.rank_finish_s[0], arrival, kTol);  // a send completes when its data arrived
  EXPECT_NEAR(r.rank_finish_s[1], arrival + 2e-6 + copy, kTol);
}

// The same send as a runtime that sends each range on its own: three overheads at each side,
// no packing. The sender's CPU injects at 1, 2 and 3 us; each 1000 B takes 1 us alone on the
// link; the receiver's CPU takes each 2 us from its arrival on.
TEST(HostCostsFlow, MessagePerRangePaysOneOverheadPerRange) {
  topo::NetworkParams p = quiet();
  p.host.send_overhead_s = 1e-6;
  p.host.recv_overhead_s = 2e-6;
  p.host.copy_s_per_byte = 1e-10;
  Pair pair(p);
  auto c = config(Model::flow, 6000);
  c.message_per_range = true;
  const auto r =
      simulate(one_send(three_ranges(), 6, Combine::copy), pair.net, pair.router, linear(2), c);
  EXPECT_EQ(r.messages, 3u);
  EXPECT_NEAR(r.rank_finish_s[0], 4e-6 + kLat, kTol);
  EXPECT_NEAR(r.rank_finish_s[1], 2e-6 + kLat + 3 * 2e-6, kTol);
}

// Above the eager threshold a message waits one round trip (request 0 -> 1, ready 1 -> 0);
// at the threshold it is eager.
TEST_P(HostCosts, ARendezvousMessagePaysOneExtraRoundTrip) {
  topo::NetworkParams p = quiet();
  const auto all = BlockSet::range(0, 1);
  const double bytes = 4096;
  p.host.eager_threshold_bytes = 4095;
  Pair rendezvous(p);
  const auto slow = simulate(one_send(all, 1, Combine::copy), rendezvous.net, rendezvous.router,
                             linear(2), config(GetParam(), bytes));
  EXPECT_NEAR(slow.time_s, kLat + kBack + kLat + bytes / kBw, kTol);
  p.host.eager_threshold_bytes = 4096;
  Pair eager(p);
  const auto fast = simulate(one_send(all, 1, Combine::copy), eager.net, eager.router, linear(2),
                             config(GetParam(), bytes));
  EXPECT_NEAR(fast.time_s, kLat + bytes / kBw, kTol);
}

// The rendezvous handshake's software cost is the receiver's CPU time: rank 0 sends two
// messages of 1000 B at once on one link (each waits its round trip, then both share the
// link: 2 us); rank 1's CPU pays 3 us for one and then 3 us for the other. At the threshold
// the messages are eager and pay none of it.
TEST_P(HostCosts, RendezvousOverheadsOfOneReceiverSerialise) {
  topo::NetworkParams p = quiet();
  p.host.rendezvous_s = 3e-6;
  p.host.eager_threshold_bytes = 999;
  const auto a = BlockSet::range(0, 1), b = BlockSet::range(1, 2);
  const auto s = hand_schedule(
      2,
      {{step({Operation::send(1, a, 0), Operation::send(1, b, 1)})},
       {step({Operation::recv(0, a, Combine::copy, 0), Operation::recv(0, b, Combine::copy, 1)})}});
  Pair rendezvous(p);
  const auto slow =
      simulate(s, rendezvous.net, rendezvous.router, linear(2), config(GetParam(), 2000));
  const double arrival = kLat + kBack + kLat + 2000 / kBw;
  EXPECT_NEAR(slow.rank_finish_s[0], arrival, kTol);
  EXPECT_NEAR(slow.rank_finish_s[1], arrival + 2 * 3e-6, kTol);
  p.host.eager_threshold_bytes = 1000;
  Pair eager(p);
  const auto fast = simulate(s, eager.net, eager.router, linear(2), config(GetParam(), 2000));
  EXPECT_NEAR(fast.rank_finish_s[1], kLat + 2000 / kBw, kTol);
}

// A reduced byte costs reduce_s_per_byte on the receiver's CPU, after its receive overhead.
TEST_P(HostCosts, AReductionCostsItsPerByteRate) {
  topo::NetworkParams p = quiet();
  p.reduce_s_per_byte = 1e-9;
  p.host.recv_overhead_s = 1e-6;
  Pair pair(p);
  const auto all = BlockSet::range(0, 1);
  const auto r = simulate(one_send(all, 1, Combine::reduce), pair.net, pair.router, linear(2),
                          config(GetParam(), 3000));
  EXPECT_NEAR(r.rank_finish_s[1], kLat + 3000 / kBw + 1e-6 + 3000 * 1e-9, kTol);
}

// Local copies cost the copy rate; a local reduction the reduction rate.
TEST_P(HostCosts, LocalCopiesAndReductionsCostPerByte) {
  topo::NetworkParams p = quiet();
  p.reduce_s_per_byte = 2e-9;
  p.host.copy_s_per_byte = 1e-9;
  Pair pair(p);
  const auto s =
      hand_schedule(4, {{step({Operation::local_copy(BlockSet::range(0, 1), BlockSet::range(2, 3)),
                               Operation::local_copy(BlockSet::range(1, 2), BlockSet::range(3, 4),
                                                     Combine::reduce)})},
                        {}});
  const auto r = simulate(s, pair.net, pair.router, linear(2), config(GetParam(), 4000));
  EXPECT_NEAR(r.rank_finish_s[0], 1000 * 1e-9 + 1000 * 2e-9, kTol);
}

// Two messages leave one port at least g apart. Rank 0 sends 1000 B on schedule ports 0 and 1
// over the same link. Flow: the first is alone on the link (1 us), the second starts at g.
// Analytic: step 0 counts both on the link, so each pays twice its bytes.
TEST_P(HostCosts, TwoMessagesOnOnePortAreAGapApart) {
  topo::NetworkParams p = quiet();
  p.host.gap_s = 5e-6;
  HandNetwork net(2, p);
  HandRouter router;
  router.set(0, 1, {{{net.link(0, 1, kBw, 0)}, 1.0}});
  const auto a = BlockSet::range(0, 1), b = BlockSet::range(1, 2);
  const auto s = hand_schedule(
      2,
      {{step({Operation::send(1, a, 0), Operation::send(1, b, 1)})},
       {step({Operation::recv(0, a, Combine::copy, 0), Operation::recv(0, b, Combine::copy, 1)})}});
  const auto r = simulate(s, net, router, linear(2), config(GetParam(), 2000));
  const double per_message = (GetParam() == Model::flow ? 1000 : 2000) / kBw;
  EXPECT_NEAR(r.time_s, 5e-6 + per_message, kTol);
}

// Rank 0's two lanes send 1 B each to ranks 1 and 2, over a link of their own each.
struct TwoLanesFanOut {
  HandNetwork net;
  HandRouter router;
  explicit TwoLanesFanOut(const topo::NetworkParams& p) : net(3, p) {
    router.set(0, 1, {{{net.link(0, 1, kBw, 0)}, 1.0}});
    router.set(0, 2, {{{net.link(0, 2, kBw, 0)}, 1.0}});
  }
  static ExplicitSchedule schedule() {
    const auto a = BlockSet::range(0, 1), b = BlockSet::range(1, 2);
    ScheduleInfo info;
    info.collective = Collective::allreduce;
    info.algorithm = "hand";
    info.ranks = 3;
    info.blocks = 2;
    std::vector<ExplicitSchedule::Lanes> lanes(3);
    lanes[0] = {{step({Operation::send(1, a)})}, {step({Operation::send(2, b)})}};
    lanes[1] = {{step({Operation::recv(0, a, Combine::copy)})}};
    lanes[2] = {{step({Operation::recv(0, b, Combine::copy)})}};
    return ExplicitSchedule(info, std::move(lanes));
  }
  SimResult run(Model model) {
    return simulate(schedule(), net, router, linear(3), config(model, 2));
  }
};

// The CPU is one, so the second lane's send overhead waits for the first's.
TEST_P(HostCosts, OverheadsOfTwoLanesOfOneRankSerialise) {
  topo::NetworkParams p = quiet();
  p.host.send_overhead_s = 10e-6;
  const auto r = TwoLanesFanOut(p).run(GetParam());
  EXPECT_NEAR(r.rank_finish_s[1], 10e-6 + 1 / kBw, kTol);
  EXPECT_NEAR(r.rank_finish_s[2], 20e-6 + 1 / kBw, kTol);
}

// The runtime's CPU time per step runs on the rank's one CPU, unlike alpha: rank 0's two lanes'
// messages arrive at 1 ns; their steps' 2 us of CPU work follow one another, so rank 0 finishes
// at 1 ns + 4 us. The receivers' one step each pays its own 2 us. The call's overhead (3 us)
// comes first on every rank.
TEST_P(HostCosts, TheRuntimesStepCpuSerialisesOverLanesAndTheCallOverheadComesFirst) {
  topo::NetworkParams p = quiet();
  p.host.step_cpu_s = 2e-6;
  const auto r = TwoLanesFanOut(p).run(GetParam());
  EXPECT_NEAR(r.rank_finish_s[0], 1 / kBw + 4e-6, kTol);
  EXPECT_NEAR(r.rank_finish_s[1], 1 / kBw + 2e-6, kTol);
  p.host.call_overhead_s = 3e-6;
  const auto c = TwoLanesFanOut(p).run(GetParam());
  for (int rank = 0; rank < 3; ++rank)
    EXPECT_NEAR(c.rank_finish_s[rank], r.rank_finish_s[rank] + 3e-6, kTol);
}

INSTANTIATE_TEST_SUITE_P(Models, HostCosts, ::testing::Values(Model::analytic, Model::flow),
                         [](const auto& info) {
                           return info.param == Model::flow ? "flow" : "analytic";
                         });

// The packet model charges the same host: on an empty network, one message's o at each side
// adds exactly their sum to its time.
TEST(HostCostsPacket, OverheadsAddToTheNetworkTime) {
  topo::NetworkParams p = quiet();
  Pair idle(p);
  const auto all = BlockSet::range(0, 1);
  const auto base = simulate(one_send(all, 1, Combine::copy), idle.net, idle.router, linear(2),
                             config(Model::packet, 10000));
  p.host.send_overhead_s = 1e-6;
  p.host.recv_overhead_s = 2e-6;
  Pair costly(p);
  const auto r = simulate(one_send(all, 1, Combine::copy), costly.net, costly.router, linear(2),
                          config(Model::packet, 10000));
  EXPECT_NEAR(r.rank_finish_s[1] - base.rank_finish_s[1], 3e-6, 1e-12);
}

// With every cost zero the host path changes nothing: a threshold above every message takes
// the costed path (nothing is idle) and must give the results of the idle host, on real
// algorithms whose sends have many ranges.
TEST(HostCostsZero, ZeroCostsReproduceTheIdleHost) {
  topo::NetworkParams zero = testing::paper_params();
  zero.host.eager_threshold_bytes = std::uint64_t{1} << 40;
  for (const char* name : {"swing-bw", "bucket", "ring"}) {
    const std::string algorithm = name;
    const auto s =
        testing::build(name, Collective::allreduce, 16,
                       algorithm == "ring" ? std::vector<int>{} : std::vector<int>{4, 4});
    for (const Model model : {Model::analytic, Model::flow, Model::packet}) {
      const auto idle = testing::make_network("torus:4x4", 16, "minimal");
      const auto costed = testing::make_network("torus:4x4", 16, "minimal", zero);
      const auto c = config(model, 1 << 20);
      const auto a = simulate(*s, *idle.topology, *idle.router, idle.mapping, c);
      const auto b = simulate(*s, *costed.topology, *costed.router, costed.mapping, c);
      EXPECT_EQ(a.time_s, b.time_s) << name;
      EXPECT_EQ(a.rank_finish_s, b.rank_finish_s) << name;
      EXPECT_EQ(a.messages, b.messages) << name;
    }
  }
}

// The flow model's symmetry reduction charges a left-out receiver's CPU on the rank that stands
// for it: with every host cost at work, reduced and full runs agree.
TEST(HostCostsSymmetry, TheReducedRunChargesTheSameHosts) {
  topo::NetworkParams p = testing::paper_params();
  p.host.send_overhead_s = 1e-6;
  p.host.recv_overhead_s = 0.5e-6;
  p.host.gap_s = 0.2e-6;
  p.host.copy_s_per_byte = 1e-10;
  p.host.eager_threshold_bytes = 4096;
  p.reduce_s_per_byte = 2e-10;
  const auto net = testing::make_network("torus:4x4", 16, "minimal", p);
  for (const char* name : {"swing-bw", "bucket"}) {
    const auto s = testing::build(name, Collective::allreduce, 16, {4, 4});
    auto c = config(Model::flow, 1 << 20);
    const auto reduced = simulate(*s, *net.topology, *net.router, net.mapping, c);
    c.use_symmetry = false;
    const auto full = simulate(*s, *net.topology, *net.router, net.mapping, c);
    EXPECT_GT(reduced.symmetry_group, 1) << name;
    EXPECT_NEAR(reduced.time_s, full.time_s, full.time_s * 1e-9) << name;
    EXPECT_EQ(reduced.messages, full.messages) << name;
  }
}

}  // namespace
}  // namespace topocoll::sim
