// Recursive doubling on tori with power-of-two sides (swing-nsdi24.txt section 2.3.2, Fig. 2):
// one dimension per step, peers 2^i hops away on one line; the multi-port form of trivance.txt
// section 6 (D plain and D mirrored lanes, one per port). Exact verification for small shapes,
// fingerprints for large ones, the peers of Fig. 2, and neighbour-only peers on a hypercube.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/registry.hpp"
#include "core/verifier/verifier.hpp"
#include "support/sweep_sample.hpp"

namespace topocoll {
namespace {

struct Case {
  const char* algorithm;
  Collective collective;
};

const Case kCases[] = {
    {"recdoub-lat", Collective::allreduce},
    {"recdoub-bw", Collective::allreduce},
    {"recdoub-bw", Collective::reduce_scatter},
    {"recdoub-bw", Collective::allgather},
};

std::string shape(const std::vector<int>& dims) {
  std::string out;
  for (int size : dims) out += (out.empty() ? "" : "x") + std::to_string(size);
  return out;
}

SchedulePtr build(const Case& c, const std::vector<int>& dims, int ports, int ranks = 0) {
  ScheduleRequest request;
  request.collective = c.collective;
  request.dims = dims;
  request.ranks = ranks;
  request.ports = ports;
  return registry().build(c.algorithm, request);
}

std::string label(const Case& c, const std::vector<int>& dims, int ports) {
  return std::string(c.algorithm) + " " + std::string(collective_name(c.collective)) + " " +
         shape(dims) + " ports=" + std::to_string(ports);
}

VerifyReport check(const Schedule& schedule, VerifyMode mode, std::vector<int> adjacency = {}) {
  VerifyOptions options;
  options.mode = mode;
  options.threads = 1;
  options.adjacency_torus = std::move(adjacency);
  return verify(schedule, options);
}

TEST(RecursiveDoublingTorus, VerifiesExactlyOnPowerOfTwoTori) {
  const std::vector<std::vector<int>> shapes = {{2, 2}, {4, 4}, {8, 4},    {2, 8},      {4, 2, 2},
                                                {1, 8}, {8, 8}, {4, 4, 4}, {2, 2, 2, 2}};
  for (const Case& c : kCases)
    for (const auto& dims : shapes)
      for (int ports : {1, 2 * static_cast<int>(dims.size())}) {
        auto schedule = build(c, dims, ports);
        EXPECT_EQ(schedule->info().dims, dims);
        EXPECT_EQ(schedule->info().ports, ports);
        const auto report = check(*schedule, VerifyMode::exact);
        ASSERT_TRUE(report.ok) << label(c, dims, ports) << ": " << report.message;
      }
}

// On a ring, the 2-port form runs a plain and a mirrored lane; other P fold as before.
TEST(RecursiveDoublingTorus, TwoPortRingVerifiesExactlyForEveryP) {
  for (const Case& c : kCases)
    for (int p = 2; p <= 70; ++p) {
      auto schedule = build(c, {}, 2, p);
      EXPECT_EQ(schedule->info().ports, 2);
      const auto report = check(*schedule, VerifyMode::exact);
      ASSERT_TRUE(report.ok) << label(c, {p}, 2) << ": " << report.message;
    }
}

// The chunked collectives send one range per chunk (MPI's layout), so their fingerprints cost
// O(P^2 log P): up to 1024 ranks keep them to seconds.
TEST(RecursiveDoublingTorusSlow, FingerprintsOnLargeTori) {
  TOPOCOLL_SKIP_UNLESS_SAMPLED();
  const std::vector<std::vector<int>> shapes = {{32, 32}, {8, 8, 8}, {4, 4, 4, 4}};
  for (const Case& c : kCases)
    for (const auto& dims : shapes)
      for (int ports : {1, 2 * static_cast<int>(dims.size())}) {
        const auto report = check(*build(c, dims, ports), VerifyMode::fingerprint);
        EXPECT_TRUE(report.ok) << label(c, dims, ports) << ": " << report.message;
      }
}

std::vector<int> coords_of(int rank, const std::vector<int>& dims) {
  std::vector<int> out;
  for (int size : dims) {
    out.push_back(rank % size);
    rank /= size;
  }
  return out;
}

int mirror(int x, int n) { return (n - x) % n; }

// Fig. 2: on a square torus lane j works at step t on dimension (j + t) mod D and flips bit
// t / D of that coordinate (of the mirrored coordinate -x mod n for the mirrored lane D + j).
TEST(RecursiveDoublingTorus, PeersFollowFigure2) {
  const std::vector<int> dims = {8, 8, 8};
  const int d = 3;
  auto schedule = build({"recdoub-lat", Collective::allreduce}, dims, 2 * d);
  ASSERT_EQ(schedule->step_count(0), 9);
  for (int rank : {0, 5, 77, 300, 511}) {
    const auto own = coords_of(rank, dims);
    for (int t = 0; t < 9; ++t) {
      Step step;
      schedule->build_step(rank, t, step);
      ASSERT_EQ(step.ops.size(), 4u * d);
      for (const Operation& op : step.ops) {
        const int lane = op.port;
        const int dim = (lane % d + t) % d;
        const int bit = 1 << (t / d);
        const bool mirrored = lane >= d;
        const auto peer = coords_of(op.peer, dims);
        for (int k = 0; k < d; ++k) {
          if (k != dim) {
            EXPECT_EQ(peer[k], own[k]) << "rank " << rank << " step " << t << " lane " << lane;
            continue;
          }
          const int expected = mirrored ? mirror(mirror(own[k], 8) ^ bit, 8) : own[k] ^ bit;
          EXPECT_EQ(peer[k], expected) << "rank " << rank << " step " << t << " lane " << lane;
        }
      }
    }
  }
}

// The bandwidth-optimal one halves the data as the distance doubles, one dimension per step,
// and the allgather comes back in reverse (section 2.3.3); 2 log2 P steps in all.
TEST(RecursiveDoublingTorus, BandwidthOptimalHalvesTheDataPerStep) {
  const std::vector<int> dims = {4, 8};
  auto schedule = build({"recdoub-bw", Collective::allreduce}, dims, 1);
  ASSERT_EQ(schedule->step_count(0), 10);
  const std::vector<int> step_dim = {0, 1, 0, 1, 1};  // dimension 0 runs out after 2 steps
  const std::vector<int> step_bit = {1, 1, 2, 2, 4};
  for (int rank : {0, 13, 31}) {
    const auto own = coords_of(rank, dims);
    for (int t = 0; t < 10; ++t) {
      const int s = t < 5 ? t : 9 - t;
      Step step;
      schedule->build_step(rank, t, step);
      ASSERT_EQ(step.ops.size(), 2u);
      const auto peer = coords_of(step.ops[0].peer, dims);
      EXPECT_EQ(peer[1 - step_dim[s]], own[1 - step_dim[s]]) << t;
      EXPECT_EQ(peer[step_dim[s]], own[step_dim[s]] ^ step_bit[s]) << t;
      EXPECT_EQ(step.ops[0].blocks.block_count(), 32u >> (s + 1)) << t;
      EXPECT_EQ(step.ops[0].blocks.range_count(), 1u) << t;  // contiguous allreduce layout
    }
  }
}

// On the hypercube 2x...x2 every recursive-doubling peer is a neighbour.
TEST(RecursiveDoublingTorus, HypercubePeersAreNeighbours) {
  const std::vector<int> cube = {2, 2, 2, 2, 2};
  for (const Case& c : kCases)
    for (int ports : {1, 10}) {
      const auto report = check(*build(c, cube, ports), VerifyMode::exact, cube);
      EXPECT_TRUE(report.ok) << label(c, cube, ports) << ": " << report.message;
    }
  // On a 4x4 torus the step at distance 2 is not a neighbour: the adjacency check must say so.
  const auto far = check(*build(kCases[0], {4, 4}, 1), VerifyMode::exact, {4, 4});
  EXPECT_FALSE(far.ok);
  EXPECT_EQ(far.violation, Violation::not_adjacent) << far.message;
}

}  // namespace
}  // namespace topocoll
