// The hierarchical compositions (bine-trees-sc25.txt section 6.2): hier:INNER and leader:INNER
// verified for K in {1, 2, 3, 4, 8} ranks per node and node counts 1 to 64, every eligible
// inner for allreduce at a few node counts, rejections with the inner's reason, and a
// composition that drops a phase caught by the verifier.
#include "algorithms/hierarchical/hierarchical.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/registry.hpp"
#include "core/schedule_io.hpp"
#include "core/verifier/verifier.hpp"

namespace topocoll {
namespace {

namespace hier = algorithms::hierarchical;

ScheduleRequest request_for(Collective c, int nodes, int per_node, int root = 0) {
  ScheduleRequest r;
  r.collective = c;
  r.ranks = nodes * per_node;
  r.ranks_per_node = per_node;
  r.root = root;
  return r;
}

// Exact mode where it fits in a moment, the fingerprint beyond.
VerifyOptions options_for(const Schedule& s, bool commutative = true) {
  VerifyOptions o;
  o.threads = 1;
  o.commutative = commutative;
  const bool small = s.ranks() <= 64 && exact_mode_fits(s.info());
  o.mode = small ? VerifyMode::exact : VerifyMode::fingerprint;
  return o;
}

// The compositions of `form` that serve the request, by name.
std::vector<std::string> eligible(const std::string& form, const ScheduleRequest& request) {
  std::vector<std::string> out;
  for (const AlgorithmInfo& a : registry().compositions()) {
    if (a.composition->form != form) continue;
    ScheduleRequest r = request;
    normalize_shape(r);
    if (!Registry::rejection(a, r)) out.push_back(a.name);
  }
  return out;
}

std::string describe(const std::string& name, const ScheduleRequest& r) {
  return name + " " + std::string(collective_name(r.collective)) +
         " N=" + std::to_string(r.ranks / r.ranks_per_node) +
         " K=" + std::to_string(r.ranks_per_node) + " root=" + std::to_string(r.root);
}

void expect_verifies(const std::string& name, const ScheduleRequest& request,
                     bool commutative = true) {
  SchedulePtr s = registry().build(name, request);
  const VerifyReport report = verify(*s, options_for(*s, commutative));
  EXPECT_TRUE(report.ok) << describe(name, request) << ": " << report.message;
}

TEST(Hierarchical, RegistryListsFormsAndCompositions) {
  const auto& forms = registry().composition_forms();
  ASSERT_EQ(forms.size(), 2U);
  EXPECT_EQ(forms[0].name, "hier");
  EXPECT_EQ(forms[1].name, "leader");
  // One composition per form and flat algorithm sharing a collective with it.
  for (const CompositionForm& form : forms) {
    for (const AlgorithmInfo& flat : registry().all()) {
      bool shares = false;
      for (Collective c : form.collectives) shares = shares || flat.supports(c);
      const AlgorithmInfo* composed = registry().find(form.name + ":" + flat.name);
      EXPECT_EQ(composed != nullptr, shares) << form.name << ":" << flat.name;
      if (!composed) continue;
      EXPECT_EQ(composed->composition->inner, flat.name);
      for (Collective c : composed->collectives) EXPECT_TRUE(flat.supports(c));
    }
  }
  EXPECT_NE(registry().find("hier:ring"), nullptr);
  EXPECT_EQ(registry().find("hier:hier:ring"), nullptr);
  try {
    (void)registry().get("hier:nope");
    FAIL() << "an unknown inner was accepted";
  } catch (const UnsupportedRequest& e) {
    EXPECT_NE(std::string(e.what()).find("hier:INNER"), std::string::npos) << e.what();
  }
}

// hier:ring allreduce on 2 nodes of 2 ranks, by hand: B = K x B_in = 2 x 2 blocks; local
// index l owns blocks [2l, 2l + 2); the intra-node reduce-scatter is one step, the ring among
// ranks {l, 2 + l} two steps on the owned slice, the allgather one step.
TEST(Hierarchical, HandComputedHierRingOnTwoNodesOfTwo) {
  SchedulePtr s = registry().build("hier:ring", request_for(Collective::allreduce, 2, 2));
  EXPECT_EQ(s->info().blocks, 4);
  EXPECT_EQ(s->info().ports, 1);
  const std::vector<Step> rank1 = s->steps_of(1);
  ASSERT_EQ(rank1.size(), 4U);
  // Step 0: rank 1 (node 0, local 1) sends local 0's slice to rank 0, reduces its own.
  ASSERT_EQ(rank1[0].ops.size(), 2U);
  EXPECT_EQ(rank1[0].ops[0], Operation::send(0, BlockSet::range(0, 2)));
  EXPECT_EQ(rank1[0].ops[1].peer, 0);
  EXPECT_EQ(rank1[0].ops[1].blocks, BlockSet::range(2, 4));
  EXPECT_EQ(rank1[0].ops[1].combine, Combine::reduce);
  // Steps 1 and 2: the inner ring with rank 3 (node 1, local 1) inside blocks [2, 4).
  for (int step : {1, 2}) {
    for (const Operation& op : rank1[static_cast<std::size_t>(step)].ops) {
      EXPECT_EQ(op.peer, 3);
      EXPECT_EQ(op.blocks.block_count(), 1U);
      EXPECT_TRUE(op.blocks.ranges().front().begin >= 2);
    }
  }
  // Step 3: the allgather hands its slice to rank 0 and takes rank 0's.
  EXPECT_EQ(rank1[3].ops[0], Operation::send(0, BlockSet::range(2, 4)));
  EXPECT_EQ(rank1[3].ops[1].blocks, BlockSet::range(0, 2));
  EXPECT_EQ(rank1[3].ops[1].combine, Combine::copy);
  const VerifyReport report = verify(*s, options_for(*s));
  EXPECT_TRUE(report.ok) << report.message;
  // 4 ranks x (1 + 2 + 1) messages.
  EXPECT_EQ(report.messages, 16U);
}

// Every eligible inner, both forms, allreduce, on a few node counts (power of two or not).
TEST(Hierarchical, EveryEligibleInnerForAllreduce) {
  const std::vector<std::pair<int, int>> shapes = {{4, 4}, {6, 2}, {8, 3}, {3, 8}};
  int verified = 0;
  for (auto [nodes, per_node] : shapes) {
    const ScheduleRequest request = request_for(Collective::allreduce, nodes, per_node);
    for (const std::string form : {"hier", "leader"}) {
      const auto names = eligible(form, request);
      EXPECT_FALSE(names.empty()) << form << " N=" << nodes;
      for (const std::string& name : names) {
        expect_verifies(name, request);
        ++verified;
      }
    }
  }
  EXPECT_GT(verified, 20);
}

// K in {1, 2, 3, 4, 8} and node counts 1 to 64 of every class, every collective of each form,
// with inners taken in turn from those eligible (so the sample covers many of them), roots
// on and off local index 0.
TEST(Hierarchical, SampledShapesEveryCollective) {
  const std::vector<std::pair<int, int>> shapes = {
      {1, 2},  {1, 8},  {2, 1},  {2, 3},  {3, 4},  {5, 2},  {7, 3},  {8, 8},
      {12, 2}, {16, 4}, {17, 1}, {27, 3}, {32, 2}, {64, 1}, {64, 4}, {9, 8}};
  int turn = 0;
  int verified = 0;
  for (auto [nodes, per_node] : shapes) {
    for (const CompositionForm& form : registry().composition_forms()) {
      for (Collective c : form.collectives) {
        const int p = nodes * per_node;
        for (int root : {0, p - 1}) {
          if (!is_rooted(c) && root != 0) continue;
          const ScheduleRequest request = request_for(c, nodes, per_node, root);
          const auto names = eligible(form.name, request);
          if (names.empty()) continue;
          expect_verifies(names[static_cast<std::size_t>(turn++) % names.size()], request);
          ++verified;
        }
      }
    }
  }
  EXPECT_GT(verified, 150);
}

// Intra-node phases reduce in rank order and inner algorithms that keep rank order keep it
// across nodes, so a non-commutative operator is served whenever the inner serves it.
TEST(Hierarchical, NonCommutativeKeepsRankOrder) {
  int verified = 0;
  for (auto [nodes, per_node] : std::vector<std::pair<int, int>>{{4, 3}, {5, 2}, {2, 4}}) {
    for (Collective c : {Collective::allreduce, Collective::reduce_scatter, Collective::reduce}) {
      for (const std::string form : {"hier", "leader"}) {
        ScheduleRequest request = request_for(c, nodes, per_node, c == Collective::reduce ? 1 : 0);
        request.commutative = false;
        for (const std::string& name : eligible(form, request)) {
          expect_verifies(name, request, false);
          ++verified;
        }
      }
    }
  }
  EXPECT_GT(verified, 5);
}

TEST(Hierarchical, RejectionsNameTheReason) {
  // P not a multiple of K.
  auto why = Registry::rejection(registry().get("hier:ring"), [] {
    ScheduleRequest r = request_for(Collective::allreduce, 1, 7);
    r.ranks_per_node = 2;
    r.dims = {7};
    return r;
  }());
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("multiple of 2"), std::string::npos) << *why;
  // The inner's rank rule applies to the node count: 6 nodes are not a power of two.
  for (const AlgorithmInfo& flat : registry().all()) {
    if (flat.requirements.ranks != RankRule::power_of_two || !flat.supports(Collective::allreduce))
      continue;
    ScheduleRequest r = request_for(Collective::allreduce, 6, 4);
    EXPECT_THROW((void)registry().build("hier:" + flat.name, r), UnsupportedRequest);
    normalize_shape(r);
    const auto reason = Registry::rejection(registry().get("hier:" + flat.name), r);
    ASSERT_TRUE(reason.has_value()) << flat.name;
    EXPECT_NE(reason->find("6 nodes"), std::string::npos) << *reason;
    EXPECT_NE(reason->find("power-of-two"), std::string::npos) << *reason;
    // 8 nodes of 3 ranks (P = 24, not a power of two) are fine.
    expect_verifies("hier:" + flat.name, request_for(Collective::allreduce, 8, 3));
    break;
  }
  // A form without the collective.
  EXPECT_THROW((void)registry().build("hier:ring", request_for(Collective::bcast, 4, 2)),
               UnsupportedRequest);
  // A torus shape for the composed ranks.
  ScheduleRequest torus = request_for(Collective::allreduce, 4, 4);
  torus.dims = {4, 4};
  EXPECT_THROW((void)registry().build("hier:ring", torus), UnsupportedRequest);
}

// Dropping a phase leaves a well-formed schedule that computes the wrong thing: the verifier
// must say so.
TEST(Hierarchical, VerifierRejectsACompositionThatDropsAPhase) {
  for (const std::string form : {"hier", "leader"}) {
    ScheduleRequest request = request_for(Collective::allreduce, 4, 4);
    normalize_shape(request);
    const std::string inner = "ring";
    {
      hier::Phases full = hier::composition_phases(form, inner, request);
      ASSERT_EQ(full.phases.size(), 3U);
      SchedulePtr s = hier::in_sequence(std::move(full));
      EXPECT_TRUE(verify(*s, options_for(*s)).ok);
    }
    for (std::size_t dropped = 0; dropped < 3; ++dropped) {
      hier::Phases phases = hier::composition_phases(form, inner, request);
      phases.phases.erase(phases.phases.begin() + static_cast<std::ptrdiff_t>(dropped));
      SchedulePtr s = hier::in_sequence(std::move(phases));
      const VerifyReport report = verify(*s, options_for(*s));
      EXPECT_FALSE(report.ok) << form << " without phase " << dropped;
      EXPECT_EQ(report.violation, Violation::wrong_result)
          << form << " without phase " << dropped << ": " << report.message;
    }
  }
}

// A composition is a schedule like any other: the JSON format carries it, lanes included (the
// two-port ring runs its directions as lanes inside the inner phase).
TEST(Hierarchical, JsonRoundTripKeepsLanesAndVerifies) {
  ScheduleRequest two_ports = request_for(Collective::allreduce, 5, 3);
  two_ports.ports = 2;
  for (const auto& [name, request] : std::vector<std::pair<std::string, ScheduleRequest>>{
           {"hier:ring", two_ports},
           {"leader:bine-bw", request_for(Collective::reduce_scatter, 4, 2)},
           {"hier:binomial-doubling", request_for(Collective::bcast, 3, 4, 7)}}) {
    SchedulePtr s = registry().build(name, request);
    auto loaded = schedule_from_json(schedule_to_json(*s));
    EXPECT_EQ(loaded->has_lanes(), s->has_lanes()) << name;
    const VerifyReport report = verify(*loaded, options_for(*loaded));
    EXPECT_TRUE(report.ok) << name << ": " << report.message;
  }
  EXPECT_TRUE(registry().build("hier:ring", two_ports)->has_lanes());
}

// K = 1: the composition is the inner itself (no intra-node step), on the same ranks.
TEST(Hierarchical, OneRankPerNodeIsTheInner) {
  const ScheduleRequest request = request_for(Collective::allreduce, 8, 1);
  SchedulePtr flat = registry().build("ring", request);
  SchedulePtr composed = registry().build("hier:ring", request);
  EXPECT_EQ(composed->info().blocks, flat->info().blocks);
  for (int r = 0; r < 8; ++r) EXPECT_EQ(composed->steps_of(r).size(), flat->steps_of(r).size());
}

}  // namespace
}  // namespace topocoll
