#include <gtest/gtest.h>

#include <string>

#include "core/rank_math.hpp"
#include "core/registry.hpp"
#include "core/verifier/verifier.hpp"

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
};

const Case kCases[] = {
    {"recdoub-lat", Collective::allreduce},
    {"recdoub-bw", Collective::allreduce},
    {"recdoub-bw", Collective::reduce_scatter},
    {"recdoub-bw", Collective::allgather},
};

std::string label(const Case& c, int p) {
  return c.algorithm + " " + std::string(collective_name(c.collective)) + " P=" + std::to_string(p);
}

// Exact and in rank order (both algorithms claim non-commutative operators) for every P.
TEST(RecursiveDoubling, VerifiesExactlyInRankOrderForEveryP) {
  for (const Case& c : kCases) {
    for (int p = 2; p <= 130; ++p) {
      const auto report = check(c.algorithm, c.collective, p, VerifyMode::exact, false);
      ASSERT_TRUE(report.ok) << label(c, p) << ": " << report.message;
    }
  }
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

TEST(RecursiveDoubling, RabenseifnerHalvesTheDataAsTheDistanceDoubles) {
  auto schedule = build("recdoub-bw", Collective::reduce_scatter, 16);
  for (int rank : {0, 5, 15}) {
    for (int s = 0; s < 4; ++s) {
      Step step;
      schedule->build_step(rank, s, step);
      ASSERT_EQ(step.ops.size(), 2u);
      EXPECT_EQ(step.ops[0].peer, rank ^ (1 << s));
      EXPECT_EQ(step.ops[0].blocks.block_count(), 16u >> (s + 1));
    }
  }
}

TEST(RecursiveDoubling, FingerprintAtLargeP) {
  for (const Case& c : kCases) {
    for (int p : {4096, 4096 + 1000}) {
      const auto report = check(c.algorithm, c.collective, p, VerifyMode::fingerprint, true);
      EXPECT_TRUE(report.ok) << label(c, p) << ": " << report.message;
    }
  }
}

TEST(RecursiveDoubling, RejectsWhatItCannotServe) {
  ScheduleRequest torus;
  torus.collective = Collective::allreduce;
  torus.dims = {4, 4};
  EXPECT_THROW((void)registry().build("recdoub-bw", torus), UnsupportedRequest);
  ScheduleRequest two_ports;
  two_ports.collective = Collective::allreduce;
  two_ports.ranks = 8;
  two_ports.ports = 2;
  EXPECT_THROW((void)registry().build("recdoub-lat", two_ports), UnsupportedRequest);
  ScheduleRequest rs;
  rs.collective = Collective::reduce_scatter;
  rs.ranks = 8;
  EXPECT_THROW((void)registry().build("recdoub-lat", rs), UnsupportedRequest);
  ScheduleRequest one;
  one.ranks = 1;
  EXPECT_THROW((void)registry().build("recdoub-bw", one), UnsupportedRequest);
}

TEST(RecursiveDoubling, RegistryDeclaresRequirementsAsData) {
  for (const char* name : {"recdoub-lat", "recdoub-bw"}) {
    const AlgorithmInfo& info = registry().get(name);
    EXPECT_EQ(info.requirements.ranks, RankRule::any) << name;
    EXPECT_EQ(info.requirements.dims, DimsRule::ring_only) << name;
    EXPECT_FALSE(info.requirements.commutative_op) << name;
    EXPECT_EQ(info.accepted_ports(1), std::vector<int>{1}) << name;
  }
  EXPECT_TRUE(registry().get("recdoub-bw").supports(Collective::reduce_scatter));
  EXPECT_TRUE(registry().get("recdoub-bw").supports(Collective::allgather));
  EXPECT_FALSE(registry().get("recdoub-lat").supports(Collective::allgather));
}

}  // namespace
}  // namespace topocoll
