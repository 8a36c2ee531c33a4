// The flow model's time lower bound (src/sim/time_lower_bound.hpp), which
// `topocoll.compare(prune=True)` trusts to skip runs: it must never exceed the simulated time,
// and on a latency-bound run it is that time.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/run_estimate.hpp"
#include "support/sim_test_support.hpp"

namespace topocoll::sim {
namespace {

using testing::build;
using testing::make_network;

double simulated(const Schedule& schedule, const testing::TestNetwork& net, std::uint64_t bytes) {
  SimConfig config;
  config.model = Model::flow;
  config.vector_bytes = bytes;
  return simulate(schedule, *net.topology, *net.router, net.mapping, config).time_s;
}

// Through the estimate, which places the ranks as the engine does (a schedule may put rank r
// on another node than r: the Gray-code cycles do).
double bound(const Schedule& schedule, const testing::TestNetwork& net) {
  SimConfig config;
  config.model = Model::flow;
  config.vector_bytes = 1 << 20;
  return estimate_run(schedule, *net.topology, *net.router, net.mapping, config, false)
      .time_lower_bound_s;
}

SchedulePtr build_for(const AlgorithmInfo& algo, Collective c, const std::vector<int>& dims) {
  int ranks = 1;
  for (int d : dims) ranks *= d;
  for (const bool shaped : {true, false}) {
    try {
      return shaped ? build(algo.name, c, ranks, dims) : build(algo.name, c, ranks);
    } catch (const UnsupportedRequest&) {
    }
  }
  return nullptr;
}

// Every algorithm of every collective, with and without a per-step overhead, at a latency-bound
// and a bandwidth-bound size, on a torus and on a HammingMesh (whose paths differ in length).
TEST(SimLowerBound, NeverExceedsTheSimulatedTime) {
  topo::NetworkParams with_alpha = testing::paper_params();
  with_alpha.alpha_s = 1e-6;
  int checked = 0;
  for (const auto& params : {testing::paper_params(), with_alpha}) {
    for (const std::string spec : {"torus:4x4", "hammingmesh:2x2:2x2"}) {
      const auto net = make_network(spec, 16, "minimal", params);
      for (const Collective c : all_collectives()) {
        for (const AlgorithmInfo* algo : registry().for_collective(c)) {
          const auto schedule = build_for(*algo, c, {4, 4});
          if (!schedule) continue;
          const double b = bound(*schedule, net);
          EXPECT_GT(b, 0) << algo->name;
          for (const std::uint64_t bytes : {std::uint64_t{64}, std::uint64_t{1} << 22}) {
            EXPECT_LE(b, simulated(*schedule, net, bytes) * (1 + 1e-12))
                << algo->name << " " << collective_name(c) << " on " << spec << " at " << bytes
                << " B, alpha " << params.alpha_s;
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 200);
}

// A ring allreduce of 8 bytes on ring:8: 14 steps, each a one-link message of one byte or none
// (400 ns of latency, 0.02 ns of bandwidth): the bound is 14 latencies plus 14 alphas, and the
// run takes that to within the bytes' transfer time.
TEST(SimLowerBound, IsTheTimeOfALatencyBoundRing) {
  topo::NetworkParams params = testing::paper_params();
  params.alpha_s = 0.5e-6;
  const auto net = make_network("ring:8", 8, "minimal", params);
  const auto ring = build("ring", Collective::allreduce, 8);
  const double per_step = params.alpha_s + params.link_latency_s + params.hop_latency_s;
  EXPECT_NEAR(bound(*ring, net), 14 * per_step, 1e-15);
  EXPECT_NEAR(simulated(*ring, net, 8), 14 * per_step, 14 * 1e-10);
}

}  // namespace
}  // namespace topocoll::sim
