// LogGOPS's O, the host's CPU time per byte of a message (HostCosts::overhead_s_per_byte), on a
// hand-built pair of hosts: a message of s bytes costs the sender o + O s before it enters the
// network and the receiver o + O s after it has arrived. Every expected time is computed by hand
// from the case's numbers (docs/host-costs.md).
#include <gtest/gtest.h>

#include "core/registry.hpp"
#include "sim/simulate.hpp"
#include "support/sim_test_support.hpp"
#include "topology/machine_file.hpp"

namespace topocoll::sim {
namespace {

using testing::config;
using testing::linear;
using testing::quiet;

constexpr double kBw = 1e9;      // bytes per second
constexpr double kLat = 500e-9;  // either way
constexpr double kTol = 1e-15;

struct Pair : testing::HandPair {
  explicit Pair(const topo::NetworkParams& p) : HandPair(p, kBw, kLat, kLat) {}
};

ExplicitSchedule one_send(int block_count) {
  return testing::one_send(BlockSet::range(0, block_count), block_count, Combine::copy);
}

class OverheadPerByte : public ::testing::TestWithParam<Model> {};

// 4000 B, o = 1 us at the sender and 2 us at the receiver, O = 0.25 ns per byte (4 GB/s):
// the sender's CPU takes 1 us + 1 us, the wire 0.5 us + 4 us, the receiver's CPU 2 us + 1 us.
TEST_P(OverheadPerByte, AMessageOfSBytesCostsOPlusOTimesSAtEachSide) {
  topo::NetworkParams p = quiet();
  p.host.send_overhead_s = 1e-6;
  p.host.recv_overhead_s = 2e-6;
  p.host.overhead_s_per_byte = 0.25e-9;
  Pair pair(p);
  const double bytes = 4000;
  const auto r = simulate(one_send(1), pair.net, pair.router, linear(2), config(GetParam(), bytes));
  const double arrival = 1e-6 + bytes * 0.25e-9 + kLat + bytes / kBw;
  EXPECT_EQ(r.messages, 1u);
  EXPECT_NEAR(r.rank_finish_s[0], arrival, kTol);
  EXPECT_NEAR(r.rank_finish_s[1], arrival + 2e-6 + bytes * 0.25e-9, kTol);
}

// O alone (no o): the per-byte time grows with the message, 1000 B against 3000 B.
TEST_P(OverheadPerByte, ItGrowsWithTheMessage) {
  topo::NetworkParams p = quiet();
  p.host.overhead_s_per_byte = 1e-9;  // 1 GB/s, as fast as the link
  Pair pair(p);
  for (const double bytes : {1000.0, 3000.0}) {
    const auto r =
        simulate(one_send(1), pair.net, pair.router, linear(2), config(GetParam(), bytes));
    EXPECT_NEAR(r.time_s, bytes * 1e-9 + kLat + bytes / kBw + bytes * 1e-9, kTol) << bytes;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, OverheadPerByte, ::testing::Values(Model::analytic, Model::flow),
                         [](const auto& info) {
                           return info.param == Model::flow ? "flow" : "analytic";
                         });

// The packet model charges the same host: O s at each side adds 2 O s to the network's time.
TEST(OverheadPerBytePacket, AddsTwiceOTimesSToTheNetworkTime) {
  topo::NetworkParams p = quiet();
  Pair idle(p);
  const auto base =
      simulate(one_send(1), idle.net, idle.router, linear(2), config(Model::packet, 10000));
  p.host.overhead_s_per_byte = 0.1e-9;
  Pair costly(p);
  const auto r =
      simulate(one_send(1), costly.net, costly.router, linear(2), config(Model::packet, 10000));
  EXPECT_NEAR(r.rank_finish_s[1] - base.rank_finish_s[1], 2 * 10000 * 0.1e-9, 1e-12);
}

// A machine file gives O as a rate (host.overhead_rate, bytes per second); the field is its
// inverse, and a host with only O is not idle.
TEST(OverheadPerByteMachineFile, TheRateIsReadAsItsInverse) {
  const auto m = topo::parse_machine(R"({"format": "topocoll-machine/1", "name": "m",
    "description": "d", "host": {"overhead_rate": {"value": "50MBps", "source": "s"}}})",
                                     "m.json");
  EXPECT_DOUBLE_EQ(m.params.host.overhead_s_per_byte, 1 / 50e6);
  EXPECT_FALSE(m.params.host.idle());
}

TEST(OverheadPerByteMachineFile, ARateBelowOneMBpsIsRefused) {
  EXPECT_THROW((void)topo::parse_machine(R"({"format": "topocoll-machine/1", "name": "m",
    "description": "d", "host": {"overhead_rate": {"value": "1KBps", "source": "s"}}})",
                                         "m.json"),
               UnsupportedRequest);
}

}  // namespace
}  // namespace topocoll::sim
