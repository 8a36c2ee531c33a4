// Bruck generalised to allreduce with both ports (trivance.txt section 2.4): exact verification
// for every P in 2..130 and on the tori of the issue, fingerprints at large P, peers and steps.
#include <gtest/gtest.h>

#include <chrono>
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

TEST(BruckTorus, VerifiesExactlyOn27x27) {
  for (const Case& c : kCases) expect_verifies(c, {27, 27}, VerifyMode::exact);
}

TEST(BruckLarge, FingerprintsAt4096) {
  for (const Case& c : kCases) {
    expect_verifies(c, {4096}, VerifyMode::fingerprint);
    expect_verifies(c, {64, 64}, VerifyMode::fingerprint);
  }
}

TEST(BruckLarge, DISABLED_FingerprintsAt16384) {
  for (const Case& c : kCases) {
    expect_verifies(c, {16384}, VerifyMode::fingerprint);
    expect_verifies(c, {128, 128}, VerifyMode::fingerprint);
  }
}

}  // namespace
}  // namespace topocoll
