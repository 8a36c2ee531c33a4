// The flow model (src/sim/flow_network.cpp): max-min sharing computed by FlowNetwork on its
// own, then through the engine. Every expected time is a closed form of the hand-built case.
#include "sim/flow_network.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
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

// A link with room to spare is left out of the component an instant refills (it does not tie
// its flows' rates together), but the new rates must still fit on it: here they would not, and
// the whole component is filled. A: f1 and f3; B (0.9): f2 alone, 0.15 to spare; C (1.5): f1
// and f2. When f3 starts, f1 drops to 0.5 on A and f2 would take C's 1.0, more than B has.
TEST(SimFlowNetwork, ALinkWithRoomLeftOutOfTheRefillStillBinds) {
  testing::HandNetwork net{4, testing::quiet()};
  const int a = net.link(0, 1, kBw, 0), b = net.link(1, 2, 0.9 * kBw, 0);
  const int c = net.link(2, 3, 1.5 * kBw, 0);
  FlowNetwork flows(net);
  const int p1[] = {a, c}, p2[] = {b, c}, p3[] = {a};
  flows.start(0, PathView{p1, 2, 1.0, 0, kBw}, 1e9, 0, 1);
  flows.start(0, PathView{p2, 2, 1.0, 0, 0.9 * kBw}, 1e9, 0, 2);
  std::vector<std::uint32_t> done;
  flows.advance(0, done);
  EXPECT_DOUBLE_EQ(flows.rate_of(1), 0.75 * kBw);
  EXPECT_DOUBLE_EQ(flows.rate_of(2), 0.75 * kBw);
  flows.start(1e-3, PathView{p3, 1, 1.0, 0, kBw}, 1e9, 0, 3);
  flows.advance(1e-3, done);
  EXPECT_DOUBLE_EQ(flows.rate_of(1), 0.5 * kBw);
  EXPECT_DOUBLE_EQ(flows.rate_of(3), 0.5 * kBw);
  EXPECT_DOUBLE_EQ(flows.rate_of(2), 0.9 * kBw);
}

// Max-min rates by progressive filling from scratch, over every active flow: the reference the
// incremental, pruned recomputation must equal.
std::vector<double> reference_max_min(const std::vector<double>& capacity,
                                      const std::vector<std::vector<int>>& paths,
                                      const std::vector<int>& active) {
  std::vector<double> left = capacity, rate(paths.size(), -1);
  std::vector<int> open(capacity.size(), 0);
  for (int f : active)
    for (int l : paths[static_cast<std::size_t>(f)]) ++open[static_cast<std::size_t>(l)];
  for (std::size_t frozen = 0; frozen < active.size();) {
    double level = FlowNetwork::kNever;
    for (std::size_t l = 0; l < capacity.size(); ++l)
      if (open[l] > 0) level = std::min(level, left[l] / open[l]);
    for (std::size_t l = 0; l < capacity.size(); ++l) {
      if (open[l] == 0 || left[l] / open[l] > level * (1 + 1e-12)) continue;
      for (int f : active) {
        const auto& path = paths[static_cast<std::size_t>(f)];
        if (rate[static_cast<std::size_t>(f)] >= 0 ||
            std::find(path.begin(), path.end(), static_cast<int>(l)) == path.end())
          continue;
        rate[static_cast<std::size_t>(f)] = level;
        ++frozen;
        for (int k : path) {
          left[static_cast<std::size_t>(k)] -= level;
          --open[static_cast<std::size_t>(k)];
        }
      }
    }
  }
  return rate;
}

// Random flows over random links, started at random instants with random sizes: after every
// instant each active flow's rate is the from-scratch max-min rate, whatever the refill left
// out or kept fixed.
TEST(SimFlowNetwork, IncrementalRatesEqualMaxMinFromScratch) {
  std::mt19937 random(20261129);
  for (int trial = 0; trial < 200; ++trial) {
    const int links = 2 + static_cast<int>(random() % 7),
              count = 2 + static_cast<int>(random() % 12);
    testing::HandNetwork net{links + 1, testing::quiet()};
    std::vector<double> capacity;
    for (int l = 0; l < links; ++l) {
      capacity.push_back(kBw * (0.25 + 0.25 * static_cast<double>(random() % 8)));
      net.link(l, l + 1, capacity.back(), 0);
    }
    std::vector<std::vector<int>> paths(static_cast<std::size_t>(count));
    std::vector<double> start(static_cast<std::size_t>(count)), bytes = start;
    for (int f = 0; f < count; ++f) {
      auto& path = paths[static_cast<std::size_t>(f)];
      for (int l = 0; l < links; ++l)
        if (random() % 3 == 0) path.push_back(l);
      if (path.empty()) path.push_back(static_cast<int>(random() % static_cast<unsigned>(links)));
      start[static_cast<std::size_t>(f)] = 1e-4 * static_cast<double>(random() % 6);
      bytes[static_cast<std::size_t>(f)] = 1e4 * static_cast<double>(1 + random() % 50);
    }
    FlowNetwork flows(net);
    std::vector<char> started(static_cast<std::size_t>(count), 0), ended = started;
    std::vector<std::uint32_t> done;
    for (double now = 0; now < FlowNetwork::kNever;) {
      for (int f = 0; f < count; ++f) {
        const auto u = static_cast<std::size_t>(f);
        if (started[u] || start[u] > now) continue;
        flows.start(now, PathView{paths[u].data(), static_cast<int>(paths[u].size()), 1.0, 0, 0},
                    bytes[u], 0, static_cast<std::uint32_t>(f));
        started[u] = 1;
      }
      done.clear();
      flows.advance(now, done);
      for (auto tag : done) ended[tag] = 1;
      std::vector<int> active;
      for (int f = 0; f < count; ++f)
        if (started[static_cast<std::size_t>(f)] && !ended[static_cast<std::size_t>(f)])
          active.push_back(f);
      const std::vector<double> expected = reference_max_min(capacity, paths, active);
      for (int f : active)
        ASSERT_NEAR(flows.rate_of(static_cast<std::uint32_t>(f)),
                    expected[static_cast<std::size_t>(f)],
                    1e-9 * expected[static_cast<std::size_t>(f)])
            << "trial " << trial << " flow " << f << " at " << now;
      double next = flows.next_time();
      for (int f = 0; f < count; ++f)
        if (!started[static_cast<std::size_t>(f)])
          next = std::min(next, start[static_cast<std::size_t>(f)]);
      now = next;
    }
    for (int f = 0; f < count; ++f) EXPECT_TRUE(ended[static_cast<std::size_t>(f)]);
  }
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
