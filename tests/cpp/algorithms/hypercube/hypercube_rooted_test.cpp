// Tree-based hypercube baselines (cm200-all-to-all-tr0293.txt section 5): exact verification
// for d = 1..7 and the required roots, neighbour-only communication, the edge-disjointness the
// spanning trees promise, and fingerprint runs at P = 4096.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/registry.hpp"
#include "core/verifier/verifier.hpp"
#include "support/sweep_sample.hpp"

namespace topocoll {
namespace {

const char* const kNames[] = {"spanning-trees", "gather-bcast", "rotated-binomial"};

SchedulePtr build(const std::string& name, Collective c, int d, int root, bool cube = true,
                  int ports = 0) {
  ScheduleRequest request;
  request.collective = c;
  request.ranks = 1 << d;
  if (cube) request.dims.assign(static_cast<std::size_t>(d), 2);
  request.root = root;
  request.ports = ports;
  return registry().build(name, request);
}

// Every root when P <= 32, else {0, 1, P/2, P-1}. Spanning-trees' all-to-all forms
// take every rank as a source in turn and have no root.
std::vector<int> roots(const std::string& name, Collective c, int p) {
  if (name == "spanning-trees" && !is_rooted(c)) return {0};
  if (p <= 32) {
    std::vector<int> all(static_cast<std::size_t>(p));
    for (int r = 0; r < p; ++r) all[static_cast<std::size_t>(r)] = r;
    return all;
  }
  return {0, 1, p / 2, p - 1};
}

void expect_correct(const Schedule& s, int d, VerifyMode mode) {
  VerifyOptions options;
  options.mode = mode;
  options.adjacency_torus.assign(static_cast<std::size_t>(d), 2);
  const VerifyReport report = verify(s, options);
  EXPECT_TRUE(report.ok) << s.info().algorithm << " " << collective_name(s.info().collective)
                         << " d=" << d << " root=" << s.info().root << " ports=" << s.info().ports
                         << ": " << report.message;
}

TEST(HypercubeRootedSlow, VerifiesExactlyForD1ToD7AndTheRequiredRoots) {
  for (const char* name : kNames)
    for (Collective c : registry().get(name).collectives)
      for (int d = 1; d <= 7; ++d)
        for (int root : roots(name, c, 1 << d))
          if (sweep::in_sample(
                  sweep::instance_name(name, " ", collective_name(c), " d=", d, " root=", root),
                  d <= 4))
            expect_correct(*build(name, c, d, root), d, VerifyMode::exact);
}

TEST(HypercubeRootedSlow, OnePortFormsVerifyExactlyUpToD5) {
  for (const char* name : kNames)
    for (Collective c : registry().get(name).collectives)
      for (int d = 1; d <= 5; ++d) {
        const int p = 1 << d;
        for (int root : {0, p - 1}) {
          auto s = build(name, c, d, root, false);
          EXPECT_EQ(s->info().ports, 1);
          expect_correct(*s, d, VerifyMode::exact);
        }
      }
}

// Fingerprint runs at P = 4096 for the rooted collectives. Gather and scatter carry P * d
// blocks (d parts per chunk), so the verifier's state is P^2 d slots: one root each.
TEST(HypercubeRootedSlow, RootedCollectivesVerifyAtP4096) {
  TOPOCOLL_SKIP_UNLESS_SAMPLED();
  const int d = 12, p = 1 << d;
  for (const char* name : {"spanning-trees", "rotated-binomial"})
    for (Collective c : registry().get(name).collectives)
      if (is_rooted(c)) expect_correct(*build(name, c, d, p - 1), d, VerifyMode::fingerprint);
}

// Gather-bcast above the exact range. Spanning-trees' all-to-all forms broadcast from every
// rank in turn (P^2 d^2 messages) and are verified exactly up to d = 7 only.
TEST(HypercubeRootedSlow, GatherBcastVerifiesAtD10) {
  TOPOCOLL_SKIP_UNLESS_SAMPLED();
  for (Collective c : registry().get("gather-bcast").collectives)
    expect_correct(*build("gather-bcast", c, 10, 1000), 10, VerifyMode::fingerprint);
}

// Alternative 1 relies on the d trees sharing no directed channel, so a message crosses each
// directed edge at most once per step, and each tree reaches every node.
TEST(HypercubeRooted, SpanningTreesUseEachDirectedChannelOncePerStep) {
  for (int d = 1; d <= 7; ++d) {
    const int p = 1 << d;
    for (int root : {0, (p / 2 + 1) % p}) {
      auto s = build("spanning-trees", Collective::bcast, d, root);
      std::set<std::pair<int, int>> edges_of_tree_blocks;  // (sender, receiver) over all steps
      std::set<std::tuple<int, int, int>> per_step;
      Step step;
      long long messages = 0;
      for (int r = 0; r < p; ++r)
        for (int k = 0; k < s->step_count(r); ++k) {
          step.clear();
          s->build_step(r, k, step);
          for (const Operation& op : step.ops) {
            if (op.kind != OpKind::send) continue;
            ++messages;
            EXPECT_TRUE(per_step.insert({k, r, op.peer}).second)
                << "d=" << d << " step " << k << ": " << r << "->" << op.peer << " twice";
            EXPECT_EQ(r ^ op.peer, 1 << op.port);
            edges_of_tree_blocks.insert({r, op.peer});
          }
        }
      // d trees of P - 1 edges each, every edge used once per packet (d packets per tree):
      // distinct directed edges = d (P - 1), so no edge is shared by two trees.
      EXPECT_EQ(static_cast<long long>(edges_of_tree_blocks.size()), d * (p - 1)) << "d=" << d;
      EXPECT_EQ(messages, static_cast<long long>(d) * d * (p - 1)) << "d=" << d;
      // Height d + 1 and d packets: 2d steps (d = 1: one edge, one packet).
      EXPECT_EQ(s->step_count(root ^ 1), d == 1 ? 1 : 2 * d);
    }
  }
}

TEST(HypercubeRooted, RotatedBinomialTakesDStepsWithAllPortsOnTheLast) {
  for (int d = 1; d <= 7; ++d) {
    auto s = build("rotated-binomial", Collective::bcast, d, 3 % (1 << d));
    Step step;
    s->build_step(0, d - 1, step);
    EXPECT_EQ(s->step_count(0), d);
    EXPECT_EQ(static_cast<int>(step.ops.size()), d) << "d=" << d;
  }
}

std::string rejection(const std::string& name, Collective c, int ranks, std::vector<int> dims,
                      int root, int ports = 0) {
  ScheduleRequest request;
  request.collective = c;
  request.ranks = ranks;
  request.dims = std::move(dims);
  request.root = root;
  request.ports = ports;
  try {
    (void)registry().build(name, request);
  } catch (const UnsupportedRequest& e) {
    return e.what();
  }
  return "";
}

TEST(HypercubeRooted, RejectsBadRequestsNamingTheAcceptedValues) {
  for (const char* name : kNames) {
    const Collective c = registry().get(name).collectives.front();
    EXPECT_NE(rejection(name, c, 24, {}, 0).find("accepted: 2, 4, 8"), std::string::npos);
    EXPECT_NE(rejection(name, c, 16, {4, 4}, 0).find("accepted: --dims omitted, 16, or 4 sizes"),
              std::string::npos);
    EXPECT_NE(rejection(name, c, 8, {2, 2, 2}, 0, 2).find("accepted: 1, 3"), std::string::npos);
  }
  EXPECT_NE(rejection("rotated-binomial", Collective::bcast, 8, {}, 8).find("accepted: 0..7"),
            std::string::npos);
  EXPECT_NE(rejection("gather-bcast", Collective::allgather, 8, {}, -1).find("accepted: 0..7"),
            std::string::npos);
  EXPECT_NE(rejection("rotated-binomial", Collective::allgather, 8, {}, 0)
                .find("does not implement allgather"),
            std::string::npos);
}

}  // namespace
}  // namespace topocoll
