// bucket-balanced (src/algorithms/baselines/bucket_balance.hpp): its plan keeps both dimensions
// of a rectangular 2D torus busy (bucket at least 95% of the bound at zero latency),
// the schedule verifies on rectangular, square and odd shapes, and the flow model runs it in
// exactly the planned time, which it can only do if lanes progress independently and wait only
// for the phases their links served before.
#include <gtest/gtest.h>

#include "algorithms/baselines/bucket_balance.hpp"
#include "core/registry.hpp"
#include "core/verifier/verifier.hpp"
#include "sim/simulate.hpp"
#include "topology/mapping.hpp"
#include "topology/routing.hpp"
#include "topology/topology.hpp"

namespace topocoll {
namespace {

constexpr double kBandwidth = 400e9 / 8;

ScheduleRequest request_for(int rows, int columns, Collective collective = Collective::allreduce) {
  ScheduleRequest request;
  request.collective = collective;
  request.ranks = rows * columns;
  request.dims = {rows, columns};
  return request;
}

// The flow model's zero-latency time over the bound (every port busy for (P-1)/P of a quarter
// of the vector per reduce-scatter or allgather).
double simulated_efficiency(const std::string& algorithm, int rows, int columns,
                            Collective collective = Collective::allreduce) {
  topo::NetworkParams params;
  params.bandwidth_bytes_per_s = kBandwidth;
  params.link_latency_s = 0;
  params.hop_latency_s = 0;
  const ScheduleRequest request = request_for(rows, columns, collective);
  const auto schedule = registry().build(algorithm, request);
  const auto topology =
      topo::make_topology("torus:" + std::to_string(rows) + "x" + std::to_string(columns), params);
  const auto router = topo::make_router(*topology, "minimal");
  const auto mapping = topo::make_mapping("linear", request.ranks, *topology);
  const bool allreduce = collective == Collective::allreduce;
  sim::SimConfig config;  // chunked collectives: the size is per rank
  config.vector_bytes = allreduce ? 1ull << 30 : (1ull << 30) / request.ranks;
  const double p = request.ranks;
  const double vector = allreduce ? double(config.vector_bytes) : double(config.vector_bytes) * p;
  const double bound = (allreduce ? 2 : 1) * (p - 1) / p * vector / (4 * kBandwidth);
  return bound / sim::simulate(*schedule, *topology, *router, mapping, config).time_s;
}

TEST(BucketBalanced, PlanReachesTheBoundWithinFivePercentOnRectangularTori) {
  for (auto [a, b] : {std::pair{16, 4},
                      {24, 6},
                      {32, 8},
                      {64, 16},
                      {128, 8},
                      {256, 4},
                      {6, 2},
                      {8, 2},
                      {16, 2},
                      {64, 2},
                      {9, 3},
                      {5, 3},
                      {12, 8}}) {
    const algorithms::BalancedBucketPlan plan =
        algorithms::plan_balanced_bucket(a, b, Collective::allreduce);
    EXPECT_GE(plan.efficiency, 0.95) << a << "x" << b;
    EXPECT_GE(plan.jobs.size(), 2u);
    // Every job's four phases appear once on the links, two per link.
    std::size_t phases = plan.link_order[0].size() + plan.link_order[1].size();
    EXPECT_EQ(phases, 4 * plan.jobs.size()) << a << "x" << b;
  }
  // A square torus needs no uneven split.
  EXPECT_NEAR(algorithms::plan_balanced_bucket(8, 8, Collective::allreduce).efficiency, 1.0, 1e-9);
}

TEST(BucketBalancedSlow, VerifiesOnRectangularSquareAndOddShapes) {
  for (auto [rows, columns] :
       {std::pair{2, 2}, {2, 6}, {8, 4}, {4, 16}, {5, 3}, {6, 6}, {8, 1}, {1, 5}, {2, 16}}) {
    for (Collective c :
         {Collective::allreduce, Collective::reduce_scatter, Collective::allgather}) {
      const auto schedule = registry().build("bucket-balanced", request_for(rows, columns, c));
      const VerifyReport report = verify(*schedule);
      EXPECT_TRUE(report.ok) << rows << "x" << columns << ": " << report.message;
    }
  }
}

TEST(BucketBalanced, FlowModelRunsThePlannedTime) {
  for (Collective c : {Collective::allreduce, Collective::reduce_scatter, Collective::allgather})
    for (auto [rows, columns] : {std::pair{16, 4}, {4, 8}, {16, 2}}) {
      const int a = std::max(rows, columns), b = std::min(rows, columns);
      const double planned = algorithms::plan_balanced_bucket(a, b, c).efficiency;
      const double simulated = simulated_efficiency("bucket-balanced", rows, columns, c);
      const std::string where = std::to_string(rows) + "x" + std::to_string(columns) + " " +
                                std::string(collective_name(c));
      EXPECT_NEAR(simulated, planned, 1e-3) << where;
      EXPECT_GE(simulated, 0.95) << where;
      // The paper's equal split stays below: the test would pass for a no-op variant otherwise.
      EXPECT_LT(simulated_efficiency("bucket", rows, columns, c), 0.93) << where;
    }
}

}  // namespace
}  // namespace topocoll
