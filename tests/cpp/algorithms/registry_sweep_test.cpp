// Every registered algorithm, every collective it claims, every accepted port count and a
// spread of roots, over every rank count up to a bound: a request is either rejected with
// UnsupportedRequest or yields a schedule that verifies exactly. Families test their paper
// ranges in depth; this sweep guards the contract that no request crashes or runs wrong.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "core/verifier/verifier.hpp"
#include "support/sweep_sample.hpp"

namespace topocoll {
namespace {

constexpr int kMaxRanks = 130;
// 2D-only algorithms are swept over every a x b factorization, several per rank count, and
// bucket-balanced's plans for a short side of 2 run up to 26 lanes: P up to 64 covers every kind
// of shape (x2, x3, square, rectangular) at a fraction of the cost (bucket_balanced_test.cpp
// verifies its many-lane plans on 2x16 and 16x2 tori).
constexpr int kMaxRanksTwoDimensional = 64;

std::set<int> roots_for(Collective collective, int ranks) {
  if (!is_rooted(collective)) return {0};
  return {0, 1, ranks / 2, ranks - 1};
}

// The ring of `ranks` (dims omitted), or every a x b factorization for 2D-only algorithms.
std::vector<std::vector<int>> shapes_for(const AlgorithmInfo& algo, int ranks) {
  if (algo.requirements.dims != DimsRule::two_dimensional) return {{}};
  std::vector<std::vector<int>> out;
  for (int a = 2; a <= ranks / 2; ++a)
    if (ranks % a == 0) out.push_back({a, ranks / a});
  return out;
}

struct SweepCounts {
  int built = 0;
  int rejected = 0;
};

void sweep_request(const AlgorithmInfo& algo, ScheduleRequest request, SweepCounts& counts) {
  SchedulePtr schedule;
  try {
    schedule = registry().build(algo.name, request);
  } catch (const UnsupportedRequest& rejection) {
    EXPECT_NE(std::string(rejection.what()), "") << algo.name;
    ++counts.rejected;
    return;
  }
  ++counts.built;
  // Every request is built (a rejection is cheap and always checked); the verification, the
  // cost of the sweep, runs for a rotating sample above P = 16 (tests/README.md).
  if (!sweep::in_sample(
          sweep::instance_name(algo.name, " ", collective_name(request.collective),
                               " P=", request.ranks, " ", sweep::shape_text(request.dims),
                               " ports=", request.ports, " root=", request.root),
          request.ranks <= 16))
    return;
  VerifyOptions options;
  options.threads = 1;
  const VerifyReport report = verify(*schedule, options);
  EXPECT_TRUE(report.ok) << algo.name << " " << collective_name(request.collective)
                         << " P=" << request.ranks << " ports=" << request.ports
                         << " root=" << request.root << ": " << report.message;
}

std::vector<std::string> registered_names() {
  std::vector<std::string> names;
  for (const AlgorithmInfo& algo : registry().all()) names.push_back(algo.name);
  return names;
}

// gtest names: letters, digits and _.
std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

// One test per algorithm: ctest shares them out over its slots (one 31-s test kept a core
// idle while the MPI tests, which run alone, waited for it).
class RegistrySweepSlow : public ::testing::TestWithParam<std::string> {};

TEST_P(RegistrySweepSlow, EveryRequestVerifiesOrIsRejected) {
  const AlgorithmInfo& algo = registry().get(GetParam());
  SweepCounts counts;
  for (Collective collective : algo.collectives) {
    const int max_ranks =
        algo.requirements.dims == DimsRule::two_dimensional ? kMaxRanksTwoDimensional : kMaxRanks;
    for (int ranks = 2; ranks <= max_ranks; ++ranks) {
      for (const std::vector<int>& dims : shapes_for(algo, ranks)) {
        const int d = std::max<int>(1, static_cast<int>(dims.size()));
        for (int ports : algo.accepted_ports(d)) {
          for (int root : roots_for(collective, ranks)) {
            ScheduleRequest request;
            request.collective = collective;
            request.ranks = ranks;
            request.dims = dims;
            request.ports = ports;
            request.root = root;
            sweep_request(algo, request, counts);
          }
        }
      }
    }
  }
  EXPECT_GT(counts.built, 0) << algo.name << " served no request up to P=" << kMaxRanks;
}

INSTANTIATE_TEST_SUITE_P(EveryAlgorithm, RegistrySweepSlow, ::testing::ValuesIn(registered_names()),
                         test_name);

// Fingerprint mode in narrow windows (outside the RegistrySweep suite, so that the
// sanitizer pass of `make test` runs it): every pass reuses the state and the message
// buffers of the one before (sends hand their buffers to receivers, which keep them), and
// collectives where ranks receive more than they send (gather, reduce trees) or change their
// operation count from step to step must still verify. One test per algorithm, so that the
// sanitizer pass's shards share them out; 5, 8 and 12 ranks: odd, a power of two and an even
// count that is not one. Windows of two slots, or of a sixteenth of the slots where that is
// more: bucket-balanced holds 1,152 slots at 12 ranks, 576 passes of two slots (35 s of the
// sanitizer pass, 2026-11-30), where 16 passes cut its ranges at as many boundaries.
class WindowedVerification : public ::testing::TestWithParam<std::string> {};

TEST_P(WindowedVerification, EveryCollectiveInNarrowWindows) {
  const AlgorithmInfo& algo = registry().get(GetParam());
  for (Collective collective : algo.collectives) {
    for (int ranks : {5, 8, 12}) {
      const std::vector<std::vector<int>> shapes = shapes_for(algo, ranks);
      if (shapes.empty()) continue;
      ScheduleRequest request;
      request.collective = collective;
      request.ranks = ranks;
      request.dims = shapes.front();
      request.root = is_rooted(collective) ? ranks - 1 : 0;
      SchedulePtr schedule;
      try {
        schedule = registry().build(algo.name, request);
      } catch (const UnsupportedRequest&) {
        continue;
      }
      VerifyOptions options;
      options.mode = VerifyMode::fingerprint;
      const auto slots = static_cast<std::uint64_t>(schedule->info().total_slots());
      const std::uint64_t width = std::max<std::uint64_t>(2, (slots + 15) / 16);
      options.memory_budget = width * 16 * static_cast<std::uint64_t>(ranks);
      options.translation_symmetry = false;  // every block, in windows
      const VerifyReport report = verify(*schedule, options);
      EXPECT_TRUE(report.ok) << algo.name << " " << collective_name(collective) << " P=" << ranks
                             << ": " << report.message;
      if (schedule->info().keeps_positions && schedule->info().total_slots() > 2)
        EXPECT_GT(report.passes, 1) << algo.name << " " << collective_name(collective);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryAlgorithm, WindowedVerification,
                         ::testing::ValuesIn(registered_names()), test_name);

TEST(RegistrySweep, OutOfRangeRootsAreRejected) {
  for (const AlgorithmInfo& algo : registry().all()) {
    for (Collective collective : algo.collectives) {
      if (!is_rooted(collective)) continue;
      for (int root : {-1, 8}) {
        ScheduleRequest request;
        request.collective = collective;
        request.ranks = 8;
        request.root = root;
        EXPECT_THROW((void)registry().build(algo.name, request), UnsupportedRequest)
            << algo.name << " root " << root;
      }
    }
  }
}

}  // namespace
}  // namespace topocoll
