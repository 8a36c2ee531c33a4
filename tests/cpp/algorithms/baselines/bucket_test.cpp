#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/registry.hpp"
#include "core/verifier/verifier.hpp"
#include "support/sweep_sample.hpp"

namespace topocoll {
namespace {

constexpr Collective kCollectives[] = {Collective::allreduce, Collective::reduce_scatter,
                                       Collective::allgather};

std::string shape_name(const std::vector<int>& dims) {
  std::string out;
  for (int d : dims) out += (out.empty() ? "" : "x") + std::to_string(d);
  return out;
}

int product(const std::vector<int>& dims) {
  int p = 1;
  for (int d : dims) p *= d;
  return p;
}

SchedulePtr build(Collective c, const std::vector<int>& dims, int ports) {
  ScheduleRequest request;
  request.collective = c;
  request.ranks = product(dims);
  request.dims = dims;
  request.ports = ports;
  return registry().build("bucket", request);
}

VerifyReport check(Collective c, const std::vector<int>& dims, int ports, VerifyMode mode) {
  auto schedule = build(c, dims, ports);
  VerifyOptions options;
  options.mode = mode;
  options.adjacency_torus = dims;
  return verify(*schedule, options);
}

// Every accepted port count of the shape, with 0 standing for the default.
std::vector<int> port_counts(const std::vector<int>& dims) {
  auto ports = registry().get("bucket").accepted_ports(static_cast<int>(dims.size()));
  ports.push_back(0);
  return ports;
}

void expect_verifies(const std::vector<int>& dims, const std::vector<int>& ports_list,
                     VerifyMode mode) {
  for (Collective c : kCollectives)
    for (int ports : ports_list) {
      auto report = check(c, dims, ports, mode);
      EXPECT_TRUE(report.ok) << collective_name(c) << " on " << shape_name(dims)
                             << " ports=" << ports << ": " << report.message;
    }
}

TEST(BucketScheduleSlow, VerifiesOnEveryRingUpTo130) {
  for (int p = 2; p <= 130; ++p)
    if (sweep::in_sample(sweep::instance_name("bucket P=", p), p <= 16))
      expect_verifies({p}, {1, 2}, VerifyMode::exact);
}

TEST(BucketScheduleSlow, VerifiesOnEvery2DTorusUpTo8x8) {
  for (int a = 2; a <= 8; ++a)
    for (int b = 2; b <= 8; ++b)
      if (sweep::in_sample(sweep::instance_name("bucket ", a, "x", b), a * b <= 16))
        expect_verifies({a, b}, port_counts({a, b}), VerifyMode::exact);
}

TEST(BucketScheduleSlow, VerifiesOnListedTori) {
  TOPOCOLL_SKIP_UNLESS_SAMPLED();
  const std::vector<std::vector<int>> shapes = {{4, 6},   {6, 6}, {2, 8, 2}, {4, 6, 4},
                                                {10, 10}, {3, 9}, {9, 9},    {3, 4, 5, 2}};
  for (const auto& dims : shapes) expect_verifies(dims, port_counts(dims), VerifyMode::exact);
}

TEST(BucketSchedule, VerifiesWithDimensionsOfSizeOne) {
  const std::vector<std::vector<int>> shapes = {{1, 8},    {8, 1},       {4, 1, 4},
                                                {1, 1, 5}, {3, 1, 1, 2}, {2, 1}};
  for (const auto& dims : shapes) expect_verifies(dims, port_counts(dims), VerifyMode::exact);
}

TEST(BucketScheduleSlow, Fingerprint27x27) {
  TOPOCOLL_SKIP_UNLESS_SAMPLED();
  expect_verifies({27, 27}, {0}, VerifyMode::fingerprint);
}

TEST(BucketScheduleSlow, Fingerprint64x64) {
  TOPOCOLL_SKIP_UNLESS_SAMPLED();
  expect_verifies({64, 64}, {0}, VerifyMode::fingerprint);
}

// Section 5.2: all 2D collectives switch dimension together, so every dimension phase lasts
// d_max - 1 steps; with one starting dimension each phase lasts its own size - 1.
TEST(BucketSchedule, StepCountsFollowSynchronizedSwitching) {
  struct Case {
    std::vector<int> dims;
    int ports;
    int steps;
  };
  const std::vector<Case> cases = {
      {{2, 4}, 4, 2 * 2 * 3},    {{2, 4}, 2, 2 * (1 + 3)},        {{3, 7, 5}, 6, 2 * 3 * 6},
      {{3, 7, 5}, 3, 2 * 3 * 6}, {{3, 7, 5}, 1, 2 * (2 + 6 + 4)}, {{1, 8}, 4, 2 * 7},
      {{11}, 2, 2 * 10}};
  for (const auto& k : cases) {
    auto schedule = build(Collective::allreduce, k.dims, k.ports);
    for (int r = 0; r < schedule->ranks(); ++r)
      ASSERT_EQ(schedule->step_count(r), k.steps) << shape_name(k.dims) << " ports=" << k.ports;
  }
}

// Section 2.3.4: each link carries at most one ring per direction in every step. On tori whose
// sizes are all >= 3 the two neighbours of a dimension differ, so a rank's sends of a step must
// go to distinct peers, and the lanes must fill all 2D ports while the largest dimension runs.
TEST(BucketSchedule, EveryStepUsesDistinctLinks) {
  for (const std::vector<int>& dims :
       std::vector<std::vector<int>>{{3, 5}, {5, 5}, {4, 3, 6}, {7}}) {
    auto schedule = build(Collective::allreduce, dims, 0);
    const int ports = schedule->info().ports;
    EXPECT_EQ(ports, 2 * static_cast<int>(dims.size()));
    for (int r = 0; r < schedule->ranks(); ++r) {
      const auto steps = schedule->steps_of(r);
      for (std::size_t s = 0; s < steps.size(); ++s) {
        std::set<int> send_peers, recv_peers;
        int sends = 0;
        for (const Operation& op : steps[s].ops) {
          if (op.kind == OpKind::send) {
            ++sends;
            EXPECT_TRUE(send_peers.insert(op.peer).second)
                << shape_name(dims) << " rank " << r << " step " << s << ": two sends to "
                << op.peer;
          } else if (op.kind == OpKind::recv) {
            EXPECT_TRUE(recv_peers.insert(op.peer).second)
                << shape_name(dims) << " rank " << r << " step " << s << ": two receives from "
                << op.peer;
          }
        }
        EXPECT_GE(sends, 2) << shape_name(dims) << " rank " << r << " step " << s;
      }
    }
  }
}

// The allreduce numbers each lane's blocks in its visiting order, so each message is one range.
TEST(BucketSchedule, AllreduceSendsAreContiguous) {
  for (const std::vector<int>& dims :
       std::vector<std::vector<int>>{{6, 4}, {3, 4, 5}, {2, 1, 3}, {9}}) {
    auto schedule = build(Collective::allreduce, dims, 0);
    auto report = verify(*schedule);
    ASSERT_TRUE(report.ok) << report.message;
    EXPECT_EQ(report.ranges, report.messages) << shape_name(dims);
  }
}

// The chunked collectives keep MPI's layout (block t is rank t's): a one-lane 4x4
// reduce-scatter first sends rank 0's neighbour the column of ranks with x0 = 3 (a strided set),
// then, on dimension 1, the single block of rank 12.
TEST(BucketSchedule, ChunkedOneLaneBlockSets) {
  auto schedule = build(Collective::reduce_scatter, {4, 4}, 1);
  Step first, switched;
  schedule->build_step(0, 0, first);
  schedule->build_step(0, 3, switched);
  ASSERT_EQ(first.ops.size(), 2u);
  EXPECT_EQ(first.ops[0].kind, OpKind::send);
  EXPECT_EQ(first.ops[0].peer, 1);
  EXPECT_EQ(first.ops[0].blocks.to_vector(), (std::vector<BlockIndex>{3, 7, 11, 15}));
  EXPECT_EQ(first.ops[1].peer, 3);
  EXPECT_EQ(first.ops[1].blocks.to_vector(), (std::vector<BlockIndex>{2, 6, 10, 14}));
  ASSERT_EQ(switched.ops.size(), 2u);
  EXPECT_EQ(switched.ops[0].peer, 4);
  EXPECT_EQ(switched.ops[0].blocks.to_vector(), (std::vector<BlockIndex>{12}));
}

TEST(BucketRegistry, MetadataAndPorts) {
  const AlgorithmInfo& info = registry().get("bucket");
  EXPECT_EQ(info.family, "bucket");
  EXPECT_TRUE(info.supports(Collective::allreduce));
  EXPECT_TRUE(info.supports(Collective::reduce_scatter));
  EXPECT_TRUE(info.supports(Collective::allgather));
  EXPECT_EQ(info.requirements.dims, DimsRule::any_torus);
  EXPECT_TRUE(info.requirements.commutative_op);
  EXPECT_EQ(info.accepted_ports(1), (std::vector<int>{1, 2}));
  EXPECT_EQ(info.accepted_ports(2), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(info.accepted_ports(3), (std::vector<int>{1, 2, 3, 6}));
  EXPECT_EQ(info.default_ports(3), 6);
  EXPECT_EQ(build(Collective::allreduce, {4, 4, 4}, 0)->info().ports, 6);
}

TEST(BucketRegistry, RejectsUnsupportedRequests) {
  ScheduleRequest bad_ports;
  bad_ports.dims = {4, 4};
  bad_ports.ports = 3;
  EXPECT_THROW((void)registry().build("bucket", bad_ports), UnsupportedRequest);
  try {
    (void)registry().build("bucket", bad_ports);
  } catch (const UnsupportedRequest& e) {
    EXPECT_NE(std::string(e.what()).find("1, 2, 4"), std::string::npos) << e.what();
  }
  ScheduleRequest noncommutative;
  noncommutative.ranks = 8;
  noncommutative.commutative = false;
  EXPECT_THROW((void)registry().build("bucket", noncommutative), UnsupportedRequest);
  ScheduleRequest one_rank;
  one_rank.ranks = 1;
  EXPECT_THROW((void)registry().build("bucket", one_rank), UnsupportedRequest);
  ScheduleRequest bcast;
  bcast.collective = Collective::bcast;
  bcast.ranks = 8;
  EXPECT_THROW((void)registry().build("bucket", bcast), UnsupportedRequest);
}

}  // namespace
}  // namespace topocoll
