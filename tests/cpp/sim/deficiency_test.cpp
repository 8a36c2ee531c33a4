// The flow model's large-vector time of the bandwidth-optimal
// torus algorithms, divided by the bound 2(p-1)/p x n/(2D x bandwidth), equals the papers'
// deficiencies evaluated at the simulated p: swing-nsdi24.txt section 4.1 / Table 2 (Swing,
// bucket) and trivance.txt section 5 / Table 2 (Trivance). No latency, so the time is the
// bandwidth term the tables model. bench/sim_speed.cpp `deficiency` runs the 4096-node cases.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "core/registry.hpp"
#include "sim/simulate.hpp"
#include "topology/mapping.hpp"
#include "topology/routing.hpp"
#include "topology/topology.hpp"

namespace topocoll::sim {
namespace {

constexpr double kBandwidth = 400e9 / 8;

double simulated_deficiency(const std::string& algorithm, int side, int dims, int ports = 0) {
  topo::NetworkParams params;
  params.bandwidth_bytes_per_s = kBandwidth;
  params.link_latency_s = 0;
  params.hop_latency_s = 0;
  const std::vector<int> shape(static_cast<std::size_t>(dims), side);
  std::string spec = "torus:";
  for (int d = 0; d < dims; ++d) spec += (d ? "x" : "") + std::to_string(side);
  ScheduleRequest request;
  request.collective = Collective::allreduce;
  request.ranks = static_cast<int>(std::lround(std::pow(side, dims)));
  request.dims = shape;
  request.ports = ports;
  const auto schedule = registry().build(algorithm, request);
  const auto topology = topo::make_topology(spec, params);
  const auto router = topo::make_router(*topology, "minimal");
  const auto mapping = topo::make_mapping("linear", request.ranks, *topology);
  SimConfig config;
  config.vector_bytes = 1ull << 30;
  const double p = request.ranks;
  const double bound = 2 * (p - 1) / p * config.vector_bytes / (2.0 * dims * kBandwidth);
  return simulate(*schedule, *topology, *router, mapping, config).time_s / bound;
}

// sum over steps k of distance(k / D) / base^(k+1): step k runs in dimension k mod D, at the
// distance of that dimension's step floor(k / D), with 1/base^(k+1) of the data.
double step_sum(double p, int dims, int base, const std::function<double(int)>& distance) {
  const int steps = static_cast<int>(std::lround(std::log(p) / std::log(base)));
  double s = 0;
  for (int k = 0; k < steps; ++k) s += distance(k / dims) / std::pow(base, k + 1);
  return s;
}

// swing-nsdi24.txt section 4.1: bandwidth term (n/2D) beta sum_s delta(sigma(s)) / 2^(s+1)
// per phase, delta(s) = (2^(s+1) - (-1)^(s+1)) / 3; Table 2 gives its limit (1.19, 1.03, 1.008).
double swing_deficiency(int side, int dims) {
  const double p = std::pow(side, dims);
  return step_sum(p, dims, 2,
                  [](int s) { return (std::pow(2, s + 1) - std::pow(-1, s + 1)) / 3; }) /
         ((p - 1) / p);
}

// trivance.txt section 5: both directions at distance 3^sigma(k) with m / 3^(k+1) per step,
// 2D ports; Table 2's limit (3^D - 1) / (3^D - 3).
double trivance_deficiency(int side, int dims) {
  const double p = std::pow(side, dims);
  return 2 * step_sum(p, dims, 3, [](int s) { return std::pow(3, s); }) / ((p - 1) / p);
}

TEST(SimDeficiency, SwingBandwidthOptimalMatchesItsCongestionDeficiency) {
  for (auto [side, dims] : {std::pair{16, 2}, {8, 3}, {4, 4}}) {
    const double expected = swing_deficiency(side, dims);
    EXPECT_NEAR(simulated_deficiency("swing-bw", side, dims), expected, expected * 0.03)
        << side << "^" << dims;
  }
  // The closed form tends to Table 2's values.
  EXPECT_NEAR(swing_deficiency(1 << 12, 2), 1.19, 0.01);
  EXPECT_NEAR(swing_deficiency(1 << 8, 3), 1.03, 0.01);
}

// Single-port recursive doubling on a torus (swing-nsdi24.txt section 2.3.3): distance
// 2^sigma(s) with the data halving per step, and all data through one of the 2D ports.
double recdoub_one_port_deficiency(int side, int dims) {
  const double p = std::pow(side, dims);
  return 2 * dims * step_sum(p, dims, 2, [](int s) { return std::pow(2, s); }) / ((p - 1) / p);
}

TEST(SimDeficiency, SinglePortRecursiveDoublingMatchesItsCongestion) {
  for (auto [side, dims] : {std::pair{32, 2}, {16, 3}, {8, 4}}) {
    const double expected = recdoub_one_port_deficiency(side, dims);
    EXPECT_NEAR(simulated_deficiency("recdoub-bw", side, dims, 1), expected, expected * 0.03)
        << side << "^" << dims;
  }
}

// Multi-port recursive doubling as trivance.txt section 2.4 ("Bidirectional Design") and
// section 6 build it: per dimension a plain lane and its mirror (x -> -x), 1/(2D) of the data
// each. In recursive doubling the lower rank of a pair sends +2^k and the upper -2^k, so one
// lane already uses both directions of every link at half its peak on average; the mirror's
// load on a link direction is the plain lane's shifted by one link, and the busiest direction
// carries 2^k + (2^k - 1) messages, not the 2^k of trivance.txt Appendix (Table 2), which
// assumes the two lanes never share a link direction. The last step of a dimension (distance
// side/2) is split over both directions: side/4 per lane, 2^k in all.
double recdoub_mirrored_lanes_deficiency(int side, int dims) {
  const double p = std::pow(side, dims);
  const int last = static_cast<int>(std::lround(std::log2(side))) - 1;
  return step_sum(p, dims, 2,
                  [last](int k) { return k < last ? std::pow(2, k + 1) - 1 : std::pow(2, k); }) /
         ((p - 1) / p);
}

// trivance.txt Table 2's idealized form: congestion 2^k per lane, (2^D - 1) / (2^D - 2) in
// the limit.
double recdoub_table2_deficiency(int side, int dims) {
  const double p = std::pow(side, dims);
  return step_sum(p, dims, 2, [](int k) { return std::pow(2, k); }) / ((p - 1) / p);
}

TEST(SimDeficiencySlow, MultiPortRecursiveDoublingMatchesTheCongestionOfItsMirroredLanes) {
  for (auto [side, dims] : {std::pair{32, 2}, {16, 3}, {8, 4}}) {
    const double expected = recdoub_mirrored_lanes_deficiency(side, dims);
    const double simulated = simulated_deficiency("recdoub-bw", side, dims, 2 * dims);
    EXPECT_NEAR(simulated, expected, expected * 0.001) << side << "^" << dims;
    // Above the idealized Table 2 form, by the lanes' shared link directions.
    EXPECT_GT(simulated, recdoub_table2_deficiency(side, dims) * 1.03) << side << "^" << dims;
  }
  EXPECT_NEAR(recdoub_table2_deficiency(1 << 12, 2), 1.5, 0.01);  // (2^2 - 1) / (2^2 - 2)
  EXPECT_NEAR(recdoub_table2_deficiency(1 << 8, 4), 15.0 / 14, 0.01);
}

TEST(SimDeficiency, BucketHasNone) {
  for (auto [side, dims] : {std::pair{16, 2}, {8, 3}, {4, 4}})
    EXPECT_NEAR(simulated_deficiency("bucket", side, dims), 1.0, 0.03) << side << "^" << dims;
}

TEST(SimDeficiency, TrivanceBandwidthOptimalMatchesItsTransmissionFactor) {
  for (auto [side, dims] : {std::pair{9, 2}, {9, 3}, {3, 4}}) {
    const double expected = trivance_deficiency(side, dims);
    EXPECT_NEAR(simulated_deficiency("trivance-bw", side, dims), expected, expected * 0.03)
        << side << "^" << dims;
  }
  EXPECT_NEAR(trivance_deficiency(2187, 2), 4.0 / 3, 0.01);  // (3^2 - 1) / (3^2 - 3)
}

}  // namespace
}  // namespace topocoll::sim
