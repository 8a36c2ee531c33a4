// swing-bw-fold, bine-bw-torus-fold and trivance-bw-fold (src/algorithms/common/side_fold.hpp):
// sides a family does not serve natively, run by the schedule for shorter sides. They verify on
// the shapes they accept; at odd P the best of the Swing and of the Bine family keeps at least
// 75% of its goodput at an even neighbour, and Trivance just above a power of three at least 80%
// of its goodput there, where the papers' own methods keep about half; and a host's
// lanes must wait for the guests' data.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "core/verifier/verifier.hpp"
#include "sim/simulate.hpp"
#include "topology/mapping.hpp"
#include "topology/routing.hpp"
#include "topology/topology.hpp"

namespace topocoll {
namespace {

constexpr double kBandwidth = 400e9 / 8;

ScheduleRequest allreduce_on(const std::vector<int>& dims) {
  ScheduleRequest request;
  request.dims = dims;
  request.ranks = 1;
  for (int side : dims) request.ranks *= side;
  return request;
}

std::string shape(const std::vector<int>& dims) {
  std::string text;
  for (int side : dims) text += (text.empty() ? "" : "x") + std::to_string(side);
  return text;
}

// The flow model's zero-latency 1 GiB time over the allreduce bound (every port of every host
// busy for 2 (P-1)/P of the vector, two ports per side).
double efficiency(const std::string& algorithm, const std::vector<int>& dims) {
  topo::NetworkParams params;
  params.bandwidth_bytes_per_s = kBandwidth;
  params.link_latency_s = 0;
  params.hop_latency_s = 0;
  const ScheduleRequest request = allreduce_on(dims);
  const auto schedule = registry().build(algorithm, request);
  const auto topology = topo::make_topology("torus:" + shape(dims), params);
  const auto router = topo::make_router(*topology, "minimal");
  const auto mapping = topo::make_mapping("linear", request.ranks, *topology);
  sim::SimConfig config;
  config.vector_bytes = 1ull << 30;
  const double p = request.ranks;
  const double ports = 2.0 * static_cast<double>(dims.size());
  const double bound = 2 * (p - 1) / p * double(config.vector_bytes) / (ports * kBandwidth);
  return bound / sim::simulate(*schedule, *topology, *router, mapping, config).time_s;
}

// The best efficiency among the family's algorithms that accept the shape.
double best_of(const std::vector<std::string>& algorithms, const std::vector<int>& dims) {
  double best = 0;
  for (const std::string& name : algorithms) {
    if (Registry::rejection(registry().get(name), allreduce_on(dims))) continue;
    best = std::max(best, efficiency(name, dims));
  }
  return best;
}

const std::vector<std::string> kSwing = {"swing-bw", "swing-bw-fold"};
const std::vector<std::string> kBine = {"bine-bw", "bine-bw-torus", "bine-bw-torus-fold"};

TEST(SideFold, VerifiesOnOddRingsAndTori) {
  std::vector<std::vector<int>> shapes = {{5, 4}, {4, 5}, {3, 3}, {7, 7}, {3, 5, 2}, {9, 2}};
  for (int p = 3; p <= 33; p += 2) shapes.push_back({p});
  for (const char* name : {"swing-bw-fold", "bine-bw-torus-fold"})
    for (const auto& dims : shapes) {
      const auto schedule = registry().build(name, allreduce_on(dims));
      const VerifyReport report = verify(*schedule);
      EXPECT_TRUE(report.ok) << name << " " << shape(dims) << ": " << report.message;
    }
}

TEST(SideFold, TrivanceVerifiesOnSidesJustAboveAPowerOfThree) {
  std::vector<std::vector<int>> shapes = {{10, 10}, {10, 3}, {4, 10}, {10, 2, 3}, {28, 2}, {11, 5}};
  for (int p : {10, 11, 12, 28, 30, 33, 36}) shapes.push_back({p});
  for (const auto& dims : shapes) {
    const auto schedule = registry().build("trivance-bw-fold", allreduce_on(dims));
    const VerifyReport report = verify(*schedule);
    EXPECT_TRUE(report.ok) << shape(dims) << ": " << report.message;
  }
}

TEST(SideFold, RefusesShapesWithNothingToCut) {
  for (const char* name : {"swing-bw-fold", "bine-bw-torus-fold"})
    for (const std::vector<int>& dims : {std::vector<int>{26}, {8, 8}, {14, 16}})
      EXPECT_TRUE(Registry::rejection(registry().get(name), allreduce_on(dims))) << shape(dims);
  // Powers of three, sides too far above one and sides just above 3 (the gap would cost more
  // than it saves).
  for (const std::vector<int>& dims :
       {std::vector<int>{27}, {9, 3}, {3, 2}, {26}, {8, 8}, {37}, {4}, {4, 4}})
    EXPECT_TRUE(Registry::rejection(registry().get("trivance-bw-fold"), allreduce_on(dims)))
        << shape(dims);
}

// The share kept is the closed forms' (docs/efficiency.md): three quarters on rings; on 15x15
// the folds' 57.9% against 14x16's 81.1% is 71.4%, so 0.7 there. One message per send makes
// 14x16 reach its closed form, which per-range flows held down to 52.1%.
TEST(SideFoldSlow, OddSizesKeepTheClosedFormsShareOfTheEvenNeighbour) {
  struct Pair {
    std::vector<int> odd, even;
    double kept;
  };
  const Pair pairs[] = {{{27}, {26}, 0.75}, {{31}, {30}, 0.75}, {{15, 15}, {14, 16}, 0.7}};
  for (const auto& [odd, even, kept] : pairs) {
    for (const auto* family : {&kSwing, &kBine}) {
      const double at_odd = best_of(*family, odd), at_even = best_of(*family, even);
      EXPECT_GE(at_odd, kept * at_even) << family->front() << " " << shape(odd);
    }
    // The paper's odd-P method (swing-nsdi24.txt 3.2) keeps far less: without the fold the test
    // would fail.
    EXPECT_LT(efficiency("swing-bw", odd), 0.6 * best_of(kSwing, even)) << shape(odd);
  }
}

TEST(SideFold, TrivanceJustAboveAPowerOfThreeKeepsFourFifths) {
  for (int p : {10, 28}) {
    const double at_power = efficiency("trivance-bw", {p - 1});
    EXPECT_GE(efficiency("trivance-bw-fold", {p}), 0.8 * at_power) << p;
    EXPECT_LT(efficiency("trivance-bw", {p}), 0.8 * at_power) << p;  // section 4.4's method
  }
}

// A host's inner lanes other than lane 0 wait for the fold-in on lane 0; without that
// dependency lane 1 sends the host's blocks before the guest's halves were added.
TEST(SideFold, HostLanesThatSkipTheFoldInFailVerification) {
  const auto schedule = registry().build("swing-bw-fold", allreduce_on({5}));
  auto broken = materialize(*schedule);
  int removed = 0;
  for (auto& lanes : broken->rank_lanes())
    for (std::size_t l = 1; l < lanes.size(); ++l) {
      auto& after = lanes[l].front().after;
      const auto waits_for_fold_in = [](const Dependency& d) { return d.step == 0; };
      removed += static_cast<int>(std::erase_if(after, waits_for_fold_in));
    }
  ASSERT_GT(removed, 0);
  EXPECT_TRUE(verify(*schedule).ok);
  EXPECT_FALSE(verify(*broken).ok);
}

}  // namespace
}  // namespace topocoll
