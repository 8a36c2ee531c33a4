// Gather, scatter and alltoall (bine-trees-sc25.txt sections 4.1, 4.2, 4.4): exact
// verification over every P in 2..130 (every root up to P = 32, roots {0, 1, P/2, P-1}
// above), the paper's examples, the shape of the transfers, and fingerprint runs at large P.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "algorithms/personalized/alltoall_schedules.hpp"
#include "algorithms/personalized/gather_scatter.hpp"
#include "algorithms/personalized/personal_negabinary.hpp"
#include "core/rank_math.hpp"
#include "core/registry.hpp"
#include "core/verifier/verifier.hpp"
#include "support/sweep_sample.hpp"

namespace topocoll {
namespace {

using algorithms::GatherTree;

SchedulePtr build(const char* algorithm, Collective c, int p, int root = 0) {
  ScheduleRequest request;
  request.collective = c;
  request.ranks = p;
  request.root = root;
  return registry().build(algorithm, request);
}

VerifyReport run(const Schedule& schedule, VerifyMode mode) {
  VerifyOptions options;
  options.mode = mode;
  return verify(schedule, options);
}

VerifyReport check(const char* algorithm, Collective c, int p, int root, VerifyMode mode) {
  return run(*build(algorithm, c, p, root), mode);
}

std::vector<int> roots_for(int p) {
  if (p <= 32) {
    std::vector<int> all;
    for (int r = 0; r < p; ++r) all.push_back(r);
    return all;
  }
  const std::set<int> some{0, 1, p / 2, p - 1};
  return {some.begin(), some.end()};
}

void expect_rooted_verifies(const char* algorithm, Collective c) {
  for (int p = 2; p <= 130; ++p)
    for (int root : roots_for(p)) {
      auto report = check(algorithm, c, p, root, VerifyMode::exact);
      ASSERT_TRUE(report.ok) << algorithm << " " << collective_name(c) << " P=" << p
                             << " root=" << root << ": " << report.message;
    }
}

// Blocks of every send, weighted by the modular distance it travels (section 2.2).
long long distance_volume(const Schedule& s) {
  const int p = s.ranks();
  long long total = 0;
  for (int rank = 0; rank < p; ++rank)
    for (const Step& step : s.steps_of(rank))
      for (const Operation& op : step.ops) {
        if (op.kind != OpKind::send) continue;
        const int d = std::abs(rank - op.peer);
        total += static_cast<long long>(std::min(d, p - d)) *
                 static_cast<long long>(op.blocks.block_count());
      }
  return total;
}

// The operations of `rank` as (kind, peer, blocks) strings, step by step.
std::vector<std::string> ops_of(const Schedule& s, int rank) {
  std::vector<std::string> out;
  for (const Step& step : s.steps_of(rank))
    for (const Operation& op : step.ops)
      out.push_back(std::string(op_kind_name(op.kind)) + " " + std::to_string(op.peer) + " " +
                    op.blocks.to_string());
  return out;
}

TEST(PersonalizedNegabinary, RoundTripsAndPaperExamples) {
  using namespace algorithms::personal;
  for (int bits = 1; bits <= 16; ++bits) {
    EXPECT_EQ(even_bits(bits) + odd_bits(bits) + 1, 1LL << bits);
    for (long long v = -odd_bits(bits); v <= even_bits(bits); ++v) {
      const std::uint64_t nb = to_negabinary(v);
      ASSERT_EQ(nb & ~low_mask(bits), 0U) << v << " does not fit " << bits << " bits";
      ASSERT_EQ(from_negabinary(nb), v);
    }
    long long power = 1, sum = 0;
    for (int j = 0; j < bits; ++j, power *= -2) sum += power;
    EXPECT_EQ(ones_value(bits), sum);
  }
  EXPECT_EQ(to_negabinary(2), 0b110U);      // section 2.3.1: 2 = 110
  EXPECT_EQ(to_negabinary(-1), 0b011U);     // -1 = 011
  EXPECT_EQ(even_bits(6), 21);              // m on six bits
  EXPECT_EQ(equal_low_bits(0b1000, 4), 3);  // section 2.3.2: u = 3 for 1000
  EXPECT_EQ(equal_low_bits(0b1011, 4), 2);  // u = 2 for 1011
  EXPECT_EQ(equal_low_bits(0b0000, 4), 4);
}

// Fig. 7 and section 4.2 on eight ranks.
TEST(PersonalizedGatherScatter, FollowsThePaperOnEightRanks) {
  auto bine = build("bine", Collective::gather, 8);
  EXPECT_EQ(ops_of(*bine, 0),
            (std::vector<std::string>{"recv 1 {1}", "recv 7 {6-7}", "recv 3 {2-5}"}));
  EXPECT_EQ(ops_of(*bine, 3),
            (std::vector<std::string>{"recv 2 {2}", "recv 4 {4-5}", "send 0 {2-5}"}));
  // Scatter: rank 0 first sends [2, 5], the range it received last in the gather.
  EXPECT_EQ(ops_of(*build("bine", Collective::scatter, 8), 0).front(), "send 3 {2-5}");
  // Binomial: at step 1 rank 4 holds [4, 5] and receives [6, 7].
  EXPECT_EQ(ops_of(*build("binomial", Collective::gather, 8), 4),
            (std::vector<std::string>{"recv 5 {5}", "recv 6 {6-7}", "send 0 {4-7}"}));
}

TEST(PersonalizedGatherScatter, BinomialGatherEveryPAndRoot) {
  expect_rooted_verifies("binomial", Collective::gather);
}
TEST(PersonalizedGatherScatter, BinomialScatterEveryPAndRoot) {
  expect_rooted_verifies("binomial", Collective::scatter);
}
TEST(PersonalizedGatherScatter, BineGatherEveryPAndRoot) {
  expect_rooted_verifies("bine", Collective::gather);
}
TEST(PersonalizedGatherScatter, BineScatterEveryPAndRoot) {
  expect_rooted_verifies("bine", Collective::scatter);
}

// ceil(log2 P) steps, and every transfer is one circular range: at most two block ranges.
TEST(PersonalizedGatherScatter, LogStepsAndAtMostTwoSegments) {
  for (const char* algorithm : {"binomial", "bine"})
    for (Collective c : {Collective::gather, Collective::scatter})
      for (int p = 2; p <= 130; ++p)
        for (int root : {0, p / 3, p - 1}) {
          auto s = build(algorithm, c, p, root);
          int steps = 0;
          for (int rank = 0; rank < p; ++rank) {
            steps = std::max(steps, s->step_count(rank));
            for (const Step& step : s->steps_of(rank)) {
              ASSERT_EQ(step.ops.size(), 1U);
              ASSERT_LE(step.ops[0].blocks.range_count(), 2U)
                  << algorithm << " P=" << p << " root=" << root << " rank=" << rank;
            }
          }
          EXPECT_EQ(steps, ceil_log(p, 2)) << algorithm << " P=" << p;
        }
}

TEST(PersonalizedGatherScatter, BuildersServeSeveralBlocksPerRank) {
  for (GatherTree tree : {GatherTree::binomial, GatherTree::bine})
    for (int p = 2; p <= 40; ++p)
      for (int root : {0, p - 1}) {
        auto g = algorithms::make_gather(tree, p, root, 3);
        auto s = algorithms::make_scatter(tree, p, root, 3);
        EXPECT_EQ(g->info().blocks, 3 * p);
        auto rg = run(*g, VerifyMode::exact), rs = run(*s, VerifyMode::exact);
        EXPECT_TRUE(rg.ok) << "gather P=" << p << ": " << rg.message;
        EXPECT_TRUE(rs.ok) << "scatter P=" << p << ": " << rs.message;
      }
}

// Section 2.4: Bine edges are about 2/3 as long as binomial ones, so the blocks moved times the
// distance they travel drop by about a third.
TEST(PersonalizedGatherScatter, BineShortensTheDistanceTravelled) {
  for (int p : {8, 16, 64, 100, 256, 1000, 1024})
    for (Collective c : {Collective::gather, Collective::scatter}) {
      const long long bine = distance_volume(*build("bine", c, p, 1));
      const long long binomial = distance_volume(*build("binomial", c, p, 1));
      EXPECT_LT(bine, binomial) << collective_name(c) << " P=" << p;
      if (is_power_of(p, 2)) EXPECT_LE(3 * bine, 2 * binomial + 3 * p) << "P=" << p;
    }
}

TEST(PersonalizedGatherScatterSlow, FingerprintAtLargeP) {
  TOPOCOLL_SKIP_UNLESS_SAMPLED();
  for (const char* algorithm : {"binomial", "bine"})
    for (Collective c : {Collective::gather, Collective::scatter})
      for (auto [p, root] : {std::pair{4096, 0}, std::pair{4096, 4095}, std::pair{4095, 1234}}) {
        auto report = check(algorithm, c, p, root, VerifyMode::fingerprint);
        EXPECT_TRUE(report.ok) << algorithm << " " << collective_name(c) << " P=" << p << ": "
                               << report.message;
      }
}

TEST(PersonalizedAlltoallSlow, EveryAlgorithmEveryP) {
  for (const char* algorithm : {"pairwise", "bruck", "bine"})
    for (int p = 2; p <= 130; ++p) {
      if (!sweep::in_sample(sweep::instance_name(algorithm, " alltoall P=", p), p <= 16)) continue;
      auto report = check(algorithm, Collective::alltoall, p, 0, VerifyMode::exact);
      ASSERT_TRUE(report.ok) << algorithm << " P=" << p << ": " << report.message;
    }
}

TEST(PersonalizedAlltoall, BuildersServeSeveralBlocksPerRank) {
  for (auto make : {algorithms::make_pairwise_alltoall, algorithms::make_bruck_alltoall,
                    algorithms::make_bine_alltoall})
    for (int p = 2; p <= 40; ++p) {
      auto s = make(p, 2);
      auto report = run(*s, VerifyMode::exact);
      EXPECT_TRUE(report.ok) << s->info().algorithm << " P=" << p << ": " << report.message;
    }
}

// Section 4.4: every Bine send is one contiguous range; placement, log2 steps, permutation.
TEST(PersonalizedAlltoallSlow, BineSendsContiguousDataInLogSteps) {
  for (int p = 2; p <= 130; ++p) {
    if (!sweep::in_sample(sweep::instance_name("bine alltoall ranges P=", p), p <= 16)) continue;
    auto s = build("bine", Collective::alltoall, p);
    auto report = run(*s, VerifyMode::exact);
    ASSERT_TRUE(report.ok) << report.message;
    EXPECT_EQ(report.ranges, report.messages) << "P=" << p;
    const int butterfly = p % 2 == 0 ? p : p - 1;
    EXPECT_EQ(report.max_steps, ceil_log(butterfly, 2) + (p % 2 == 0 ? 2 : 4)) << "P=" << p;
  }
}

TEST(PersonalizedAlltoallSlow, BineShortensTheDistanceTravelledAgainstBruck) {
  TOPOCOLL_SKIP_UNLESS_SAMPLED();
  for (int p : {8, 16, 64, 100, 256, 1000}) {
    const long long bine = distance_volume(*build("bine", Collective::alltoall, p));
    const long long bruck = distance_volume(*build("bruck", Collective::alltoall, p));
    EXPECT_LT(bine, bruck) << "P=" << p;
  }
}

TEST(PersonalizedAlltoall, AMissingPermutationIsCaught) {
  auto s = materialize(*build("bine", Collective::alltoall, 6));
  s->lane_zero(3).pop_back();
  auto report = run(*s, VerifyMode::exact);
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.violation, Violation::wrong_result);
  EXPECT_EQ(report.rank, 3);
}

// 4096, plus a non-power-of-two even P and an odd P (the fold through rank P - 2).
TEST(PersonalizedAlltoallSlow, BineFingerprintAtLargeP) {
  TOPOCOLL_SKIP_UNLESS_SAMPLED();
  for (int p : {4096, 1000, 1023}) {
    auto report = check("bine", Collective::alltoall, p, 0, VerifyMode::fingerprint);
    EXPECT_TRUE(report.ok) << "P=" << p << ": " << report.message;
  }
}

TEST(PersonalizedAlltoallSlow, BruckFingerprintAt4096) {
  TOPOCOLL_SKIP_UNLESS_SAMPLED();
  auto report = check("bruck", Collective::alltoall, 4096, 0, VerifyMode::fingerprint);
  EXPECT_TRUE(report.ok) << report.message;
}

// Linear in P: 4096 ranks take P - 1 = 4095 steps (about 6 s on two cores).
TEST(PersonalizedAlltoallSlow, PairwiseFingerprintAt4096) {
  TOPOCOLL_SKIP_UNLESS_SAMPLED();
  auto report = check("pairwise", Collective::alltoall, 4096, 0, VerifyMode::fingerprint);
  EXPECT_TRUE(report.ok) << report.message;
}

TEST(PersonalizedRegistry, RejectsWhatItCannotServe) {
  auto expect_reason = [](const char* algorithm, ScheduleRequest request, const char* needle) {
    try {
      (void)registry().build(algorithm, request);
      ADD_FAILURE() << algorithm << " accepted a request it cannot serve";
    } catch (const UnsupportedRequest& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  ScheduleRequest bad_root;
  bad_root.collective = Collective::gather;
  bad_root.ranks = 8;
  bad_root.root = 8;
  expect_reason("bine", bad_root, "accepted: 0..7");
  ScheduleRequest torus = bad_root;
  torus.root = 0;
  torus.dims = {4, 2};
  expect_reason("binomial", torus, "ring");
  ScheduleRequest alltoall;
  alltoall.collective = Collective::alltoall;
  alltoall.ranks = 8;
  expect_reason("binomial", alltoall, "gather, scatter");
  ScheduleRequest one = alltoall;
  one.ranks = 1;
  expect_reason("bine", one, "at least 2");
  for (const char* name : {"binomial", "bine", "pairwise", "bruck"})
    EXPECT_NE(registry().find(name), nullptr) << name;
  EXPECT_TRUE(registry().get("bine").supports(Collective::alltoall));
}

}  // namespace
}  // namespace topocoll
