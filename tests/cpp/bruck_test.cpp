// Bruck generalised to allreduce with both ports (trivance.txt section 2.4): exact verification
// for every P in 2..130 and on the tori of the issue, fingerprints at large P, peers and steps.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "core/rank_math.hpp"
#include "core/registry.hpp"
#include "core/verifier/verifier.hpp"

namespace topocoll {
namespace {

struct Case {
  std::string algorithm;
  Collective collective;
};

const std::vector<Case> kCases = {{"bruck-lat", Collective::allreduce},
                                  {"bruck-bw", Collective::allreduce},
                                  {"bruck-bw", Collective::reduce_scatter},
                                  {"bruck-bw", Collective::allgather}};

SchedulePtr build(const Case& c, std::vector<int> dims) {
  ScheduleRequest request;
  request.collective = c.collective;
  request.dims = std::move(dims);
  return registry().build(c.algorithm, request);
}

std::string shape(const std::vector<int>& dims) {
  std::string out;
  for (int size : dims) out += (out.empty() ? "" : "x") + std::to_string(size);
  return out;
}

void expect_verifies(const Case& c, const std::vector<int>& dims, VerifyMode mode) {
  const auto start = std::chrono::steady_clock::now();
  auto schedule = build(c, dims);
  VerifyOptions options;
  options.mode = mode;
  const VerifyReport report = verify(*schedule, options);
  EXPECT_TRUE(report.ok) << c.algorithm << " " << collective_name(c.collective) << " on "
                         << shape(dims) << ": " << report.message;
  if (mode == VerifyMode::fingerprint) {
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    std::cout << "  " << c.algorithm << " " << collective_name(c.collective) << " on "
              << shape(dims) << ": " << took.count() << " s\n";
  }
}

TEST(BruckRing, VerifiesExactlyForEveryPUpTo130) {
  for (const Case& c : kCases)
    for (int n = 2; n <= 130; ++n) expect_verifies(c, {n}, VerifyMode::exact);
}

// Every pair of sizes 2..8, the shapes of the issue and 3^k shapes (section 5).
std::vector<std::vector<int>> test_tori() {
  std::vector<std::vector<int>> tori;
  for (int a = 2; a <= 8; ++a)
    for (int b = 2; b <= 8; ++b) tori.push_back({a, b});
  for (auto t : {std::vector<int>{4, 6},
                 {6, 6},
                 {2, 8, 2},
                 {4, 6, 4},
                 {10, 10},
                 {3, 9},
                 {9, 9},
                 {3, 3},
                 {9, 3},
                 {3, 3, 3},
                 {9, 9, 3},
                 {3, 1, 5},
                 {1, 7}})
    tori.push_back(t);
  return tori;
}

TEST(BruckTorus, VerifiesExactlyOnEveryTestShape) {
  for (const Case& c : kCases)
    for (const auto& dims : test_tori()) expect_verifies(c, dims, VerifyMode::exact);
}

int max_steps(const Schedule& schedule) {
  int most = 0;
  for (int r = 0; r < schedule.ranks(); ++r) most = std::max(most, schedule.step_count(r));
  return most;
}

// Whole-vector tori whose dimensions mix the pure windows, a last step of partial sums and (for
// Trivance) the fold; a dimension with partial sums in scratch runs its steps back to back.
TEST(BruckTorus, WholeVectorVerifiesOnMixedSizes) {
  for (const std::vector<int>& dims :
       std::vector<std::vector<int>>{{13, 5}, {8, 5, 4}, {25, 7}, {10, 11}, {32, 3}}) {
    expect_verifies(kCases[0], dims, VerifyMode::exact);
    int steps = 0;
    for (int size : dims) steps += max_steps(*build(kCases[0], {size}));
    EXPECT_EQ(max_steps(*build(kCases[0], dims)), steps) << shape(dims);
  }
  auto seven = build(kCases[0], {7, 7});  // lane 0: both steps of dimension 0 first
  for (int step = 0; step < 4; ++step) {
    Step st;
    seven->build_step(0, step, st);
    for (const Operation& op : st.ops)
      if (op.kind != OpKind::copy && op.port < 2) EXPECT_EQ(op.peer < 7, step < 2) << step;
  }
}

TEST(BruckTorus, VerifiesExactlyOn27x27) {
  for (const Case& c : kCases) expect_verifies(c, {27, 27}, VerifyMode::exact);
}

TEST(BruckLarge, FingerprintsAt4096) {
  for (const Case& c : kCases) expect_verifies(c, {4096}, VerifyMode::fingerprint);
  for (const Case& c : {kCases[0], kCases[1]})
    expect_verifies(c, {64, 64}, VerifyMode::fingerprint);
}

// The runs of the issue that take more than a few seconds on two cores (times in the report):
// --gtest_also_run_disabled_tests --gtest_filter='BruckLarge.DISABLED_*'
TEST(BruckLarge, DISABLED_FingerprintsAt16384) {
  for (const Case& c : {kCases[2], kCases[3]})
    expect_verifies(c, {64, 64}, VerifyMode::fingerprint);
  for (const Case& c : kCases) {
    expect_verifies(c, {16384}, VerifyMode::fingerprint);
    expect_verifies(c, {128, 128}, VerifyMode::fingerprint);
  }
}

// Section 2.4: ceil(log3 P) steps per phase (Bruck's concatenation with two ports), so
// 2 ceil(log3 P) for the bandwidth-optimal allreduce. The whole-vector variant keeps
// ceil(log3 P) for every P: windows grow from 3^k and 2 * 3^k ahead, and one last step sends
// partial sums of the missing ranks (trivance_patterns.cpp, find_last_step).
TEST(BruckStructure, StepCounts) {
  for (int p = 2; p <= 130; ++p) {
    const int s = ceil_log(p, 3);
    EXPECT_EQ(max_steps(*build(kCases[0], {p})), s) << "P=" << p;
    EXPECT_EQ(max_steps(*build(kCases[1], {p})), 2 * s) << "P=" << p;
    EXPECT_EQ(max_steps(*build(kCases[2], {p})), s) << "P=" << p;
    EXPECT_EQ(max_steps(*build(kCases[3], {p})), s) << "P=" << p;
  }
  EXPECT_EQ(max_steps(*build(kCases[0], {4096})), 8);
}

// The whole-vector steps before the last receive from r + 3^k and r + 2 * 3^k; every step has at
// most two messages each way, each one block.
TEST(BruckStructure, WholeVectorPeersForEveryP) {
  for (int p = 2; p <= 130; ++p) {
    auto lat = build(kCases[0], {p});
    const int s = ceil_log(p, 3);
    for (int r = 0; r < p; ++r) {
      for (int k = 0, d = 1; k < s; ++k, d *= 3) {
        Step st;
        lat->build_step(r, k, st);
        std::set<int> from;
        int sends = 0;
        for (const Operation& op : st.ops) {
          if (op.kind == OpKind::copy) continue;
          EXPECT_EQ(op.blocks.block_count(), 1u);
          if (op.kind == OpKind::recv) from.insert(mod(op.peer - r, p));
          sends += op.kind == OpKind::send ? 1 : 0;
        }
        EXPECT_LE(sends, 2) << "P=" << p;
        EXPECT_LE(from.size(), 2u) << "P=" << p;
        if (k + 1 < s) EXPECT_EQ(from, (std::set<int>{d, 2 * d})) << "P=" << p << " step " << k;
      }
    }
  }
}

// Section 2.4 and Appendix B.1: in step k the peers are at distance 3^k and 2 * 3^k in one
// direction; on P = 3^s each reduce-scatter message carries P / 3^(k+1) blocks.
TEST(BruckStructure, PeersAndVolumePerStepOnPowersOfThree) {
  for (int s = 1; s <= 4; ++s) {
    int p = 1;
    for (int i = 0; i < s; ++i) p *= 3;
    auto rs = build(kCases[2], {p});
    auto lat = build(kCases[0], {p});
    for (int r = 0; r < p; ++r) {
      for (int k = 0, d = 1; k < s; ++k, d *= 3) {
        Step st;
        rs->build_step(r, k, st);
        std::set<int> peers;
        for (const Operation& op : st.ops) {
          if (op.kind != OpKind::send) continue;
          peers.insert(op.peer);
          EXPECT_EQ(op.blocks.block_count(), static_cast<std::uint64_t>(p / (3 * d)));
        }
        EXPECT_EQ(peers, (std::set<int>{mod(r + d, p), mod(r + 2 * d, p)})) << "P=" << p;
        Step whole;
        lat->build_step(r, k, whole);
        std::set<int> lat_peers;
        for (const Operation& op : whole.ops)
          if (op.kind == OpKind::send) lat_peers.insert(op.peer);
        EXPECT_EQ(lat_peers, (std::set<int>{mod(r - d, p), mod(r - 2 * d, p)})) << "P=" << p;
      }
    }
  }
}

void expect_rejected(const std::string& algorithm, ScheduleRequest request,
                     const std::string& mention) {
  try {
    (void)registry().build(algorithm, request);
    ADD_FAILURE() << algorithm << ": expected UnsupportedRequest mentioning " << mention;
  } catch (const UnsupportedRequest& e) {
    EXPECT_NE(std::string(e.what()).find(mention), std::string::npos) << e.what();
  }
}

TEST(BruckRegistry, RejectsWhatItCannotServe) {
  ScheduleRequest one_port;
  one_port.ranks = 10;
  one_port.ports = 1;
  expect_rejected("bruck-bw", one_port, "accepted: 2");
  ScheduleRequest torus_ports = one_port;
  torus_ports.dims = {2, 5};
  torus_ports.ports = 2;
  expect_rejected("bruck-lat", torus_ports, "accepted: 4");
  ScheduleRequest ordered;
  ordered.ranks = 10;
  ordered.commutative = false;
  expect_rejected("bruck-bw", ordered, "commutative");
  ScheduleRequest ag;
  ag.ranks = 10;
  ag.collective = Collective::allgather;
  expect_rejected("bruck-lat", ag, "allreduce");
  ScheduleRequest single;
  single.ranks = 1;
  expect_rejected("bruck-lat", single, "at least 2");
}

}  // namespace
}  // namespace topocoll
