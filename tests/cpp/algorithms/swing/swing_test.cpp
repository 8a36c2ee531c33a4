// Swing (swing-nsdi24.txt sections 3-4): exact verification over every P in 2..130 and the
// tori of the issue, fingerprints at large P, and the paper's peers and step structure.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "algorithms/swing/swing_lines.hpp"
#include "core/registry.hpp"
#include "core/verifier/verifier.hpp"
#include "support/sweep_sample.hpp"

namespace topocoll {
namespace {

struct Case {
  std::string algorithm;
  Collective collective;
};

const std::vector<Case> kCases = {{"swing-lat", Collective::allreduce},
                                  {"swing-bw", Collective::allreduce},
                                  {"swing-bw", Collective::reduce_scatter},
                                  {"swing-bw", Collective::allgather}};

SchedulePtr build(const Case& c, std::vector<int> dims, int ports) {
  ScheduleRequest request;
  request.collective = c.collective;
  request.dims = std::move(dims);
  request.ports = ports;
  return registry().build(c.algorithm, request);
}

std::string shape(const std::vector<int>& dims) {
  std::string out;
  for (int size : dims) out += (out.empty() ? "" : "x") + std::to_string(size);
  return out;
}

void expect_verifies(const Case& c, const std::vector<int>& dims, int ports, VerifyMode mode) {
  auto schedule = build(c, dims, ports);
  VerifyOptions options;
  options.mode = mode;
  const VerifyReport report = verify(*schedule, options);
  EXPECT_TRUE(report.ok) << c.algorithm << " " << collective_name(c.collective) << " on "
                         << shape(dims) << " ports=" << ports << ": " << report.message;
}

TEST(SwingRingSlow, VerifiesExactlyForEveryPUpTo130) {
  for (const Case& c : kCases)
    for (int p = 2; p <= 130; ++p)
      for (int ports : {1, 2})
        if (sweep::in_sample(sweep::instance_name(c.algorithm, " P=", p, " ports=", ports),
                             p <= 16))
          expect_verifies(c, {p}, ports, VerifyMode::exact);
}

// "Every pair of sizes" 2..8, then the shapes of the issue; ports 1 and 2D.
std::vector<std::vector<int>> test_tori() {
  std::vector<std::vector<int>> tori;
  for (int a = 2; a <= 8; ++a)
    for (int b = 2; b <= 8; ++b) tori.push_back({a, b});
  for (auto t : {std::vector<int>{4, 6}, {2, 8, 2}, {4, 6, 4}, {10, 10}, {3, 9}, {9, 9}})
    tori.push_back(t);
  return tori;
}

TEST(SwingTorusSlow, VerifiesExactlyOnEveryTestShape) {
  for (const Case& c : kCases)
    for (const auto& dims : test_tori())
      for (int ports : {1, 2 * static_cast<int>(dims.size())})
        if (sweep::in_sample(
                sweep::instance_name(c.algorithm, " ", sweep::shape_text(dims), " ports=", ports),
                sweep::product_of(dims) <= 16))
          expect_verifies(c, dims, ports, VerifyMode::exact);
}

TEST(SwingTorusSlow, Verifies27x27) {
  TOPOCOLL_SKIP_UNLESS_SAMPLED();
  for (const Case& c : kCases)
    for (int ports : {1, 4}) {
      // Exact is cheap for one block per lane; the bandwidth-optimal runs use fingerprints.
      const bool small = c.algorithm == "swing-lat";
      expect_verifies(c, {27, 27}, ports, small ? VerifyMode::exact : VerifyMode::fingerprint);
    }
}

TEST(SwingTorus, OddAndTrivialDimensionsInThreeDimensions) {
  for (const Case& c : kCases)
    for (const auto& dims : {std::vector<int>{3, 1, 5}, {1, 8}, {5, 2, 3}})
      for (int ports : {1, 2 * static_cast<int>(dims.size())})
        expect_verifies(c, dims, ports, VerifyMode::exact);
}

TEST(SwingLargeSlow, FingerprintsAt4096) {
  TOPOCOLL_SKIP_UNLESS_SAMPLED();
  expect_verifies({"swing-bw", Collective::allreduce}, {4096}, 1, VerifyMode::fingerprint);
  expect_verifies({"swing-bw", Collective::allreduce}, {4095}, 1, VerifyMode::fingerprint);
  expect_verifies({"swing-bw", Collective::reduce_scatter}, {4096}, 1, VerifyMode::fingerprint);
  expect_verifies({"swing-bw", Collective::allgather}, {4094}, 1, VerifyMode::fingerprint);
  expect_verifies({"swing-lat", Collective::allreduce}, {4096}, 2, VerifyMode::fingerprint);
  expect_verifies({"swing-lat", Collective::allreduce}, {4097}, 2, VerifyMode::fingerprint);
  expect_verifies({"swing-bw", Collective::allreduce}, {64, 64}, 1, VerifyMode::fingerprint);
}

// The large runs of the issue (16384 ranks, 64x64 and 128x128 tori). They need several GiB
// and most of a minute on two cores, so they only run on request:
// --gtest_also_run_disabled_tests --gtest_filter='SwingLargeSlow.DISABLED_*'
TEST(SwingLargeSlow, DISABLED_FingerprintsAt16384) {
  expect_verifies({"swing-bw", Collective::allreduce}, {16384}, 1, VerifyMode::fingerprint);
  expect_verifies({"swing-bw", Collective::allreduce}, {64, 64}, 4, VerifyMode::fingerprint);
  expect_verifies({"swing-bw", Collective::allreduce}, {128, 128}, 1, VerifyMode::fingerprint);
}

// Eq. 2: pi(r, s) = r + rho(s) for even r, r - rho(s) for odd r, rho(s) = sum (-2)^i.
TEST(SwingStructure, PeersFollowRho) {
  const std::vector<long long> rho = {1, -1, 3, -5, 11, -21, 43, -85, 171, -341};
  for (int s = 0; s < static_cast<int>(rho.size()); ++s)
    EXPECT_EQ(algorithms::swing::rho(s), rho[s]);
  const int p = 1024;
  auto schedule = build({"swing-lat", Collective::allreduce}, {p}, 1);
  for (int r = 0; r < p; ++r) {
    ASSERT_EQ(schedule->step_count(r), 10);
    for (int s = 0; s < 10; ++s) {
      Step step;
      schedule->build_step(r, s, step);
      const long long expected = ((r + (r % 2 == 0 ? rho[s] : -rho[s])) % p + p) % p;
      ASSERT_EQ(step.ops.size(), 2u);
      EXPECT_EQ(step.ops[0].peer, expected) << "r=" << r << " s=" << s;
    }
  }
}

std::set<int> peers_at(const Schedule& schedule, int rank, int step) {
  Step s;
  schedule.build_step(rank, step, s);
  std::set<int> peers;
  for (const Operation& op : s.ops) peers.insert(op.peer);
  return peers;
}

// Fig. 4: on a 4x4 torus node 0 talks to 1 and 4 (plain) and 3 and 12 (mirrored) in step 0.
TEST(SwingStructure, FirstStepOn4x4MatchesFigure4) {
  for (const Case& c : kCases) {
    auto schedule = build(c, {4, 4}, 4);
    EXPECT_EQ(peers_at(*schedule, 0, 0), (std::set<int>{1, 3, 4, 12})) << c.algorithm;
  }
}

// Fig. 5: on a 2x4 torus the last step of every collective is on the dimension of size 4.
TEST(SwingStructure, LastStepOn2x4UsesTheLongDimension) {
  auto schedule = build({"swing-lat", Collective::allreduce}, {2, 4}, 4);
  for (int r = 0; r < 8; ++r) {
    ASSERT_EQ(schedule->step_count(r), 3);
    for (int peer : peers_at(*schedule, r, 2)) EXPECT_EQ(peer % 2, r % 2) << "rank " << r;
  }
}

// Each rank sends every block once per phase, also when P is not a power of two (section 3.2).
TEST(SwingStructure, BandwidthOptimalSendsEachBlockOnce) {
  for (int p = 2; p <= 70; ++p) {
    auto schedule = build({"swing-bw", Collective::allreduce}, {p}, 1);
    const VerifyReport report = verify(*schedule);
    ASSERT_TRUE(report.ok) << report.message;
    EXPECT_EQ(report.block_transfers, 2ULL * p * (p - 1)) << "P=" << p;
  }
}

// The allreduce remaps blocks so that every message is one range (section 3.1.1), and takes
// 2 log2 P steps (log2 P for swing-lat) on powers of two.
TEST(SwingStructure, PowerOfTwoAllreduceSendsContiguousBlocks) {
  for (const auto& dims : {std::vector<int>{64}, {8, 8}, {2, 4, 8}, {16, 4}}) {
    int log_p = 0;
    for (int size : dims)
      for (int s = size; s > 1; s /= 2) ++log_p;
    for (int ports : {1, 2 * static_cast<int>(dims.size())}) {
      auto schedule = build({"swing-bw", Collective::allreduce}, dims, ports);
      const VerifyReport report = verify(*schedule);
      ASSERT_TRUE(report.ok) << report.message;
      EXPECT_EQ(report.ranges, report.messages) << shape(dims);
      EXPECT_EQ(report.max_steps, 2 * log_p) << shape(dims);
      auto lat = build({"swing-lat", Collective::allreduce}, dims, ports);
      EXPECT_EQ(lat->step_count(0), log_p) << shape(dims);
    }
  }
}

// Partial results combine ranks around the ring (after two steps rank 0 holds x(P-1) x0 x1 x2),
// so swing declares a commutative operator; without it the canonical order is lost.
TEST(SwingStructure, NeedsCommutativeOperator) {
  ScheduleRequest request;
  request.ranks = 8;
  request.commutative = false;
  for (const char* name : {"swing-lat", "swing-bw"}) {
    EXPECT_THROW((void)registry().build(name, request), UnsupportedRequest);
    const AlgorithmInfo& info = registry().get(name);
    EXPECT_TRUE(info.requirements.commutative_op);
    ScheduleRequest direct = request;
    direct.dims = {8};
    direct.ports = 1;
    VerifyOptions options;
    options.commutative = false;
    EXPECT_FALSE(verify(*info.build(direct), options).ok) << name;
  }
}

TEST(SwingStructure, RejectsOtherPortCounts) {
  ScheduleRequest request;
  request.dims = {4, 4};
  request.ports = 2;
  try {
    (void)registry().build("swing-bw", request);
    FAIL() << "expected UnsupportedRequest";
  } catch (const UnsupportedRequest& e) {
    EXPECT_NE(std::string(e.what()).find("accepted: 1, 4"), std::string::npos) << e.what();
  }
  request.ports = 0;  // default: 2D
  EXPECT_EQ(registry().build("swing-bw", request)->info().ports, 4);
}

}  // namespace
}  // namespace topocoll
