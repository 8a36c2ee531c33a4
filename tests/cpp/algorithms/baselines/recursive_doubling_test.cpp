#include <gtest/gtest.h>

#include <string>

#include "core/rank_math.hpp"
#include "core/registry.hpp"
#include "core/verifier/verifier.hpp"
#include "support/sweep_sample.hpp"

namespace topocoll {
namespace {

SchedulePtr build(const std::string& algorithm, Collective c, int p, bool commutative = true) {
  ScheduleRequest request;
  request.collective = c;
  request.ranks = p;
  request.commutative = commutative;
  return registry().build(algorithm, request);
}

VerifyReport check(const std::string& algorithm, Collective c, int p, VerifyMode mode,
                   bool commutative) {
  auto schedule = build(algorithm, c, p, commutative);
  VerifyOptions options;
  options.mode = mode;
  options.commutative = commutative;
  return verify(*schedule, options);
}

struct Case {
  std::string algorithm;
  Collective collective;
  bool keeps_rank_order;
};

const Case kCases[] = {
    {"recdoub-lat", Collective::allreduce, true},
    {"recdoub-bw", Collective::allreduce, true},
    {"recdoub-bw", Collective::reduce_scatter, true},
    {"recdoub-bw", Collective::allgather, true},
    {"recdoub-bw-distance-halving", Collective::allreduce, false},
    {"recdoub-bw-distance-halving", Collective::reduce_scatter, false},
    {"recdoub-bw-distance-halving", Collective::allgather, false},
};

std::string label(const Case& c, int p) {
  return c.algorithm + " " + std::string(collective_name(c.collective)) + " P=" + std::to_string(p);
}

// Exact for every P, in rank order where the algorithm claims non-commutative operators.
TEST(RecursiveDoublingSlow, VerifiesExactlyForEveryP) {
  for (const Case& c : kCases) {
    for (int p = 2; p <= 130; ++p) {
      if (!sweep::in_sample(label(c, p), p <= 16)) continue;
      const auto report =
          check(c.algorithm, c.collective, p, VerifyMode::exact, !c.keeps_rank_order);
      ASSERT_TRUE(report.ok) << label(c, p) << ": " << report.message;
    }
  }
}

// The distance-halving order merges strided groups (rank 0 with rank P/2 first), so the
// non-commutative check must catch it; the registry refuses such requests.
TEST(RecursiveDoubling, DistanceHalvingReordersOperands) {
  const auto schedule = build("recdoub-bw-distance-halving", Collective::allreduce, 8);
  VerifyOptions options;
  options.commutative = false;
  const auto report = verify(*schedule, options);
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.violation, Violation::wrong_result) << report.message;
  EXPECT_THROW((void)build("recdoub-bw-distance-halving", Collective::allreduce, 8, false),
               UnsupportedRequest);
}

TEST(RecursiveDoubling, StepCountsAndMessageSizesMatchThePaper) {
  for (int p : {2, 16, 64, 100, 129}) {
    const int k = static_cast<int>(ceil_log(floor_power(p, 2), 2));
    const int fold_steps = is_power_of(p, 2) ? 0 : 2;
    const auto lat = verify(*build("recdoub-lat", Collective::allreduce, p));
    EXPECT_EQ(lat.max_steps, k + fold_steps) << p;
    const auto bw = verify(*build("recdoub-bw", Collective::allreduce, p));
    EXPECT_EQ(bw.max_steps, 2 * k + fold_steps) << p;
    // The contiguous allreduce layout sends one range per message.
    EXPECT_EQ(bw.ranges, bw.messages) << p;
  }
  // Power of two P: the latency-optimal one moves the whole vector (1 block) each step; the
  // bandwidth-optimal one moves 2 (P - 1) of P blocks per rank.
  const auto lat = verify(*build("recdoub-lat", Collective::allreduce, 32));
  EXPECT_EQ(lat.block_transfers, 32u * 5u);
  const auto bw = verify(*build("recdoub-bw", Collective::allreduce, 32));
  EXPECT_EQ(bw.block_transfers, 32u * 2u * 31u);
}

// Section 2.3.3: the reduce-scatter halves the data as the distance doubles (recdoub-bw) or,
// in the distance-halving variant, as the distance halves.
TEST(RecursiveDoubling, ReduceScatterHalvesTheData) {
  auto doubling = build("recdoub-bw", Collective::reduce_scatter, 16);
  auto halving = build("recdoub-bw-distance-halving", Collective::reduce_scatter, 16);
  for (int rank : {0, 5, 15}) {
    for (int s = 0; s < 4; ++s) {
      Step step;
      doubling->build_step(rank, s, step);
      ASSERT_EQ(step.ops.size(), 2u);
      EXPECT_EQ(step.ops[0].peer, rank ^ (1 << s));
      EXPECT_EQ(step.ops[0].blocks.block_count(), 16u >> (s + 1));
      step.clear();
      halving->build_step(rank, s, step);
      ASSERT_EQ(step.ops.size(), 2u);
      EXPECT_EQ(step.ops[0].peer, rank ^ (8 >> s));
      EXPECT_EQ(step.ops[0].blocks.block_count(), 16u >> (s + 1));
      EXPECT_EQ(step.ops[0].blocks.range_count(), 1u);
    }
  }
  // MPI's layout with doubling distances: the chunks of a window are strided.
  Step first;
  doubling->build_step(0, 0, first);
  EXPECT_EQ(first.ops[0].blocks.to_string(), "{1,3,5,7,9,11,13,15}");
}

TEST(RecursiveDoublingSlow, FingerprintAtLargeP) {
  TOPOCOLL_SKIP_UNLESS_SAMPLED();
  for (const Case& c : kCases) {
    const auto report = check(c.algorithm, c.collective, 4096, VerifyMode::fingerprint, true);
    EXPECT_TRUE(report.ok) << label(c, 4096) << ": " << report.message;
  }
  // Folded: 3000 = 2048 + 952 pairs.
  for (const Case& c : kCases) {
    if (c.algorithm != "recdoub-bw") continue;
    const auto report = check(c.algorithm, c.collective, 3000, VerifyMode::fingerprint, true);
    EXPECT_TRUE(report.ok) << label(c, 3000) << ": " << report.message;
  }
  const auto lat =
      check("recdoub-lat", Collective::allreduce, 16384 + 5000, VerifyMode::fingerprint, true);
  EXPECT_TRUE(lat.ok) << lat.message;
}

TEST(RecursiveDoubling, RejectsWhatItCannotServe) {
  ScheduleRequest torus;
  torus.collective = Collective::allreduce;
  torus.dims = {6, 4};
  try {
    (void)registry().build("recdoub-bw", torus);
    FAIL() << "6x4 should be rejected";
  } catch (const UnsupportedRequest& e) {
    EXPECT_NE(std::string(e.what()).find("power-of-two torus sides (got 6x4)"), std::string::npos)
        << e.what();
  }
  torus.dims = {4, 4};
  torus.ports = 2;  // 1 or 2D = 4
  EXPECT_THROW((void)registry().build("recdoub-bw", torus), UnsupportedRequest);
  torus.ports = 0;
  torus.commutative = false;
  EXPECT_THROW((void)registry().build("recdoub-lat", torus), UnsupportedRequest);
  torus.dims = {4, 4};
  EXPECT_THROW((void)registry().build("recdoub-bw-distance-halving", torus), UnsupportedRequest);
  ScheduleRequest mirrored;
  mirrored.collective = Collective::allreduce;
  mirrored.ranks = 8;
  mirrored.ports = 2;
  mirrored.commutative = false;
  EXPECT_THROW((void)registry().build("recdoub-lat", mirrored), UnsupportedRequest);
  ScheduleRequest three_ports;
  three_ports.collective = Collective::allreduce;
  three_ports.ranks = 8;
  three_ports.ports = 3;
  EXPECT_THROW((void)registry().build("recdoub-lat", three_ports), UnsupportedRequest);
  ScheduleRequest rs;
  rs.collective = Collective::reduce_scatter;
  rs.ranks = 8;
  EXPECT_THROW((void)registry().build("recdoub-lat", rs), UnsupportedRequest);
  ScheduleRequest one;
  one.ranks = 1;
  EXPECT_THROW((void)registry().build("recdoub-bw", one), UnsupportedRequest);
}

TEST(RecursiveDoubling, RegistryDeclaresRequirementsAsData) {
  for (const Case& c : kCases) {
    const AlgorithmInfo& info = registry().get(c.algorithm);
    EXPECT_EQ(info.family, "recursive-doubling");
    EXPECT_EQ(info.requirements.ranks, RankRule::any) << c.algorithm;
    EXPECT_EQ(info.requirements.min_ranks, 2) << c.algorithm;
    const bool torus = c.algorithm != "recdoub-bw-distance-halving";
    EXPECT_EQ(info.requirements.dims, torus ? DimsRule::any_torus : DimsRule::ring_only)
        << c.algorithm;
    EXPECT_EQ(info.requirements.commutative_op, !c.keeps_rank_order) << c.algorithm;
    EXPECT_EQ(info.accepted_ports(1), (torus ? std::vector<int>{1, 2} : std::vector<int>{1}))
        << c.algorithm;
    EXPECT_EQ(info.default_ports(3), 1) << c.algorithm;
    if (torus) EXPECT_EQ(info.accepted_ports(3), (std::vector<int>{1, 6})) << c.algorithm;
    EXPECT_TRUE(info.supports(c.collective)) << c.algorithm;
  }
  EXPECT_FALSE(registry().get("recdoub-lat").supports(Collective::reduce_scatter));
  EXPECT_FALSE(registry().get("recdoub-lat").supports(Collective::allgather));
}

}  // namespace
}  // namespace topocoll
