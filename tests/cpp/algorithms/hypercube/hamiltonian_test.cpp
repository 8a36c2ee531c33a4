// Hypercube all-to-all algorithms (cm200-all-to-all-tr0293.txt sections 4-5): verification over
// every cube d = 1..10, neighbour-only communication under both node labelings, the structure
// the paper promises (every channel busy, step counts), and the paper's Figs. 8 and 9.
#include <gtest/gtest.h>

#include <bit>
#include <set>
#include <string>
#include <vector>

#include "algorithms/hypercube/hypercube_common.hpp"
#include "core/registry.hpp"
#include "core/verifier/verifier.hpp"
#include "support/sweep_sample.hpp"

namespace topocoll {
namespace {

using algorithms::hypercube::gray;
using algorithms::hypercube::gray_inverse;

const Collective kCollectives[] = {Collective::allreduce, Collective::reduce_scatter,
                                   Collective::allgather};
const char* const kMethods[] = {"hamiltonian-cycle", "hamiltonian-d-cycles", "reduce-and-spread"};

bool is_gray(const std::string& name) { return name.ends_with("-gray"); }

std::vector<std::string> all_names() {
  std::vector<std::string> out;
  for (const char* m : kMethods) {
    out.push_back(m);
    out.push_back(std::string(m) + "-gray");
  }
  return out;
}

// A request on the cube shape 2x...x2 (cube = true) or on the plain rank count.
SchedulePtr build(const std::string& name, Collective c, int d, bool cube, int ports = 0) {
  ScheduleRequest request;
  request.collective = c;
  request.ranks = 1 << d;
  if (cube) request.dims.assign(static_cast<std::size_t>(d), 2);
  request.ports = ports;
  return registry().build(name, request);
}

// Rank r sits on node r (binary labels) or G(r) (Gray labels).
unsigned node_of(const std::string& name, int rank) {
  const auto r = static_cast<unsigned>(rank);
  return is_gray(name) ? gray(r) : r;
}

// The first operation whose peer is not a cube neighbour of its rank, or "".
std::string non_neighbour(const Schedule& s, const std::string& name) {
  Step step;
  for (int r = 0; r < s.ranks(); ++r)
    for (int k = 0; k < s.step_count(r); ++k) {
      step.clear();
      s.build_step(r, k, step);
      for (const Operation& op : step.ops)
        if (std::popcount(node_of(name, r) ^ node_of(name, op.peer)) != 1)
          return "rank " + std::to_string(r) + " step " + std::to_string(k) + ": " + op.to_string();
    }
  return "";
}

// Verifies `s` and checks that every message crosses one cube edge with the verifier's torus
// adjacency, which places rank r on the node the schedule's placement names (G(r) for Gray
// labels, r for binary ones); in exact mode also by mapping ranks to nodes here.
void expect_correct(const Schedule& s, const std::string& name, int d, VerifyMode mode) {
  VerifyOptions options;
  options.mode = mode;
  options.adjacency_torus.assign(static_cast<std::size_t>(d), 2);
  const VerifyReport report = verify(s, options);
  const std::string what = name + " " + std::string(collective_name(s.info().collective)) +
                           " d=" + std::to_string(d) + " ports=" + std::to_string(s.info().ports);
  EXPECT_TRUE(report.ok) << what << ": " << report.message;
  EXPECT_EQ(s.info().placement.empty(), !is_gray(name)) << what;
  for (int r = 0; r < s.ranks(); ++r)
    ASSERT_EQ(static_cast<unsigned>(s.info().node_of(r)), node_of(name, r)) << what;
  if (mode == VerifyMode::exact) EXPECT_EQ(non_neighbour(s, name), "") << what;
}

// Without the placement, the Gray variants' peers are not cube neighbours of the rank numbers:
// the adjacency check depends on it.
TEST(Hamiltonian, GrayPlacementIsWhatMakesPeersAdjacent) {
  auto placed = build("hamiltonian-cycle-gray", Collective::allgather, 4, true);
  auto bare = materialize(*placed);
  ScheduleInfo info = bare->info();
  info.placement.clear();
  ExplicitSchedule unplaced(info, bare->rank_lanes());
  VerifyOptions options;
  options.adjacency_torus.assign(4, 2);
  EXPECT_TRUE(verify(*placed, options).ok);
  const VerifyReport report = verify(unplaced, options);
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.violation, Violation::not_adjacent) << report.message;
  // A placement that is not a permutation is malformed, not a crash.
  info.placement.assign(16, 0);
  ExplicitSchedule doubled(info, bare->rank_lanes());
  const VerifyReport bad = verify(doubled, options);
  EXPECT_EQ(bad.violation, Violation::malformed) << bad.message;
  EXPECT_NE(bad.message.find("two ranks on node 0"), std::string::npos) << bad.message;
}

TEST(HamiltonianSlow, VerifiesExactlyOnEveryCubeUpToD7) {
  for (const std::string& name : all_names())
    for (Collective c : kCollectives)
      for (int d = 1; d <= 7; ++d)
        if (sweep::in_sample(sweep::instance_name(name, " ", collective_name(c), " d=", d), d <= 4))
          expect_correct(*build(name, c, d, true), name, d, VerifyMode::exact);
}

TEST(HamiltonianSlow, OnePortFormsVerifyExactlyUpToD6) {
  // A plain rank count gets one port (the d-port methods take the dimensions in turn).
  for (const std::string& name : all_names())
    for (Collective c : kCollectives)
      for (int d = 1; d <= 6; ++d) {
        if (!sweep::in_sample(sweep::instance_name(name, " ", collective_name(c), " 1-port d=", d),
                              d <= 4))
          continue;
        auto s = build(name, c, d, false);
        EXPECT_EQ(s->info().ports, 1) << name;
        expect_correct(*s, name, d, VerifyMode::exact);
      }
}

TEST(HamiltonianSlow, BidirectionalCycleVerifiesExactlyUpToD7) {
  for (const char* name : {"hamiltonian-cycle", "hamiltonian-cycle-gray"})
    for (Collective c : kCollectives)
      for (int d = 1; d <= 7; ++d)
        if (sweep::in_sample(sweep::instance_name(name, " ", collective_name(c), " 2-port d=", d),
                             d <= 4))
          expect_correct(*build(name, c, d, true, 2), name, d, VerifyMode::exact);
}

// The d-cycles move P(P-1)d single-block messages per phase (10^7 at d = 10), so above d = 8
// they are checked on a subset that keeps the suite short: the reversed phase and the Gray
// placement are the same generic wrappers as at d <= 8, and the other methods run in full.
bool large_case(const std::string& name, Collective c, int d) {
  if (d <= 8 || !name.starts_with("hamiltonian-d-cycles")) return true;
  if (c == Collective::allgather) return d == 9 || !is_gray(name);
  return d == 9 && c == Collective::reduce_scatter && !is_gray(name);
}

// Sampled per instance, not as one test: one commit in eight would otherwise pay its minute.
TEST(HamiltonianSlow, FingerprintVerifiesCubesD8ToD10) {
  for (const std::string& name : all_names())
    for (Collective c : kCollectives)
      for (int d = 8; d <= 10; ++d)
        if (large_case(name, c, d) &&
            sweep::in_sample(sweep::instance_name(name, " ", collective_name(c), " d=", d)))
          expect_correct(*build(name, c, d, true), name, d, VerifyMode::fingerprint);
}

// Exact at the top of the range: every allgather, and the d-cycles reduce-scatter, whose
// 10 million reductions of lists up to 1024 long the exact mode keeps as ropes (about 1.8 GB,
// 14 s on two cores).
TEST(HamiltonianSlow, VerifiesExactlyAtD10) {
  TOPOCOLL_SKIP_UNLESS_SAMPLED();
  for (const char* name : {"hamiltonian-cycle", "hamiltonian-d-cycles", "reduce-and-spread"})
    expect_correct(*build(name, Collective::allgather, 10, true), name, 10, VerifyMode::exact);
  expect_correct(*build("hamiltonian-d-cycles", Collective::reduce_scatter, 10, true),
                 "hamiltonian-d-cycles", 10, VerifyMode::exact);
}

// Section 4.2.1: "no two exchanges use the same dimension in any step" and every node exchanges
// on all d channels in every step; ports are the dimensions.
TEST(Hamiltonian, DCyclesKeepEveryChannelBusyInEveryStep) {
  for (const char* name : {"hamiltonian-d-cycles", "hamiltonian-d-cycles-gray"})
    for (Collective c : kCollectives)
      for (int d = 1; d <= 6; ++d) {
        auto s = build(name, c, d, true);
        ASSERT_EQ(s->info().ports, d);
        Step step;
        for (int r = 0; r < s->ranks(); ++r)
          for (int k = 0; k < s->step_count(r); ++k) {
            step.clear();
            s->build_step(r, k, step);
            std::set<int> send_ports, recv_ports;
            for (const Operation& op : step.ops) {
              const unsigned crossed = node_of(name, r) ^ node_of(name, op.peer);
              EXPECT_EQ(crossed, 1u << op.port) << name << " rank " << r << " step " << k;
              (op.kind == OpKind::send ? send_ports : recv_ports).insert(op.port);
            }
            EXPECT_EQ(static_cast<int>(send_ports.size()), d) << name << " rank " << r;
            EXPECT_EQ(static_cast<int>(recv_ports.size()), d) << name << " rank " << r;
          }
      }
}

TEST(Hamiltonian, StepCountsMatchThePaper) {
  for (int d = 1; d <= 6; ++d) {
    const int p = 1 << d;
    for (const char* name : {"hamiltonian-cycle", "hamiltonian-d-cycles"}) {
      EXPECT_EQ(build(name, Collective::allgather, d, true)->step_count(0), p - 1) << name;
      EXPECT_EQ(build(name, Collective::reduce_scatter, d, true)->step_count(0), p - 1) << name;
      EXPECT_EQ(build(name, Collective::allreduce, d, true)->step_count(0), 2 * (p - 1)) << name;
    }
    EXPECT_EQ(build("hamiltonian-d-cycles", Collective::allgather, d, true, 1)->step_count(0),
              d * (p - 1));
    for (Collective c : kCollectives)
      EXPECT_EQ(build("reduce-and-spread", c, d, true)->step_count(0), d);
  }
}

// Section 4.1: with Gray-code labels the cycle is the rank ring (Fig. 5); with binary labels it
// visits the nodes in Gray-code order.
TEST(Hamiltonian, SingleCycleFollowsTheGrayCode) {
  for (int d = 1; d <= 6; ++d) {
    const int p = 1 << d;
    auto ring = build("hamiltonian-cycle-gray", Collective::allgather, d, false);
    auto cube = build("hamiltonian-cycle", Collective::allgather, d, false);
    for (int r = 0; r < p; ++r) {
      EXPECT_EQ(ring->steps_of(r).front().ops.front().peer, (r + 1) % p);
      const unsigned pos = gray_inverse(static_cast<unsigned>(r));
      EXPECT_EQ(cube->steps_of(r).front().ops.front().peer,
                static_cast<int>(gray((pos + 1) % static_cast<unsigned>(p))));
    }
  }
}

// Figs. 8 (binary labels) and 9 (Gray labels): what node P_n receives into local address i in
// step u, as "i m" with m the array index (the rank whose chunk it is). Columns are nodes.
const char* const kFig8[7][3] = {
    {"01 00 03 02 05 04 07 06", "12 13 10 11 16 17 14 15", "24 25 26 27 20 21 22 23"},
    {"03 02 01 00 07 06 05 04", "16 17 14 15 12 13 10 11", "25 24 27 26 21 20 23 22"},
    {"02 03 00 01 06 07 04 05", "14 15 16 17 10 11 12 13", "21 20 23 22 25 24 27 26"},
    {"06 07 04 05 02 03 00 01", "15 14 17 16 11 10 13 12", "23 22 21 20 27 26 25 24"},
    {"07 06 05 04 03 02 01 00", "17 16 15 14 13 12 11 10", "27 26 25 24 23 22 21 20"},
    {"05 04 07 06 01 00 03 02", "13 12 11 10 17 16 15 14", "26 27 24 25 22 23 20 21"},
    {"04 05 06 07 00 01 02 03", "11 10 13 12 15 14 17 16", "22 23 20 21 26 27 24 25"}};
const char* const kFig9[7][3] = {
    {"01 00 02 03 06 07 05 04", "13 12 10 11 14 15 17 16", "27 26 24 25 20 21 23 22"},
    {"02 03 01 00 05 04 06 07", "14 15 17 16 13 12 10 11", "26 27 25 24 21 20 22 23"},
    {"03 02 00 01 04 05 07 06", "17 16 14 15 10 11 13 12", "21 20 22 23 26 27 25 24"},
    {"04 05 07 06 03 02 00 01", "16 17 15 14 11 10 12 13", "22 23 21 20 25 24 26 27"},
    {"05 04 06 07 02 03 01 00", "15 14 16 17 12 13 11 10", "25 24 26 27 22 23 21 20"},
    {"06 07 05 04 01 00 02 03", "12 13 11 10 15 14 16 17", "24 25 27 26 23 22 20 21"},
    {"07 06 04 05 00 01 03 02", "11 10 12 13 16 17 15 14", "23 22 20 21 24 25 27 26"}};

void expect_figure(const std::string& name, const char* const (&figure)[7][3]) {
  const int d = 3;
  auto s = build(name, Collective::allgather, d, true);
  for (int u = 0; u < 7; ++u)
    for (int i = 0; i < d; ++i)
      for (int node = 0; node < 8; ++node) {
        const std::string cell = std::string(figure[u][i]).substr(3 * node, 2);
        const int rank = is_gray(name) ? static_cast<int>(gray_inverse(node)) : node;
        Step step;
        s->build_step(rank, u, step);
        std::string found = "none";
        for (const Operation& op : step.ops) {
          const BlockIndex block = op.blocks.ranges().front().begin;
          if (op.kind == OpKind::recv && static_cast<int>(block) % d == i)
            found = std::to_string(i) + std::to_string(block / d);
        }
        EXPECT_EQ(found, cell) << name << " step " << u << " address " << i << " node " << node;
      }
}

TEST(Hamiltonian, DCyclesReproduceFigures8And9) {
  expect_figure("hamiltonian-d-cycles", kFig8);
  expect_figure("hamiltonian-d-cycles-gray", kFig9);
}

// Fig. 21: after step u, part i at every node sums the nodes of the subcube spanned by
// dimensions i .. i + u (mod d); checked through the peers of the d = 3 butterfly.
TEST(Hamiltonian, ReduceAndSpreadRotatesTheDimensions) {
  auto s = build("reduce-and-spread", Collective::allreduce, 3, true);
  for (int u = 0; u < 3; ++u) {
    Step step;
    s->build_step(5, u, step);
    ASSERT_EQ(step.ops.size(), 6u);
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(step.ops[2 * i].peer, 5 ^ (1 << ((u + i) % 3)));
      EXPECT_EQ(step.ops[2 * i].blocks, BlockSet::single(static_cast<BlockIndex>(i)));
    }
  }
}

std::string rejection(const std::string& name, int ranks, std::vector<int> dims, int ports,
                      bool commutative = true) {
  ScheduleRequest request;
  request.collective = Collective::allreduce;
  request.ranks = ranks;
  request.dims = std::move(dims);
  request.ports = ports;
  request.commutative = commutative;
  try {
    (void)registry().build(name, request);
  } catch (const UnsupportedRequest& e) {
    return e.what();
  }
  return "";
}

TEST(Hamiltonian, RejectsWhatIsNotACubeNamingTheAcceptedValues) {
  for (const std::string& name : all_names()) {
    EXPECT_NE(rejection(name, 12, {}, 0).find("accepted: 2, 4, 8"), std::string::npos) << name;
    EXPECT_NE(rejection(name, 8, {4, 2}, 0).find("accepted: --dims omitted, 8, or 3 sizes of 2"),
              std::string::npos)
        << name;
    EXPECT_NE(rejection(name, 8, {2, 2, 2}, 4).find("accepted: 1"), std::string::npos) << name;
    EXPECT_NE(rejection(name, 8, {}, 0, false).find("commutative"), std::string::npos) << name;
  }
  EXPECT_NE(rejection("hamiltonian-d-cycles", 8, {2, 2, 2}, 2).find("accepted: 1, 3"),
            std::string::npos);
  EXPECT_NE(rejection("hamiltonian-cycle", 8, {2, 2, 2}, 3).find("accepted: 1, 2"),
            std::string::npos);
}

}  // namespace
}  // namespace topocoll
