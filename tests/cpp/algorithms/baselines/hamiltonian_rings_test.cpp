// Hamiltonian rings on 2D tori (swing-nsdi24.txt section 2.3.1): exact verification over every
// buildable shape up to 12x12 with torus-neighbour peers only, fingerprints on large tori, the
// paper's congestion claim (the four rings use every directed torus link exactly once per
// step), and rejection with the paper's condition where the cycles cannot be built.
#include <gtest/gtest.h>

#include <numeric>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/registry.hpp"
#include "core/verifier/verifier.hpp"
#include "support/sweep_sample.hpp"

namespace topocoll {
namespace {

const Collective kCollectives[] = {Collective::allreduce, Collective::reduce_scatter,
                                   Collective::allgather};

ScheduleRequest request_for(Collective c, std::vector<int> dims) {
  ScheduleRequest request;
  request.collective = c;
  request.dims = std::move(dims);
  return request;
}

// The paper's condition for one orientation: r = k c and gcd(r, c - 1) = 1.
bool buildable(int r, int c) { return c >= 2 && r % c == 0 && std::gcd(r, c - 1) == 1; }

std::string shape(const std::vector<int>& dims) {
  return std::to_string(dims[0]) + "x" + std::to_string(dims[1]);
}

VerifyReport check(Collective c, const std::vector<int>& dims, VerifyMode mode) {
  auto schedule = registry().build("hamiltonian-rings", request_for(c, dims));
  VerifyOptions options;
  options.mode = mode;
  options.adjacency_torus = dims;
  options.threads = 1;
  return verify(*schedule, options);
}

TEST(HamiltonianRingsSlow, VerifiesExactlyWithNeighbourPeersOnEveryBuildableShape) {
  int shapes = 0;
  for (int a = 2; a <= 12; ++a)
    for (int b = 2; b <= 12; ++b) {
      if (!buildable(a, b) && !buildable(b, a)) continue;
      ++shapes;
      for (Collective c : kCollectives) {
        const auto report = check(c, {a, b}, VerifyMode::exact);
        ASSERT_TRUE(report.ok) << collective_name(c) << " " << shape({a, b}) << ": "
                               << report.message;
        // Ring steps: P - 1 per phase.
        const int phases = c == Collective::allreduce ? 2 : 1;
        EXPECT_EQ(report.max_steps, phases * (a * b - 1)) << shape({a, b});
      }
    }
  EXPECT_GE(shapes, 20);  // squares 2..12, 4x2, 6x2, 8x4, 9x3, 10x5, 12x6, ... both ways round
}

TEST(HamiltonianRingsSlow, FingerprintsOnLargeTori) {
  TOPOCOLL_SKIP_UNLESS_SAMPLED();
  const std::pair<Collective, std::vector<int>> cases[] = {
      {Collective::allreduce, {32, 32}},
      {Collective::reduce_scatter, {32, 8}},
      {Collective::allgather, {9, 27}},
  };
  for (const auto& [c, dims] : cases) {
    const auto report = check(c, dims, VerifyMode::fingerprint);
    EXPECT_TRUE(report.ok) << collective_name(c) << " " << shape(dims) << ": " << report.message;
  }
}

// Section 2.3.1: each link carries at most one message per direction. The four rings send to
// their successors on the two cycles in both directions: on sides >= 3 (where the directed
// links between two nodes are distinct pairs) those 4P directed pairs must all differ, so
// the rings use each of the torus's 4P directed links exactly once in every step.
TEST(HamiltonianRings, FourRingsUseEveryDirectedLinkOncePerStep) {
  for (const std::vector<int>& dims :
       {std::vector<int>{3, 3}, {5, 5}, {8, 4}, {4, 8}, {9, 3}, {15, 5}, {16, 16}}) {
    auto schedule = registry().build("hamiltonian-rings", request_for(Collective::allreduce, dims));
    const int p = schedule->ranks();
    for (int step : {0, p - 1, 2 * p - 3}) {
      std::set<std::pair<int, int>> links;
      int sends = 0;
      for (int rank = 0; rank < p; ++rank) {
        Step s;
        schedule->build_step(rank, step, s);
        std::set<int> ports;
        for (const Operation& op : s.ops) {
          if (op.kind != OpKind::send) continue;
          ++sends;
          ports.insert(op.port);
          EXPECT_TRUE(links.insert({rank, op.peer}).second)
              << shape(dims) << " step " << step << ": link " << rank << "->" << op.peer
              << " used twice";
        }
        EXPECT_EQ(ports.size(), 4u) << shape(dims);
      }
      EXPECT_EQ(sends, 4 * p) << shape(dims);
    }
  }
}

// Every message is one block: allreduce moves 2 (P - 1) of each ring's P blocks per rank.
TEST(HamiltonianRings, MovesTheMinimalNumberOfBlocks) {
  auto schedule = registry().build("hamiltonian-rings", request_for(Collective::allreduce, {8, 8}));
  EXPECT_EQ(schedule->info().blocks, 4 * 64);
  EXPECT_EQ(schedule->info().ports, 4);
  const auto report = verify(*schedule);
  ASSERT_TRUE(report.ok) << report.message;
  EXPECT_EQ(report.block_transfers, 64u * 4u * 2u * 63u);
  EXPECT_EQ(report.ranges, report.messages);
}

TEST(HamiltonianRings, RejectsShapesWithoutTheTwoCycles) {
  // 6x3: r = 2c but gcd(6, 2) = 2; 6x4: neither side a multiple of the other; 12x4: gcd 3.
  for (const std::vector<int>& dims : {std::vector<int>{6, 3}, {3, 6}, {6, 4}, {12, 4}}) {
    try {
      (void)registry().build("hamiltonian-rings", request_for(Collective::allreduce, dims));
      FAIL() << shape(dims) << " should be rejected";
    } catch (const UnsupportedRequest& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("r = k*c and gcd(r, c-1) = 1"), std::string::npos) << what;
      EXPECT_NE(what.find(shape(dims)), std::string::npos) << what;
      EXPECT_NE(what.find("accepted:"), std::string::npos) << what;
    }
  }
  EXPECT_NO_THROW(
      (void)registry().build("hamiltonian-rings", request_for(Collective::allreduce, {12, 2})));
  // Not a 2D torus.
  for (const std::vector<int>& dims : {std::vector<int>{16}, {4, 4, 4}}) {
    try {
      (void)registry().build("hamiltonian-rings", request_for(Collective::allreduce, dims));
      FAIL() << dims.size() << "D should be rejected";
    } catch (const UnsupportedRequest& e) {
      EXPECT_NE(std::string(e.what()).find("2D tori only"), std::string::npos) << e.what();
    }
  }
  // Four rings, four ports.
  ScheduleRequest one_port = request_for(Collective::allreduce, {4, 4});
  one_port.ports = 1;
  EXPECT_THROW((void)registry().build("hamiltonian-rings", one_port), UnsupportedRequest);
  ScheduleRequest ordered = request_for(Collective::allreduce, {4, 4});
  ordered.commutative = false;
  EXPECT_THROW((void)registry().build("hamiltonian-rings", ordered), UnsupportedRequest);
}

TEST(HamiltonianRings, RegistryDeclaresRequirementsAsData) {
  const AlgorithmInfo& info = registry().get("hamiltonian-rings");
  EXPECT_EQ(info.requirements.dims, DimsRule::two_dimensional);
  EXPECT_EQ(info.accepted_ports(2), std::vector<int>{4});
  EXPECT_EQ(info.default_ports(2), 4);
  EXPECT_TRUE(info.requirements.commutative_op);
  EXPECT_EQ(info.requirements.min_ranks, 4);
}

}  // namespace
}  // namespace topocoll
