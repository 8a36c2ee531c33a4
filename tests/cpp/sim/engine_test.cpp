// The engine (src/sim/engine.cpp, simulate.cpp) on hand-built networks, under every model:
// step dependencies, zero-byte messages, reductions, matching, traces and errors. Every
// expected time is a closed form of the hand-built case. The models' sharing rules have their
// own tests (flow_network_test.cpp, analytic_network_test.cpp).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/registry.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulate.hpp"
#include "support/converging_case.hpp"
#include "support/sim_test_support.hpp"

namespace topocoll::sim {
namespace {

using testing::config;
using testing::Converging;
using testing::hand_schedule;
using testing::HandNetwork;
using testing::HandRouter;
using testing::linear;
using testing::quiet;
using testing::step;

constexpr double kBw = 1e9;  // bytes per second

// 0 -> 1 -> 2 on a line, rank 1 forwards in its second step; rank 2 has a single step.
class StepDependencies : public ::testing::TestWithParam<Model> {};

TEST_P(StepDependencies, StepsOfDifferentLengthsWaitForTheirData) {
  topo::NetworkParams p;
  p.link_latency_s = 100e-9;
  p.hop_latency_s = 200e-9;
  p.alpha_s = 1e-6;
  HandNetwork net(3, p);
  HandRouter router;
  const double lat = 300e-9;
  router.set(0, 1, {{{net.link(0, 1, kBw, lat)}, 1.0}});
  router.set(1, 2, {{{net.link(1, 2, kBw, lat)}, 1.0}});
  const auto all = BlockSet::range(0, 4);
  const auto s = hand_schedule(
      4, {{step({Operation::send(1, all)})},
          {step({Operation::recv(0, all, Combine::copy)}), step({Operation::send(2, all)})},
          {step({Operation::recv(1, all, Combine::copy)})}});
  const double bytes = 4096;
  const auto r = simulate(s, net, router, linear(3), config(GetParam(), bytes));
  const double hop = p.alpha_s + lat + bytes / kBw;
  EXPECT_NEAR(r.rank_finish_s[0], hop, 1e-15);
  EXPECT_NEAR(r.rank_finish_s[1], 2 * hop, 1e-15);
  EXPECT_NEAR(r.rank_finish_s[2], 2 * hop, 1e-15);
  EXPECT_NEAR(r.time_s, 2 * hop, 1e-15);
  EXPECT_NEAR(r.goodput_gbps, bytes * 8 / (2 * hop) / 1e9, 1e-9);
}

TEST_P(StepDependencies, ZeroByteMessagesPayLatencyOnly) {
  topo::NetworkParams p;
  p.alpha_s = 2e-6;
  HandNetwork net(2, p);
  HandRouter router;
  const double lat = 500e-9;
  router.set(0, 1, {{{net.link(0, 1, kBw, lat)}, 1.0}});
  router.set(1, 0, {{{net.link(1, 0, kBw, lat)}, 1.0}});
  // Four blocks of a 2-byte vector: blocks 2 and 3 are empty; the empty set is a message too.
  const auto s = hand_schedule(
      4, {{step({Operation::send(1, BlockSet::range(2, 4))}), step({Operation::send(1, {})}),
           step({Operation::recv(1, BlockSet::range(0, 1), Combine::copy)})},
          {step({Operation::recv(0, BlockSet::range(2, 4), Combine::copy)}),
           step({Operation::recv(0, {}, Combine::copy)}),
           step({Operation::send(0, BlockSet::range(0, 1))})}});
  const auto r = simulate(s, net, router, linear(2), config(GetParam(), 2));
  EXPECT_NEAR(r.time_s, 2 * (p.alpha_s + lat) + p.alpha_s + lat + 1 / kBw, 1e-15);
  EXPECT_EQ(r.messages, 3u);
}

TEST_P(StepDependencies, ASendOfManyRangesIsOneMessageAndReductionsCostPerByte) {
  topo::NetworkParams p = quiet();
  p.reduce_s_per_byte = 1e-9;
  HandNetwork net(2, p);
  HandRouter router;
  router.set(0, 1, {{{net.link(0, 1, kBw, 0)}, 1.0}});
  BlockSet gaps;  // blocks 0, 2, 4: three ranges, one message (three as a runtime per range)
  gaps.add(0);
  gaps.add(2);
  gaps.add(4);
  const auto s = hand_schedule(
      6, {{step({Operation::send(1, gaps)})}, {step({Operation::recv(0, gaps, Combine::reduce)})}});
  const double bytes = 6000;  // 1000 per block
  for (const bool per_range : {false, true}) {
    auto c = config(GetParam(), bytes);
    c.message_per_range = per_range;
    const auto r = simulate(s, net, router, linear(2), c);
    EXPECT_EQ(r.messages, per_range ? 3u : 1u);
    EXPECT_NEAR(r.rank_finish_s[0], 3000 / kBw, 1e-15);
    EXPECT_NEAR(r.rank_finish_s[1], 3000 / kBw + 3000 * p.reduce_s_per_byte, 1e-15);
  }
}

TEST_P(StepDependencies, MultiPathMessagesSplitBySharePerPath) {
  HandNetwork net(2, quiet());
  HandRouter router;
  const int a = net.link(0, 1, kBw, 0), b = net.link(0, 1, kBw, 0);
  router.set(0, 1, {{{a}, 0.5}, {{b}, 0.5}});
  const auto all = BlockSet::range(0, 1);
  const auto s = hand_schedule(
      1, {{step({Operation::send(1, all)})}, {step({Operation::recv(0, all, Combine::copy)})}});
  const auto r = simulate(s, net, router, linear(2), config(GetParam(), 1e6));
  EXPECT_EQ(r.messages, 1u);
  EXPECT_EQ(r.transfers, 2u);
  EXPECT_NEAR(r.time_s, 0.5e6 / kBw, 1e-15);
}

TEST_P(StepDependencies, PortsMatchSendsAndReceivesSeparately) {
  // Rank 0 sends a large block on port 1 and a small one on port 0; rank 1 receives port 0
  // first (its step 0) and port 1 in step 1. Matching per port makes step 0 wait only for
  // the small message.
  HandNetwork net(2, quiet());
  HandRouter router;
  router.set(0, 1, {{{net.link(0, 1, kBw, 0)}, 1.0}});
  const auto s =
      hand_schedule(4, {{step({Operation::send(1, BlockSet::range(0, 3), 1),
                               Operation::send(1, BlockSet::range(3, 4), 0)})},
                        {step({Operation::recv(0, BlockSet::range(3, 4), Combine::copy, 0)}),
                         step({Operation::recv(0, BlockSet::range(0, 3), Combine::copy, 1)})}});
  const auto r = simulate(s, net, router, linear(2), config(GetParam(), 4000));
  // Flow: the two share the link until the small one ends. Analytic: both messages of step 0
  // share the link, so the large one pays twice its bytes (the model's approximation).
  EXPECT_NEAR(r.time_s, (GetParam() == Model::flow ? 4000 : 6000) / kBw, 1e-15);
  EXPECT_EQ(r.messages, 2u);
}

INSTANTIATE_TEST_SUITE_P(BothModels, StepDependencies,
                         ::testing::Values(Model::analytic, Model::flow), [](const auto& info) {
                           return info.param == Model::flow ? "flow" : "analytic";
                         });

TEST(SimErrors, AReceiveWithoutASendIsReportedAsADeadlock) {
  HandNetwork net(2, quiet());
  HandRouter router;
  const auto s =
      hand_schedule(1, {{}, {step({Operation::recv(0, BlockSet::range(0, 1), Combine::copy)})}});
  EXPECT_THROW((void)simulate(s, net, router, linear(2), config(Model::flow, 8)),
               std::runtime_error);
}

TEST(SimErrors, MappingMustPlaceEveryRankOnItsOwnHost) {
  HandNetwork net(2, quiet());
  HandRouter router;
  const auto s = hand_schedule(1, {{}, {}});
  topo::Mapping twice{{1, 1}};
  EXPECT_THROW((void)simulate(s, net, router, twice, config(Model::flow, 8)), UnsupportedRequest);
  topo::Mapping short_map{{0}};
  EXPECT_THROW((void)simulate(s, net, router, short_map, config(Model::flow, 8)),
               UnsupportedRequest);
  auto odd = config(Model::flow, 9);
  odd.element_bytes = 4;
  EXPECT_THROW((void)simulate(s, net, router, linear(2), odd), UnsupportedRequest);
}

TEST(SimPlacement, TheSchedulesPlacementComposesWithTheMapping) {
  // Rank 0 sends to rank 1; the placement swaps them, so the data goes host 1 -> host 0, whose
  // link is four times slower.
  HandNetwork net(2, quiet());
  HandRouter router;
  router.set(0, 1, {{{net.link(0, 1, kBw, 0)}, 1.0}});
  router.set(1, 0, {{{net.link(1, 0, kBw / 4, 0)}, 1.0}});
  const auto all = BlockSet::range(0, 1);
  ScheduleInfo info;
  info.ranks = 2;
  info.blocks = 1;
  info.placement = {1, 0};
  const ExplicitSchedule s(
      info, {{step({Operation::send(1, all)})}, {step({Operation::recv(0, all, Combine::copy)})}});
  for (Model model : {Model::analytic, Model::flow}) {
    const auto r = simulate(s, net, router, linear(2), config(model, 1000));
    EXPECT_NEAR(r.time_s, 4000 / kBw, 1e-15);
  }
  info.placement = {1, 1};
  const ExplicitSchedule bad(info, std::vector<std::vector<Step>>(2));
  EXPECT_THROW((void)simulate(bad, net, router, linear(2), config(Model::flow, 8)),
               UnsupportedRequest);
}

TEST(SimErrors, APeerOutsideTheJobIsRefused) {
  HandNetwork net(2, quiet());
  HandRouter router;
  const auto s = hand_schedule(1, {{step({Operation::send(5, BlockSet::range(0, 1))})}, {}});
  EXPECT_THROW((void)simulate(s, net, router, linear(2), config(Model::flow, 8)),
               UnsupportedRequest);
}

#ifndef TOPOCOLL_HAVE_SIMGRID
TEST(SimErrors, SimgridModelNamesWhatToInstall) {
  HandNetwork net(2, quiet());
  HandRouter router;
  const auto s = hand_schedule(1, {{}, {}});
  try {
    (void)simulate(s, net, router, linear(2), config(Model::simgrid, 8));
    FAIL() << "expected UnsupportedRequest";
  } catch (const UnsupportedRequest& e) {
    EXPECT_NE(std::string(e.what()).find("libsimgrid-dev"), std::string::npos);
  }
}
#endif

TEST(SimTrace, OneSlicePerMessageOnTheSendersTrack) {
  Converging c(10 * kBw);
  const auto s = Converging::schedule();
  auto cfg = config(Model::flow, 1000);
  cfg.trace_path = ::testing::TempDir() + "sim_trace_test.json";
  const auto r = simulate(s, c.net, c.router, linear(3), cfg);
  std::ifstream in(cfg.trace_path);
  const auto trace = nlohmann::json::parse(in);
  int slices = 0, tracks = 0;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") == "M" && e.at("name") == "thread_name") ++tracks;
    if (e.at("ph") != "X") continue;
    ++slices;
    EXPECT_EQ(e.at("name"), "to 2, 1000 B");
    EXPECT_NEAR(e.at("dur").get<double>(), r.time_s * 1e6, 1e-6);
  }
  EXPECT_EQ(slices, 2);
  EXPECT_EQ(tracks, 3);
  std::remove(cfg.trace_path.c_str());
}

}  // namespace
}  // namespace topocoll::sim
