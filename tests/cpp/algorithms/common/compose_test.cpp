// Lanes (docs/design.md, "2.2 Lanes and steps"): the verifier checks lanes with their dependencies,
// the JSON format carries them, the simulator runs each lane on its own, and the combinators
// give multi-port algorithms their lanes.
#include "algorithms/common/compose.hpp"

#include <gtest/gtest.h>

#include "core/registry.hpp"
#include "core/schedule_io.hpp"
#include "core/verifier/verifier.hpp"
#include "sim/simulate.hpp"
#include "support/sim_test_support.hpp"

namespace topocoll {
namespace {

using Lanes = ExplicitSchedule::Lanes;

Step with_after(std::vector<Operation> ops, std::vector<Dependency> after) {
  Step s;
  s.ops = std::move(ops);
  s.after = std::move(after);
  return s;
}

ScheduleInfo bcast_info(int ports) {
  ScheduleInfo info;
  info.collective = Collective::bcast;
  info.algorithm = "relay";
  info.ranks = 3;
  info.blocks = 1;
  info.ports = ports;
  return info;
}

// Bcast from rank 0 through rank 1 to rank 2. Rank 1 receives on lane 0; lane 1 idles one
// step (a step of local work only), then forwards. Whether lane 1 must wait for lane 0 is the
// dependency under test: the verifier's own run order happens to deliver block 0 before lane 1
// forwards it, so only the lane-order check can tell a missing dependency.
ExplicitSchedule relay(bool with_dependency) {
  const auto b = BlockSet::single(0);
  const std::vector<Dependency> after =
      with_dependency ? std::vector<Dependency>{{0, 0}} : std::vector<Dependency>{};
  std::vector<Lanes> lanes(3);
  lanes[0] = {{sim::testing::step({Operation::send(1, b)})}};
  lanes[1] = {{sim::testing::step({Operation::recv(0, b, Combine::copy)})},
              {sim::testing::step({}), with_after({Operation::send(2, b, 1)}, after)}};
  lanes[2] = {{sim::testing::step({Operation::recv(1, b, Combine::copy, 1)})}};
  return ExplicitSchedule(bcast_info(2), std::move(lanes));
}

VerifyReport run(const Schedule& s, VerifyMode mode = VerifyMode::exact) {
  VerifyOptions options;
  options.mode = mode;
  return verify(s, options);
}

TEST(LaneVerifier, DeclaredDependencyVerifies) {
  for (VerifyMode mode : {VerifyMode::exact, VerifyMode::fingerprint}) {
    const auto report = run(relay(true), mode);
    EXPECT_TRUE(report.ok) << report.message;
  }
}

TEST(LaneVerifier, MissingDependencyThatLetsALaneReadTooEarlyFails) {
  for (VerifyMode mode : {VerifyMode::exact, VerifyMode::fingerprint}) {
    const auto report = run(relay(false), mode);
    ASSERT_FALSE(report.ok);
    EXPECT_EQ(report.violation, Violation::lane_conflict) << report.message;
    EXPECT_EQ(report.rank, 1);
    EXPECT_NE(report.message.find("lane 0 step 0"), std::string::npos) << report.message;
    EXPECT_NE(report.message.find("lane 1 step 1"), std::string::npos) << report.message;
  }
}

TEST(LaneVerifier, DependencyCycleIsADeadlock) {
  const auto b = BlockSet::single(0);
  std::vector<Lanes> lanes(3);
  lanes[0] = {{sim::testing::step({Operation::send(1, b)})}};
  lanes[1] = {{with_after({Operation::recv(0, b, Combine::copy)}, {{1, 0}})},
              {with_after({Operation::send(2, b, 1)}, {{0, 0}})}};
  lanes[2] = {{sim::testing::step({Operation::recv(1, b, Combine::copy, 1)})}};
  const auto report = run(ExplicitSchedule(bcast_info(2), std::move(lanes)));
  ASSERT_FALSE(report.ok);
  EXPECT_EQ(report.violation, Violation::unmatched);
  EXPECT_NE(report.message.find("cycle"), std::string::npos) << report.message;
}

TEST(LaneVerifier, DependencyOnAMissingLaneOrStepIsMalformed) {
  for (Dependency bad : {Dependency{5, 0}, Dependency{0, 3}, Dependency{1, 0}}) {
    auto s = relay(true);
    s.rank_lanes()[1][1][1].after = {bad};
    const auto report = run(s);
    ASSERT_FALSE(report.ok);
    EXPECT_EQ(report.violation, Violation::malformed) << report.message;
  }
}

TEST(LaneVerifier, PortsCountAcrossLanesAtAnInstant) {
  // Rank 0 sends to ranks 1 and 2 from two lanes; each lane has one send, but with one port
  // they may not run at the same time.
  const auto b = BlockSet::single(0);
  std::vector<Lanes> lanes(3);
  lanes[0] = {{sim::testing::step({Operation::send(1, b)})},
              {sim::testing::step({Operation::send(2, b)})}};
  lanes[1] = {{sim::testing::step({Operation::recv(0, b, Combine::copy)})}};
  lanes[2] = {{sim::testing::step({Operation::recv(0, b, Combine::copy)})}};
  const auto report = run(ExplicitSchedule(bcast_info(1), std::move(lanes)));
  ASSERT_FALSE(report.ok);
  EXPECT_EQ(report.violation, Violation::ports_exceeded) << report.message;
}

TEST(LaneVerifier, TwoLanesOnOneChannelNeedAnOrder) {
  // Rank 0 sends block 0 from two lanes on the same port: which receive each message matches
  // would depend on timing.
  const auto b = BlockSet::single(0);
  ScheduleInfo info = bcast_info(2);
  info.ranks = 2;
  std::vector<Lanes> lanes(2);
  lanes[0] = {{sim::testing::step({Operation::send(1, b)})},
              {sim::testing::step({Operation::send(1, b)})}};
  lanes[1] = {{sim::testing::step({Operation::recv(0, b, Combine::copy)}),
               sim::testing::step({Operation::recv(0, b, Combine::copy)})}};
  const auto report = run(ExplicitSchedule(info, std::move(lanes)));
  ASSERT_FALSE(report.ok);
  EXPECT_EQ(report.violation, Violation::lane_conflict) << report.message;
  EXPECT_NE(report.message.find("port 0"), std::string::npos) << report.message;
}

// Placing a lane's blocks in place gives the set map() gives, inside the first chunk (a
// shift) and across chunks (split at their boundaries), on every lane.
TEST(LaneSchedules, PlaceInPlaceEqualsMap) {
  const algorithms::LaneLayout layout{3, 4};
  std::vector<BlockSet> sets(3);
  sets[0].add(0, 2);
  sets[0].add(3, 4);
  sets[1].add(2, 7);  // crosses the first chunk's end
  sets[1].add(9, 12);
  sets[2].add(1, 2);
  sets[2].add(2, 4);
  for (int lane = 0; lane < 3; ++lane)
    for (const BlockSet& inner : sets) {
      BlockSet placed = inner;
      layout.place(lane, placed);
      EXPECT_EQ(placed, layout.map(lane, inner)) << "lane " << lane << " " << inner.to_string();
    }
}

TEST(LaneSchedules, LockStepViewWaitsForDependencies) {
  // Without its dependency, lane 1's forward could sit in step 1 next to nothing; with it, the
  // one-lane view puts the forward after the receive.
  const auto s = relay(true);
  ASSERT_EQ(s.step_count(1), 2);
  Step first, second;
  s.build_step(1, 0, first);
  s.build_step(1, 1, second);
  ASSERT_EQ(first.ops.size(), 1u);
  EXPECT_EQ(first.ops[0].kind, OpKind::recv);
  ASSERT_EQ(second.ops.size(), 1u);
  EXPECT_EQ(second.ops[0].kind, OpKind::send);
}

TEST(LaneSchedules, JsonVersionTwoCarriesLanesAndDependencies) {
  const auto original = relay(true);
  const std::string text = schedule_to_json(original);
  EXPECT_NE(text.find("\"version\":2"), std::string::npos);
  const auto parsed = schedule_from_json(text);
  EXPECT_EQ(parsed->rank_lanes()[1].size(), 2u);
  EXPECT_EQ(parsed->rank_lanes()[1][1][1].after, (std::vector<Dependency>{{0, 0}}));
  EXPECT_TRUE(run(*parsed).ok);
  // A one-lane schedule is still written (and read) as version 1.
  ScheduleRequest request;
  request.ranks = 5;
  const auto ring = registry().build("ring", request);
  const std::string v1 = schedule_to_json(*ring);
  EXPECT_NE(v1.find("\"version\":1"), std::string::npos);
  EXPECT_TRUE(run(*schedule_from_json(v1)).ok);
}

TEST(LaneSchedules, JsonRejectsBadLanes) {
  const std::string head =
      R"({"format":"topocoll-schedule","version":2,"collective":"bcast","ranks":2,"blocks":1,)";
  EXPECT_THROW((void)schedule_from_json(head + R"("steps":[[],[]]})"), ScheduleFormatError);
  EXPECT_THROW((void)schedule_from_json(head + R"("lanes":[[],[[]]]})"), ScheduleFormatError);
  EXPECT_THROW((void)schedule_from_json(head + R"("lanes":[[[{"ops":[],"after":[1]}]],[[]]]})"),
               ScheduleFormatError);
  EXPECT_THROW((void)schedule_from_json(head + R"("lanes":[[[{"ops":[],"wait":[]}]],[[]]]})"),
               ScheduleFormatError);
}

TEST(LaneSchedules, MultiPortAlgorithmsRunOneLanePerPort) {
  ScheduleRequest request;
  request.ranks = 64;
  request.dims = {16, 4};
  request.ports = 4;
  const auto bucket = registry().build("bucket", request);
  EXPECT_EQ(bucket->lane_count(0), 4);
  // The lanes start on different dimensions, so their step counts differ on a 16x4 torus:
  // lock-step would make every lane wait for the slowest at every step.
  EXPECT_TRUE(run(*bucket, VerifyMode::fingerprint).ok);
}

}  // namespace
}  // namespace topocoll

namespace topocoll::sim {
namespace {

using testing::HandNetwork;
using testing::HandRouter;

// Rank 0 sends four blocks to rank 1 on lane 0 and one block to rank 2 in each of two steps of
// lane 1, over separate links of equal bandwidth. Run independently, lane 1's second step
// starts while lane 0 is still in its first, and the whole takes 4 block times; in lock-step
// it would take 5.
TEST(LaneSimulation, ALaneStartsItsSecondStepWhileAnotherIsInItsFirst) {
  constexpr double kBw = 1e9;
  HandNetwork net(3, testing::quiet());
  HandRouter router;
  router.set(0, 1, {{{net.link(0, 1, kBw, 0)}, 1.0}});
  router.set(0, 2, {{{net.link(0, 2, kBw, 0)}, 1.0}});
  ScheduleInfo info;
  info.collective = Collective::allreduce;
  info.algorithm = "hand";
  info.ranks = 3;
  info.blocks = 6;
  info.ports = 2;
  const auto four = BlockSet::range(0, 4);
  std::vector<ExplicitSchedule::Lanes> lanes(3);
  lanes[0] = {{testing::step({Operation::send(1, four)})},
              {testing::step({Operation::send(2, BlockSet::single(4), 1)}),
               testing::step({Operation::send(2, BlockSet::single(5), 1)})}};
  lanes[1] = {{testing::step({Operation::recv(0, four, Combine::copy)})}};
  lanes[2] = {{testing::step({Operation::recv(0, BlockSet::single(4), Combine::copy, 1)}),
               testing::step({Operation::recv(0, BlockSet::single(5), Combine::copy, 1)})}};
  const ExplicitSchedule s(info, std::move(lanes));
  const double block = 1000 / kBw;  // 6000-byte vector: 1000-byte blocks
  for (Model model : {Model::flow, Model::packet}) {
    const auto r = simulate(s, net, router, testing::linear(3), testing::config(model, 6000));
    EXPECT_NEAR(r.rank_finish_s[2], 2 * block, 0.05 * block) << static_cast<int>(model);
    EXPECT_NEAR(r.time_s, 4 * block, 0.05 * block) << static_cast<int>(model);
  }
}

}  // namespace
}  // namespace topocoll::sim
