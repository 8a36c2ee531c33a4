// The flow model (src/sim/flow_network.cpp): max-min sharing computed by FlowNetwork on its
// own, then through the engine. Every expected time is a closed form of the hand-built case.
#include "sim/flow_network.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "sim/simulate.hpp"
#include "support/converging_case.hpp"
#include "support/sim_test_support.hpp"

namespace topocoll::sim {
namespace {

using testing::config;
using testing::Converging;
using testing::linear;

constexpr double kBw = testing::kConvergingBw;

TEST(SimFlowNetwork, TwoFlowsOnOneLinkGetHalfEach) {
  Converging c(10 * kBw);
  FlowNetwork flows(c.net);
  const int a[] = {c.l0, c.l1}, b[] = {c.l1};
  flows.start(0, PathView{a, 2, 1.0, 0, kBw}, 1e6, 0, 7);
  flows.start(0, PathView{b, 1, 1.0, 0, kBw}, 1e6, 0, 8);
  std::vector<std::uint32_t> done;
  flows.advance(0, done);
  EXPECT_TRUE(done.empty());
  EXPECT_DOUBLE_EQ(flows.rate_of(7), kBw / 2);
  EXPECT_DOUBLE_EQ(flows.rate_of(8), kBw / 2);
  EXPECT_DOUBLE_EQ(flows.next_time(), 2e6 / kBw);
  flows.advance(flows.next_time(), done);
  EXPECT_EQ(done.size(), 2u);  // both end at the same instant, processed together
}

TEST(SimFlowNetwork, AFlowBottleneckedElsewhereLeavesTheRestToTheOther) {
  Converging c(kBw / 4);
  FlowNetwork flows(c.net);
  const int a[] = {c.l0, c.l1}, b[] = {c.l1};
  flows.start(0, PathView{a, 2, 1.0, 0, kBw / 4}, 1e6, 0, 7);
  flows.start(0, PathView{b, 1, 1.0, 0, kBw}, 1e6, 0, 8);
  std::vector<std::uint32_t> done;
  flows.advance(0, done);
  EXPECT_DOUBLE_EQ(flows.rate_of(7), kBw / 4);
  EXPECT_DOUBLE_EQ(flows.rate_of(8), 3 * kBw / 4);
}

// Three transfers started together on one path form one group; each still ends when its own
// bytes are through, and the fourth flow on the link sees four, three, two sharers, then none.
TEST(SimFlowNetwork, AGroupOfTransfersEndsPartByPart) {
  Converging c(10 * kBw);
  FlowNetwork flows(c.net);
  const int a[] = {c.l1}, b[] = {c.l1};
  const PathView group{a, 1, 1.0, 0, kBw};
  flows.start(0, group, 3e6, 0, 1);
  flows.start(0, group, 1e6, 0, 2);
  flows.start(0, group, 2e6, 0, 3);
  flows.start(0, PathView{b, 1, 1.0, 0, kBw}, 4e6, 0, 9);
  EXPECT_EQ(flows.groups_started(), 2u);
  std::vector<std::uint32_t> done;
  flows.advance(0, done);
  EXPECT_DOUBLE_EQ(flows.rate_of(2), kBw / 4);
  EXPECT_DOUBLE_EQ(flows.rate_of(9), kBw / 4);
  std::vector<std::pair<std::uint32_t, double>> ends;
  while (flows.next_time() < FlowNetwork::kNever) {
    const double t = flows.next_time();
    done.clear();
    flows.advance(t, done);
    for (auto tag : done) ends.emplace_back(tag, t);
  }
  ASSERT_EQ(ends.size(), 4u);
  const std::pair<std::uint32_t, double> expected[] = {
      {2, 4e6 / kBw}, {3, 7e6 / kBw}, {1, 9e6 / kBw}, {9, 10e6 / kBw}};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(ends[i].first, expected[i].first);
    EXPECT_NEAR(ends[i].second, expected[i].second, 1e-15);
  }
}

// The engine starts a send's ranges one after the other, each on all its paths: with a dozen
// paths (a Dragonfly's minimal ones) the ranges on one path still join one group per path.
TEST(SimFlowNetwork, RangesInterleavedOverManyPathsGroupPerPath) {
  Converging c(10 * kBw);
  FlowNetwork flows(c.net);
  constexpr int kPaths = 12, kRanges = 3;
  std::vector<std::array<int, 1>> links(kPaths, std::array<int, 1>{c.l1});
  std::uint32_t tag = 0;
  for (int r = 0; r < kRanges; ++r)
    for (int p = 0; p < kPaths; ++p)
      flows.start(0, PathView{links[p].data(), 1, 1.0 / kPaths, 0, kBw}, 1e6, 0, tag++);
  EXPECT_EQ(flows.groups_started(), static_cast<std::uint64_t>(kPaths));
  flows.start(1e-3, PathView{links[0].data(), 1, 1.0, 0, kBw}, 1e6, 0, tag++);
  EXPECT_EQ(flows.groups_started(), static_cast<std::uint64_t>(kPaths) + 1);  // a later instant
  std::vector<std::uint32_t> done;
  flows.advance(0, done);
  EXPECT_DOUBLE_EQ(flows.rate_of(0), kBw / (kPaths * kRanges));
}

// Flows slower than every change of an instant keep their rates; the faster ones are refilled.
TEST(SimFlowNetwork, AnEndingFastFlowLeavesItsCapacityToTheOthersOnly) {
  Converging c(kBw / 4);
  FlowNetwork flows(c.net);
  const int a[] = {c.l0, c.l1}, b[] = {c.l1}, d[] = {c.l1};
  flows.start(0, PathView{a, 2, 1.0, 0, kBw / 4}, 1e9, 0, 7);  // held to kBw / 4 by L0
  flows.start(0, PathView{b, 1, 1.0, 0, kBw}, 1e5, 0, 8);
  flows.start(0, PathView{d, 1, 1.0, 0, kBw}, 1e9, 0, 9);
  std::vector<std::uint32_t> done;
  flows.advance(0, done);
  EXPECT_DOUBLE_EQ(flows.rate_of(7), kBw / 4);
  EXPECT_DOUBLE_EQ(flows.rate_of(8), 3 * kBw / 8);
  flows.advance(flows.next_time(), done);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0], 8u);
  EXPECT_DOUBLE_EQ(flows.rate_of(7), kBw / 4);
  EXPECT_DOUBLE_EQ(flows.rate_of(9), 3 * kBw / 4);
}

TEST(SimFlowModel, SharedLinkHalvesBothFlows) {
  Converging c(10 * kBw);
  const auto s = Converging::schedule();
  const double bytes = 1e6;
  const auto r = simulate(s, c.net, c.router, linear(3), config(Model::flow, bytes));
  EXPECT_DOUBLE_EQ(r.rank_finish_s[0], 2 * bytes / kBw);
  EXPECT_DOUBLE_EQ(r.rank_finish_s[1], 2 * bytes / kBw);
  EXPECT_DOUBLE_EQ(r.time_s, 2 * bytes / kBw);
  EXPECT_EQ(r.messages, 2u);
  EXPECT_EQ(r.transfers, 2u);
}

TEST(SimFlowModel, BottleneckedFlowKeepsItsRateWhenTheOtherEnds) {
  Converging c(kBw / 4);
  const auto s = Converging::schedule();
  const double bytes = 1e6;
  auto cfg = config(Model::flow, bytes);
  cfg.record_links = true;
  const auto r = simulate(s, c.net, c.router, linear(3), cfg);
  EXPECT_NEAR(r.rank_finish_s[1], bytes / (0.75 * kBw), 1e-15);
  EXPECT_NEAR(r.rank_finish_s[0], bytes / (0.25 * kBw), 1e-15);
  EXPECT_NEAR(r.time_s, 4 * bytes / kBw, 1e-15);
  ASSERT_EQ(r.links.size(), 2u);
  EXPECT_DOUBLE_EQ(r.links[c.l1].bytes, 2 * bytes);
  EXPECT_NEAR(r.links[c.l1].busy_s, r.time_s, 1e-15);
  EXPECT_DOUBLE_EQ(r.max_link_utilization, 1.0);
}

}  // namespace
}  // namespace topocoll::sim
