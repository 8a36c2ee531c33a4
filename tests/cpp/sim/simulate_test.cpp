// Registered algorithms on the real topologies: on congestion-free schedules the analytic and
// flow models agree with each other and with the closed-form costs of the papers
// (swing-nsdi24.txt section 2.3, each step costing alpha + path latency + bytes / bandwidth).
#include "sim/simulate.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/registry.hpp"
#include "support/sim_test_support.hpp"
#include "topology/mapping.hpp"
#include "topology/routing.hpp"
#include "topology/topology.hpp"

namespace topocoll::sim {
namespace {

using testing::build;
using testing::paper_params;
using Network = testing::TestNetwork;

Network setup(const std::string& spec, int ranks, const std::string& routing = "minimal") {
  return testing::make_network(spec, ranks, routing);
}

SimResult run(const Schedule& schedule, const Network& s, Model model, std::uint64_t bytes) {
  SimConfig config;
  config.model = model;
  config.vector_bytes = bytes;
  return simulate(schedule, *s.topology, *s.router, s.mapping, config);
}

// Both models within `tolerance` (relative) of `expected`, and of each other within 1%.
void expect_both(const Schedule& schedule, const Network& s, std::uint64_t bytes, double expected,
                 double tolerance = 1e-9) {
  const auto analytic = run(schedule, s, Model::analytic, bytes);
  const auto flow = run(schedule, s, Model::flow, bytes);
  EXPECT_NEAR(analytic.time_s, expected, expected * tolerance) << "analytic";
  EXPECT_NEAR(flow.time_s, expected, expected * tolerance) << "flow";
  EXPECT_NEAR(flow.time_s, analytic.time_s, analytic.time_s * 0.01);
  EXPECT_EQ(flow.messages, analytic.messages);
}

constexpr double kLat = 400e-9;  // one link: link latency + per-hop latency

TEST(SimCollectives, RingAllreduceOnARingMatchesTheClosedForm) {
  const int p = 8;
  const auto s = setup("ring:8", p);
  const auto params = paper_params();
  const std::uint64_t n = 8 << 20;
  const auto one = build("ring", Collective::allreduce, p, {}, 1);
  // 2(P-1) steps of alpha + latency + (n/P) beta.
  expect_both(*one, s, n,
              2 * (p - 1) * (params.alpha_s + kLat + n / p / params.bandwidth_bytes_per_s));
  EXPECT_EQ(run(*one, s, Model::flow, n).messages, 2u * (p - 1) * p);
  // Two ports: a ring per direction on half the vector each.
  const auto two = build("ring", Collective::allreduce, p, {}, 2);
  expect_both(*two, s, n,
              2 * (p - 1) * (params.alpha_s + kLat + n / (2.0 * p) / params.bandwidth_bytes_per_s));
}

TEST(SimCollectives, RingAllreducePaysReductionsPerByte) {
  const int p = 8;
  auto params = paper_params();
  params.reduce_s_per_byte = 1e-11;
  Network s;
  s.topology = topo::make_topology("ring:8", params);
  s.router = topo::make_router(*s.topology, "minimal");
  s.mapping = topo::make_mapping("linear", p, *s.topology);
  const std::uint64_t n = 8 << 20;
  const auto ring = build("ring", Collective::allreduce, p, {}, 1);
  const double block = static_cast<double>(n) / p;
  // The reduce-scatter half reduces one block per step.
  expect_both(*ring, s, n,
              2 * (p - 1) * (params.alpha_s + kLat + block / params.bandwidth_bytes_per_s) +
                  (p - 1) * block * params.reduce_s_per_byte);
}

TEST(SimCollectives, RecursiveDoublingOnAHypercubeIsOneHopPerStep) {
  const int p = 16;
  const auto s = setup("hypercube:4", p);
  const auto params = paper_params();
  const double bw = params.bandwidth_bytes_per_s;
  const std::uint64_t n = 1 << 24;
  const auto lat = build("recdoub-lat", Collective::allreduce, p);
  expect_both(*lat, s, n, 4 * (params.alpha_s + kLat + n / bw));
  // Bandwidth-optimal: halving reduce-scatter then doubling allgather, n/2^(k+1) per step.
  double expected = 0;
  for (int k = 0; k < 4; ++k) expected += 2 * (params.alpha_s + kLat + n / std::ldexp(bw, k + 1));
  const auto bw_opt = build("recdoub-bw", Collective::allreduce, p);
  expect_both(*bw_opt, s, n, expected);
}

TEST(SimCollectives, RootedBroadcastFollowsTheTreeDepth) {
  const int p = 8;
  const auto s = setup("hypercube:3", p);
  const auto params = paper_params();
  const std::uint64_t n = 1 << 20;
  // Distance-doubling binomial tree: rank r < 2^k serves r + 2^k, a hypercube neighbour; the
  // deepest rank receives after three sequential messages.
  const auto bcast = build("binomial-doubling", Collective::bcast, p);
  expect_both(*bcast, s, n, 3 * (params.alpha_s + kLat + n / params.bandwidth_bytes_per_s));
}

TEST(SimCollectives, BucketOnATorusUsesEveryPortWithoutCongestion) {
  const int p = 16;
  const auto s = setup("torus:4x4", p);
  const auto params = paper_params();
  const double bw = params.bandwidth_bytes_per_s;
  const std::uint64_t n = 1 << 24;
  const auto bucket = build("bucket", Collective::allreduce, p, {4, 4});
  // 2D = 4 concurrent buckets on n/4 each: 3 steps of (n/4)/4 then 3 of (n/4)/16, and back.
  const double expected = 2 * (3 * (params.alpha_s + kLat + n / 16.0 / bw) +
                               3 * (params.alpha_s + kLat + n / 64.0 / bw));
  expect_both(*bucket, s, n, expected);
}

TEST(SimCollectives, MinimalRoutingSplitsTiesOnAnEvenRing) {
  // ring:4, rank 0 -> rank 2 is two hops either way: minimal routing sends half each way.
  const int p = 4;
  const auto s = setup("ring:4", p);
  const auto params = paper_params();
  const std::uint64_t n = 1 << 20;
  const auto lat = build("recdoub-lat", Collective::allreduce, p);
  // Step 0 (distance 1): n on one link. Step 1 (distance 2): n/2 on each direction, and
  // every link carries the halves of two messages (from r and from r+1, same direction).
  const double expected = (params.alpha_s + kLat + n / params.bandwidth_bytes_per_s) +
                          (params.alpha_s + 2 * kLat + n / params.bandwidth_bytes_per_s);
  const auto flow = run(*lat, s, Model::flow, n);
  EXPECT_NEAR(flow.time_s, expected, expected * 1e-9);
  EXPECT_EQ(flow.transfers, static_cast<std::uint64_t>(p + 2 * p));
}

}  // namespace
}  // namespace topocoll::sim
