// `bucket` as swing-nsdi24.txt section 5.2 and Fig. 9 run it: on a rectangular torus all 2D
// concurrent collectives move to the next dimension together, each dimension phase lasting as
// long as the rings on the largest dimension. `bucket-lanes` is the same lanes without that
// wait. Rounds are counted on the lanes themselves (steps and their declared dependencies), not
// on the lock-step view, so a lane that runs ahead shows up.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "core/registry.hpp"
#include "core/verifier/verifier.hpp"
#include "sim/simulate.hpp"
#include "topology/mapping.hpp"
#include "topology/routing.hpp"
#include "topology/topology.hpp"

namespace topocoll {
namespace {

int product(const std::vector<int>& dims) {
  int p = 1;
  for (int d : dims) p *= d;
  return p;
}

std::string shape_name(const std::vector<int>& dims) {
  std::string out;
  for (int d : dims) out += (out.empty() ? "" : "x") + std::to_string(d);
  return out;
}

SchedulePtr build(const std::string& name, Collective c, const std::vector<int>& dims,
                  int ports = 0) {
  ScheduleRequest request;
  request.collective = c;
  request.ranks = product(dims);
  request.dims = dims;
  request.ports = ports;
  return registry().build(name, request);
}

// Synchronous rounds of a schedule's lanes: a non-empty lane step takes one round, after its
// lane's earlier steps and the steps it declares it waits for, and in the same round as the
// steps that hold the other ends of its messages (matched per sender, receiver and port in
// posting order). An empty step takes no round. Solved by relaxation from round 1.
struct Rounds {
  std::vector<std::vector<std::vector<Step>>> steps;  // [rank][lane][step]
  std::vector<std::vector<std::vector<int>>> round;   // 0 for an empty step
  int total = 0;
};

Rounds count_rounds(const Schedule& schedule) {
  Rounds out;
  const int p = schedule.ranks();
  out.steps.resize(p);
  out.round.resize(p);
  for (int r = 0; r < p; ++r)
    for (int l = 0; l < schedule.lane_count(r); ++l) {
      out.steps[r].push_back(schedule.lane_steps_of(r, l));
      out.round[r].emplace_back(out.steps[r].back().size(), 0);
    }
  // The step holding the other end of each message: key (sender, receiver, port, index).
  using Key = std::tuple<int, int, int, int>;
  std::map<Key, std::pair<int, int>> sends, recvs;  // -> (lane, step)
  std::map<std::tuple<int, int, int>, int> sent, received;
  for (int r = 0; r < p; ++r)
    for (int l = 0; l < static_cast<int>(out.steps[r].size()); ++l)
      for (int k = 0; k < static_cast<int>(out.steps[r][l].size()); ++k)
        for (const Operation& op : out.steps[r][l][k].ops) {
          if (op.kind == OpKind::send)
            sends[{r, op.peer, op.port, sent[{r, op.peer, op.port}]++}] = {l, k};
          else if (op.kind == OpKind::recv)
            recvs[{op.peer, r, op.port, received[{op.peer, r, op.port}]++}] = {l, k};
        }
  EXPECT_EQ(sends.size(), recvs.size());
  std::vector<std::tuple<int, int, int, int, int, int>> pairs;  // sender lane step, receiver ...
  for (const auto& [key, at] : sends) {
    const auto it = recvs.find(key);
    if (it == recvs.end()) continue;
    pairs.emplace_back(std::get<0>(key), at.first, at.second, std::get<1>(key), it->second.first,
                       it->second.second);
  }
  // done(r, l, k): the round by which step k of lane l has finished.
  auto done = [&](int r, int l, int k) {
    int d = 0;
    for (int j = 0; j <= k; ++j) d = std::max(d, out.round[r][l][j]);
    return d;
  };
  for (int iteration = 0; iteration < 10000; ++iteration) {
    bool changed = false;
    for (int r = 0; r < p; ++r)
      for (int l = 0; l < static_cast<int>(out.steps[r].size()); ++l)
        for (int k = 0; k < static_cast<int>(out.steps[r][l].size()); ++k) {
          const Step& s = out.steps[r][l][k];
          int start = k > 0 ? done(r, l, k - 1) : 0;
          for (const Dependency& d : s.after) start = std::max(start, done(r, d.lane, d.step));
          // An empty step finishes with what it waits for, so its round is that one.
          const int want = s.empty() ? start : start + 1;
          if (want > out.round[r][l][k]) {
            out.round[r][l][k] = want;
            changed = true;
          }
        }
    for (const auto& [sr, sl, sk, rr, rl, rk] : pairs) {
      int& a = out.round[sr][sl][sk];
      int& b = out.round[rr][rl][rk];
      if (a != b) {
        a = b = std::max(a, b);
        changed = true;
      }
    }
    if (!changed) break;
  }
  for (const auto& rank : out.round)
    for (const auto& lane : rank)
      for (int x : lane) out.total = std::max(out.total, x);
  return out;
}

// The most sends over one directed link (sender, receiver) in one round. On tori whose sides
// are all >= 3 a rank's two neighbours along a dimension differ, so the pair names the link.
int most_rings_per_link(const Rounds& rounds) {
  std::map<std::tuple<int, int, int>, int> use;  // (round, sender, receiver)
  int most = 0;
  for (int r = 0; r < static_cast<int>(rounds.steps.size()); ++r)
    for (std::size_t l = 0; l < rounds.steps[r].size(); ++l)
      for (std::size_t k = 0; k < rounds.steps[r][l].size(); ++k)
        for (const Operation& op : rounds.steps[r][l][k].ops)
          if (op.kind == OpKind::send)
            most = std::max(most, ++use[{rounds.round[r][l][k], r, op.peer}]);
  return most;
}

// Section 5.2: 2D(d_max - 1) rounds for an allreduce (D(d_max - 1) reduce-scatter, then as
// many allgather; the paper's 2D d_max counts d_max steps per ring). Every lane step k runs in
// round k + 1, so the lanes enter each dimension phase in the same round.
TEST(BucketLockStep, RectangularToriSwitchDimensionsTogether) {
  struct Case {
    std::vector<int> dims;
    Collective collective;
    int rounds;
  };
  const std::vector<Case> cases = {
      {{8, 4}, Collective::allreduce, 2 * 2 * 7},   {{16, 4}, Collective::allreduce, 2 * 2 * 15},
      {{4, 16}, Collective::allreduce, 2 * 2 * 15}, {{3, 6, 4}, Collective::allreduce, 2 * 3 * 5},
      {{8, 4}, Collective::reduce_scatter, 2 * 7},  {{8, 4}, Collective::allgather, 2 * 7},
  };
  for (const auto& k : cases) {
    const std::string what = std::string(collective_name(k.collective)) + " " + shape_name(k.dims);
    const auto schedule = build("bucket", k.collective, k.dims);
    const Rounds rounds = count_rounds(*schedule);
    EXPECT_EQ(rounds.total, k.rounds) << what;
    for (int r = 0; r < schedule->ranks(); ++r)
      for (std::size_t l = 0; l < rounds.steps[r].size(); ++l)
        for (std::size_t s = 0; s < rounds.steps[r][l].size(); ++s)
          if (!rounds.steps[r][l][s].empty())
            ASSERT_EQ(rounds.round[r][l][s], static_cast<int>(s) + 1)
                << what << " rank " << r << " lane " << l << " step " << s;
    // Section 2.3.4: at most one ring per direction on a link in every round.
    EXPECT_EQ(most_rings_per_link(rounds), 1) << what;
  }
}

// Our variant keeps running each lane on as soon as its own ring ends: 2(d_1 - 1 + ... ) rounds,
// and on 8x4 the lanes that started on the short side reach the long one in round 4 (the 4th,
// "round 3" counting from 0) while the long-first lanes still run there.
TEST(BucketLockStep, LanesVariantRunsAheadAndSharesLinks) {
  const auto lanes = build("bucket-lanes", Collective::allreduce, {8, 4});
  const Rounds rounds = count_rounds(*lanes);
  EXPECT_EQ(rounds.total, 2 * (7 + 3));
  EXPECT_EQ(most_rings_per_link(rounds), 2);
  const Rounds longer = count_rounds(*build("bucket-lanes", Collective::allreduce, {16, 4}));
  EXPECT_EQ(longer.total, 2 * (15 + 3));
  // Square tori have nothing to wait for: both forms take 2D(d - 1) rounds.
  EXPECT_EQ(count_rounds(*build("bucket-lanes", Collective::allreduce, {5, 5})).total, 16);
  EXPECT_EQ(count_rounds(*build("bucket", Collective::allreduce, {5, 5})).total, 16);
}

// The dependencies are declared, not implied: only the first step of a dimension phase waits,
// for every other lane of its rank at the step before; bucket-lanes declares none.
TEST(BucketLockStep, DependenciesAtDimensionSwitches) {
  const auto bucket = build("bucket", Collective::allreduce, {8, 4});
  const auto lanes = build("bucket-lanes", Collective::allreduce, {8, 4});
  ASSERT_EQ(bucket->lane_count(0), 4);
  for (int l = 0; l < 4; ++l) {
    const auto steps = bucket->lane_steps_of(5, l);
    ASSERT_EQ(steps.size(), 28u);
    for (int s = 0; s < 28; ++s) {
      std::vector<Dependency> expected;
      if (s > 0 && s % 7 == 0)
        for (int m = 0; m < 4; ++m)
          if (m != l) expected.push_back({m, s - 1});
      EXPECT_EQ(steps[s].after, expected) << "lane " << l << " step " << s;
    }
    for (const Step& step : lanes->lane_steps_of(5, l)) EXPECT_TRUE(step.after.empty());
  }
}

// The verifier proves the variant too (the lock-step form is covered by bucket_test.cpp).
TEST(BucketLockStep, LanesVariantVerifies) {
  for (const std::vector<int>& dims :
       std::vector<std::vector<int>>{{8, 4}, {4, 6}, {3, 4, 5}, {1, 8}, {7}}) {
    for (Collective c :
         {Collective::allreduce, Collective::reduce_scatter, Collective::allgather}) {
      VerifyOptions options;
      options.adjacency_torus = dims;
      const auto report = verify(*build("bucket-lanes", c, dims), options);
      EXPECT_TRUE(report.ok) << collective_name(c) << " " << shape_name(dims) << ": "
                             << report.message;
    }
  }
}

TEST(BucketLockStep, RegistryEntries) {
  const AlgorithmInfo& bucket = registry().get("bucket");
  const AlgorithmInfo& lanes = registry().get("bucket-lanes");
  EXPECT_TRUE(bucket.baseline);
  EXPECT_FALSE(lanes.baseline);  // our variant, not the paper's baseline
  EXPECT_EQ(lanes.family, "bucket");
  EXPECT_EQ(lanes.accepted_ports(2), bucket.accepted_ports(2));
  EXPECT_EQ(build("bucket-lanes", Collective::allreduce, {8, 4})->info().algorithm, "bucket-lanes");
  EXPECT_EQ(build("bucket", Collective::allreduce, {8, 4})->info().algorithm, "bucket");
}

// The flow model's allreduce time with no per-step overhead and `latency` per link.
double flow_time(const std::string& name, const std::vector<int>& dims, std::uint64_t bytes,
                 double bandwidth, double latency = 0) {
  topo::NetworkParams params;
  params.bandwidth_bytes_per_s = bandwidth;
  params.link_latency_s = latency;
  params.hop_latency_s = 0;
  params.alpha_s = 0;
  const auto topology = topo::make_topology("torus:" + shape_name(dims), params);
  const auto router = topo::make_router(*topology, "minimal");
  const auto mapping = topo::make_mapping("linear", product(dims), *topology);
  sim::SimConfig config;
  config.model = sim::Model::flow;
  config.vector_bytes = bytes;
  return sim::simulate(*build(name, Collective::allreduce, dims), *topology, *router, mapping,
                       config)
      .time_s;
}

// Lock-step closed form: each dimension phase lasts as long as its slowest ring. On an a x b
// torus (a > b) each of the 4 lanes holds n/4; in phase 1 the long-first lane sends (a-1)
// pieces of n/(4a) and the short-first one (b-1) of n/(4b); in phase 2 they hold n/(4a) and
// n/(4b) and send (b-1) and (a-1) pieces of n/(4ab). The long ring is the slower in both, and
// the allgather mirrors the reduce-scatter. At zero latency:
//   8x4:  2 (7 n/32 + 7 n/128) / bw = 70/128 n/bw;  16x4: 2 (15 n/64 + 15 n/256) = 150/256 n/bw.
// On a 2D torus the long links are busy in every phase, so bucket-lanes takes the same time
// there; with a latency L per message the 2D(a - 1) rounds add 2D(a - 1) L, which the lanes
// variant's 2(a - 1 + b - 1) rounds undercut.
TEST(BucketLockStep, FlowTimeMatchesTheLockStepClosedForm) {
  const double bw = 400e9 / 8;
  const std::uint64_t n = 1ull << 26;
  const double nb = static_cast<double>(n) / bw;
  EXPECT_NEAR(flow_time("bucket", {8, 4}, n, bw), 70.0 / 128 * nb, 1e-6 * nb);
  EXPECT_NEAR(flow_time("bucket", {16, 4}, n, bw), 150.0 / 256 * nb, 1e-6 * nb);
  EXPECT_NEAR(flow_time("bucket-lanes", {8, 4}, n, bw), 70.0 / 128 * nb, 1e-6 * nb);
  // 6x3x4: 6 lanes of x = n/6 starting on sides 6, 3, 4. Phase 1: 5/6 x, 2/3 x, 3/4 x; phase
  // 2 (on 3, 4, 6 with x/6, x/3, x/4): x/9, x/4, 5x/24; phase 3 (on 4, 6, 3 with x/18, x/12,
  // x/24): x/24, 5x/72, x/36. The slowest per phase: (5/6 + 1/4 + 5/72) x = 83/72 x, twice.
  // The busiest link's load (what the lanes would need if they never waited) is less, so the
  // waiting shows here even without latency.
  // (A vector of 432 x 2^16 bytes, so that the 6 x 72 blocks are equal.)
  const std::uint64_t m = 432ull << 16;
  const double mb = static_cast<double>(m) / bw;
  EXPECT_NEAR(flow_time("bucket", {6, 3, 4}, m, bw), 2 * 83.0 / 72 / 6 * mb, 1e-6 * mb);

  const double latency = 1e-6;
  const std::uint64_t small = 1 << 12;
  const double sb = static_cast<double>(small) / bw;
  EXPECT_NEAR(flow_time("bucket", {8, 4}, small, bw, latency), 28 * latency + 70.0 / 128 * sb,
              1e-9 * latency);
  EXPECT_NEAR(flow_time("bucket", {16, 4}, small, bw, latency), 60 * latency + 150.0 / 256 * sb,
              1e-9 * latency);
  EXPECT_LT(flow_time("bucket-lanes", {8, 4}, small, bw, latency), 21 * latency);
}

}  // namespace
}  // namespace topocoll
