#include <gtest/gtest.h>

#include <bit>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/common/negabinary.hpp"
#include "algorithms/trees/tree_rooted.hpp"
#include "algorithms/trees/tree_shape.hpp"
#include "algorithms/trees/tree_torus.hpp"
#include "analysis/traffic.hpp"
#include "core/rank_math.hpp"
#include "core/registry.hpp"
#include "core/verifier/verifier.hpp"
#include "support/sweep_sample.hpp"

namespace topocoll {
namespace {

using algorithms::Tree;

const std::vector<std::string> kTreeAlgorithms = {"binomial-halving", "binomial-doubling",
                                                  "bine-halving", "bine-doubling"};

std::vector<int> roots_for(int p) {
  if (p <= 32) {
    std::vector<int> all(static_cast<std::size_t>(p));
    for (int r = 0; r < p; ++r) all[r] = r;
    return all;
  }
  return {0, 1, p / 2, p - 1};
}

VerifyReport run(const std::string& algorithm, Collective c, int p, int root, bool commutative,
                 VerifyMode mode = VerifyMode::exact) {
  ScheduleRequest request;
  request.collective = c;
  request.ranks = p;
  request.root = root;
  request.commutative = commutative;
  auto schedule = registry().build(algorithm, request);
  VerifyOptions options;
  options.mode = mode;
  options.commutative = commutative;
  options.threads = 1;
  return verify(*schedule, options);
}

std::string label(const std::string& a, Collective c, int p, int root, bool commutative) {
  return a + " " + std::string(collective_name(c)) + " P=" + std::to_string(p) +
         " root=" + std::to_string(root) + (commutative ? "" : " non-commutative");
}

// Parent in a tree rooted at 0, and the step at which a node joins.
void expect_edge(const Tree& t, int parent, int child, int step) {
  EXPECT_EQ(t.parent(child), parent) << "child " << child;
  EXPECT_EQ(t.recv_step(child), step) << "child " << child;
}

TEST(TreeShapes, MatchThePaperExamples) {
  // Fig. 1 / Fig. 2: distance-halving binomial, rank 0 serves 4 then 2 (P = 8); 0 -> 2, 0 -> 1,
  // 2 -> 3 (P = 4). Distance-doubling: 0 serves 1 then 2.
  const Tree halving = algorithms::binomial_halving_tree(8);
  expect_edge(halving, 0, 4, 0);
  expect_edge(halving, 0, 2, 1);
  expect_edge(halving, 4, 6, 1);
  const Tree doubling = algorithms::binomial_doubling_tree(8);
  expect_edge(doubling, 0, 1, 0);
  expect_edge(doubling, 0, 2, 1);
  expect_edge(doubling, 1, 3, 1);
  // Section 2.3.2 (16 ranks): rank 8 joins at step 1 and serves 7 at step 2; rank 4 is reached
  // through 0 -> 3 -> 4.
  const Tree bine = algorithms::bine_halving_tree(16);
  EXPECT_EQ(bine.recv_step(8), 1);
  EXPECT_EQ(bine.child_at(8, 2), 7);
  expect_edge(bine, 3, 4, bine.recv_step(4));
  EXPECT_EQ(bine.parent(3), 0);
  // Section 3.2.2 (8 ranks, distance doubling): rank 2 joins at step 1 and serves 5 at step 2.
  const Tree bine_doubling = algorithms::bine_doubling_tree(8);
  EXPECT_EQ(bine_doubling.recv_step(2), 1);
  EXPECT_EQ(bine_doubling.child_at(2, 2), 5);
  // Appendix C, Fig. 15 (10 ranks): node 8 is reached at step 3 through 0 -> 9 -> 8, and of the
  // two paths to node 5 the one of step 0 is kept.
  const Tree ten = algorithms::bine_halving_tree(10);
  expect_edge(ten, 0, 9, 2);
  expect_edge(ten, 9, 8, 3);
  expect_edge(ten, 0, 5, 0);
}

TEST(TreeShapes, AgreeWithTheClosedFormsOnPowersOfTwo) {
  // Listing 1: r joins at step s - u and then serves nb2rank(rank2nb(r) ^ 1..1 (s - i digits));
  // section 3.2: in the distance-doubling tree r joins at the highest set bit of v(r); the
  // late-first preorder of that tree is reverse(v(r)) (section 4.3.1, "Permute").
  for (int s = 1; s <= 12; ++s) {
    const int p = 1 << s;
    const Tree halving = algorithms::bine_halving_tree(p);
    const Tree doubling = algorithms::bine_doubling_tree(p);
    const std::vector<int> order = algorithms::late_first_preorder(doubling);
    for (int i = 0; i < p; ++i)
      EXPECT_EQ(static_cast<std::uint64_t>(i), negabinary::bine_nu(order[i], p)) << p;
    for (int r = 1; r < p; ++r) {
      const std::uint64_t nb = negabinary::rank_to_nb(r, p);
      const int join = s - negabinary::equal_low_digits(nb, s);
      ASSERT_EQ(halving.recv_step(r), join) << "P=" << p << " r=" << r;
      for (int i = join + 1; i < s; ++i)
        EXPECT_EQ(halving.child_at(r, i), negabinary::nb_to_rank(nb ^ ((1ULL << (s - i)) - 1), p));
      EXPECT_EQ(doubling.recv_step(r), std::bit_width(negabinary::bine_v(r, p)) - 1);
    }
  }
}

TEST(TreeShapes, SpanEveryEvenSizeWithoutExtraSteps) {
  // Appendix C: removing the later of two subtrees rooted at a rank reached twice leaves a
  // spanning tree (finalize() checks it) with ceil(log2 P) steps.
  for (int n = 2; n <= 6000; n += 2) {
    const int s = ceil_log(n, 2);
    EXPECT_EQ(algorithms::bine_halving_tree(n).steps(), s) << n;
    EXPECT_EQ(algorithms::bine_doubling_tree(n).steps(), s) << n;
  }
  for (int n = 3; n <= 301; n += 2)
    EXPECT_EQ(algorithms::bine_halving_tree(n).steps(), ceil_log(n - 1, 2) + 1);
}

TEST(TreeShapes, BineHalvesTheModularDistanceOfBinomialTrees) {
  // Section 2.4.1: at step i Bine partners are |sum_{j<s-i} (-2)^j| apart, binomial ones 2^(s-i-1).
  const int p = 1024;
  const Tree bine = algorithms::bine_halving_tree(p);
  const Tree binomial = algorithms::binomial_halving_tree(p);
  for (int i = 0; i < 10; ++i) {
    const int b = binomial.child_at(0, i);
    const int q = bine.child_at(0, i);
    const int bine_distance = std::min(q, p - q);
    EXPECT_EQ(b, 1 << (9 - i));
    EXPECT_LE(std::abs(3 * bine_distance - 2 * b), 1) << "step " << i;
  }
}

TEST(TreeCollectives, VerifyExactlyForEveryRankCountAndRoot) {
  for (const auto& a : kTreeAlgorithms)
    for (Collective c : {Collective::bcast, Collective::reduce})
      for (int p = 2; p <= 130; ++p)
        for (int root : roots_for(p)) {
          const auto report = run(a, c, p, root, true);
          ASSERT_TRUE(report.ok) << label(a, c, p, root, true) << ": " << report.message;
        }
}

TEST(TreeCollectives, HalvingTreesReduceInRankOrder) {
  for (const std::string a : {"binomial-halving", "bine-halving"})
    for (int p = 2; p <= 130; ++p)
      for (int root : roots_for(p)) {
        const auto report = run(a, Collective::reduce, p, root, false);
        ASSERT_TRUE(report.ok) << label(a, Collective::reduce, p, root, false) << ": "
                               << report.message;
      }
}

TEST(TreeCollectives, RankOrderedReduceOnlyHandsOverWhenNeeded) {
  // The distance-halving binomial tree is ordered from rank 0 (MPICH); Bine's from the rank its
  // root range starts at, -(2 + 8 + ...) mod P, e.g. 2 for P = 8.
  ScheduleRequest request;
  request.collective = Collective::reduce;
  request.ranks = 8;
  request.commutative = false;
  request.root = 2;
  EXPECT_EQ(registry().build("bine-halving", request)->step_count(2), 3);
  request.root = 0;
  EXPECT_EQ(registry().build("bine-halving", request)->step_count(0), 4);
  EXPECT_EQ(registry().build("binomial-halving", request)->step_count(0), 3);
}

TEST(TreeCollectives, StepCountsAreLogarithmic) {
  for (const auto& a : kTreeAlgorithms)
    for (int p : {2, 3, 5, 6, 7, 8, 10, 12, 64, 100, 127, 128}) {
      ScheduleRequest request;
      request.collective = Collective::bcast;
      request.ranks = p;
      auto schedule = registry().build(a, request);
      int steps = 0;
      for (int r = 0; r < p; ++r) steps = std::max(steps, schedule->step_count(r));
      // Binomial trees and Bine trees on even P: ceil(log2 P); odd P adds the fold step.
      const bool folded = a.starts_with("bine") && p % 2 == 1;
      EXPECT_EQ(steps, ceil_log(folded ? p - 1 : p, 2) + (folded ? 1 : 0)) << a << " P=" << p;
    }
}

TEST(TreeCollectives, FingerprintAtScale) {
  for (const auto& a : kTreeAlgorithms)
    for (Collective c : {Collective::bcast, Collective::reduce})
      for (int p : {4096, 4095}) {
        const auto report = run(a, c, p, p / 3, true, VerifyMode::fingerprint);
        ASSERT_TRUE(report.ok) << label(a, c, p, p / 3, true) << ": " << report.message;
      }
}

TEST(TreeCollectives, RotatedBineTreesAreNotRankOrdered) {
  // Why the ordered placement exists: rotating the tree to root 0 wraps ranges past rank 0.
  ScheduleInfo info;
  info.collective = Collective::reduce;
  info.ranks = 8;
  info.blocks = 1;
  auto plan = algorithms::rotated_tree(algorithms::TreeKind::bine_halving, 8, 0);
  algorithms::TreeReduce schedule(info, std::make_shared<Tree>(std::move(plan.tree)), -1);
  EXPECT_FALSE(schedule.rank_ordered());
  VerifyOptions options;
  options.commutative = false;
  const auto report = verify(schedule, options);
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.violation, Violation::wrong_result);
}

TEST(TreeCollectives, DoublingTreesNeedCommutativeOperators) {
  ScheduleRequest request;
  request.collective = Collective::reduce;
  request.ranks = 8;
  request.commutative = false;
  for (const std::string a : {"binomial-doubling", "bine-doubling"})
    EXPECT_THROW((void)registry().build(a, request), UnsupportedRequest) << a;
}

TEST(TreeCollectives, RejectOutOfRangeRoots) {
  ScheduleRequest request;
  request.collective = Collective::bcast;
  request.ranks = 8;
  for (int root : {-1, 8}) {
    request.root = root;
    for (const auto& a : kTreeAlgorithms)
      EXPECT_THROW((void)registry().build(a, request), UnsupportedRequest) << a << " " << root;
  }
}

const std::vector<std::string> kLargeAlgorithms = {"binomial-large", "bine-large"};

TEST(LargeCollectivesSlow, VerifyExactlyForEveryRankCountAndRoot) {
  for (const auto& a : kLargeAlgorithms)
    for (Collective c : {Collective::bcast, Collective::reduce})
      for (int p = 2; p <= 130; ++p)
        for (int root : roots_for(p)) {
          const auto report = run(a, c, p, root, true);
          ASSERT_TRUE(report.ok) << label(a, c, p, root, true) << ": " << report.message;
        }
}

TEST(LargeCollectivesSlow, FingerprintAtScale) {
  TOPOCOLL_SKIP_UNLESS_SAMPLED();
  for (const auto& a : kLargeAlgorithms)
    for (Collective c : {Collective::bcast, Collective::reduce})
      for (int p : {4096}) {
        const auto report = run(a, c, p, p / 3, true, VerifyMode::fingerprint);
        ASSERT_TRUE(report.ok) << label(a, c, p, p / 3, true) << ": " << report.message;
      }
}

TEST(LargeCollectivesSlow, SendOneRangePerMessageOnPowersOfTwo) {
  // Section 4.5: blocks are placed so that both phases transmit contiguous data.
  for (const auto& a : kLargeAlgorithms)
    for (Collective c : {Collective::bcast, Collective::reduce})
      for (int p : {2, 8, 64, 256}) {
        const auto report = run(a, c, p, p - 1, true);
        ASSERT_TRUE(report.ok) << report.message;
        EXPECT_EQ(report.ranges, report.messages) << label(a, c, p, p - 1, true);
      }
}

double inter_group_reduction(Collective c, int p, int group_size, int root) {
  std::vector<int> group(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) group[r] = r / group_size;
  double inter[2];
  for (int i = 0; i < 2; ++i) {
    ScheduleRequest request;
    request.collective = c;
    request.ranks = p;
    request.root = root;
    auto schedule = registry().build(kLargeAlgorithms[i], request);
    inter[i] =
        static_cast<double>(measure_traffic(*schedule, group, 1ULL << 30, 1).inter_group_bytes);
  }
  return 1.0 - inter[1] / inter[0];
}

TEST(LargeCollectivesSlow, BineBroadcastKeepsTheLargeTransfersInsideGroups) {
  // Section 5.1.1: MPICH scatters at distance P/2 first and allgathers at distance P/2 last;
  // Bine runs both phases the other way round and removes most inter-group traffic (88-94%
  // on LUMI).
  EXPECT_GT(inter_group_reduction(Collective::bcast, 1024, 64, 0), 0.9);
  EXPECT_GT(inter_group_reduction(Collective::bcast, 1000, 50, 7), 0.8);
}

std::vector<std::vector<int>> foundation_tori() {
  std::vector<std::vector<int>> tori;
  for (int a = 2; a <= 8; ++a)
    for (int b = 2; b <= 8; ++b) tori.push_back({a, b});
  for (auto t : std::vector<std::vector<int>>{
           {4, 6}, {6, 6}, {2, 8, 2}, {4, 6, 4}, {10, 10}, {3, 9}, {9, 9}, {27, 27}})
    tori.push_back(t);
  return tori;
}

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

VerifyReport run_torus(Collective c, const std::vector<int>& dims, int root, int ports,
                       VerifyMode mode = VerifyMode::exact) {
  ScheduleRequest request;
  request.collective = c;
  request.dims = dims;
  request.root = root;
  request.ports = ports;
  auto schedule = registry().build("bine-torus", request);
  VerifyOptions options;
  options.mode = mode;
  options.threads = 1;
  return verify(*schedule, options);
}

const std::vector<Collective> kRooted = {Collective::bcast, Collective::reduce, Collective::gather,
                                         Collective::scatter};

TEST(TorusTrees, MatchTheExampleOfAppendixD1) {
  // 4x4 torus, rank 0 at (0, 0) talks to (0, 3), (3, 0), (0, 1), (1, 0): ranks 3, 12, 1, 4.
  const Tree t = algorithms::torus_bine_tree({4, 4}, 0, algorithms::lane_directions(2, 0));
  const std::vector<int> expected = {3, 12, 1, 4};
  for (int step = 0; step < 4; ++step) EXPECT_EQ(t.child_at(0, step), expected[step]);
}

TEST(TorusTrees, EveryEdgeRunsAlongOneDimension) {
  for (const auto& dims : foundation_tori())
    for (int lane = 0; lane < 2 * static_cast<int>(dims.size()); ++lane) {
      const int d = static_cast<int>(dims.size());
      const int p = product(dims);
      const Tree t = algorithms::torus_bine_tree(dims, p / 2, algorithms::lane_directions(d, lane));
      for (int x = 0; x < p; ++x) {
        if (x == t.root()) continue;
        int differing = 0;
        for (int i = 0, a = x, b = t.parent(x); i < static_cast<int>(dims.size()); ++i) {
          differing += a % dims[i] != b % dims[i];
          a /= dims[i];
          b /= dims[i];
        }
        EXPECT_EQ(differing, 1) << shape_name(dims) << " node " << x;
      }
    }
}

// The direction (dimension, +1 or -1) of the root's send on `port` in `step`, from the
// coordinates of the two ranks; sizes >= 4 keep every Bine distance below half a side.
std::pair<int, int> root_direction(const Schedule& s, int root, int step, int port) {
  Step ops;
  s.build_step(root, step, ops);
  const auto& dims = s.info().dims;
  for (const Operation& op : ops.ops) {
    if (op.kind != OpKind::send || op.port != port) continue;
    for (int i = 0, a = root, b = op.peer; i < static_cast<int>(dims.size()); ++i) {
      const int offset = mod(b % dims[i] - a % dims[i], dims[i]);
      if (offset != 0) return {i, 2 * offset < dims[i] ? 1 : -1};
      a /= dims[i];
      b /= dims[i];
    }
  }
  return {-1, 0};
}

TEST(TorusTrees, LanesRotateTheDirectionCycleOfAppendixD4) {
  // D.4, Fig. 18: lane 0 runs E-N-W-S, the others N-W-S-E, W-S-E-N, S-E-N-W (2D) — on D
  // dimensions the cycle -x0, ..., -x(D-1), +x0, ..., +x(D-1) rotated by the lane.
  const std::vector<std::vector<int>> shapes = {{4, 4}, {8, 8}, {16, 16}, {4, 4, 4}};
  for (const auto& dims : shapes) {
    const int d = static_cast<int>(dims.size());
    for (int root : {0, product(dims) / 2 + 1}) {
      ScheduleRequest request;
      request.collective = Collective::bcast;
      request.dims = dims;
      request.root = root;
      request.ports = 2 * d;
      const auto schedule = registry().build("bine-torus", request);
      // Lane 0 gives the orientation: its first D steps are the dimensions in order, one sign.
      std::vector<std::pair<int, int>> cycle;
      for (int step = 0; step < 2 * d; ++step)
        cycle.push_back(root_direction(*schedule, root, step, 0));
      for (int i = 0; i < d; ++i) {
        EXPECT_EQ(cycle[i].first, i) << shape_name(dims);
        EXPECT_EQ(cycle[i].second, cycle[0].second) << shape_name(dims);
        EXPECT_EQ(cycle[d + i].first, i) << shape_name(dims);
        EXPECT_EQ(cycle[d + i].second, -cycle[0].second) << shape_name(dims);
      }
      for (int lane = 1; lane < 2 * d; ++lane)
        for (int step = 0; step < 2 * d; ++step)
          EXPECT_EQ(root_direction(*schedule, root, step, lane), cycle[(lane + step) % (2 * d)])
              << shape_name(dims) << " root " << root << " lane " << lane << " step " << step;
    }
  }
}

TEST(TorusTreesSlow, VerifyExactlyOnTheFoundationTori) {
  for (const auto& dims : foundation_tori()) {
    const int p = product(dims);
    const int d = static_cast<int>(dims.size());
    for (Collective c : kRooted)
      for (int ports : {1, 2 * d})
        for (int root : roots_for(p)) {
          if (!sweep::in_sample(
                  sweep::instance_name("bine-torus ", collective_name(c), " ", shape_name(dims),
                                       " root=", root, " ports=", ports),
                  p <= 16))
            continue;
          const auto report = run_torus(c, dims, root, ports);
          ASSERT_TRUE(report.ok) << "bine-torus " << collective_name(c) << " " << shape_name(dims)
                                 << " root=" << root << " ports=" << ports << ": "
                                 << report.message;
        }
  }
}

TEST(TorusTreesSlow, VerifyExactlyOnRings) {
  for (int p = 2; p <= 130; ++p)
    for (Collective c : kRooted)
      for (int ports : {1, 2})
        for (int root : {0, p / 2, p - 1}) {
          if (!sweep::in_sample(sweep::instance_name("bine-torus ", collective_name(c), " P=", p,
                                                     " root=", root, " ports=", ports),
                                p <= 16))
            continue;
          const auto report = run_torus(c, {p}, root, ports);
          ASSERT_TRUE(report.ok) << "bine-torus " << collective_name(c) << " P=" << p
                                 << " root=" << root << " ports=" << ports << ": "
                                 << report.message;
        }
}

TEST(TorusTreesSlow, FingerprintAtScale) {
  TOPOCOLL_SKIP_UNLESS_SAMPLED();
  // Four lanes split every chunk of gather and scatter four ways (16384 blocks per rank at this
  // size), so those run on one port here; the foundation tori cover their four-lane form.
  for (Collective c : kRooted) {
    const int ports = is_chunked_per_rank(c) ? 1 : 4;
    const auto report = run_torus(c, {64, 64}, 1234, ports, VerifyMode::fingerprint);
    ASSERT_TRUE(report.ok) << collective_name(c) << ": " << report.message;
  }
}

}  // namespace
}  // namespace topocoll
