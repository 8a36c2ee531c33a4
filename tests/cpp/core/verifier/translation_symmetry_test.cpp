// Verification by translation symmetry (docs/verifier.md, "Translation symmetry"): runs that
// check one block per orbit must agree with runs that check every block, and the proof must
// refuse a schedule in which one rank is not the translate of its representative.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "core/verifier/symmetry_proof.hpp"
#include "core/verifier/verifier.hpp"

namespace topocoll {
namespace {

using detail::TranslationGroup;

VerifyReport run(const Schedule& s, bool symmetry) {
  VerifyOptions options;
  options.mode = VerifyMode::fingerprint;
  options.translation_symmetry = symmetry;
  return verify(s, options);
}

std::string shape_name(const std::vector<int>& dims) {
  std::string out;
  for (std::size_t i = 0; i < dims.size(); ++i) out += (i ? "x" : "") + std::to_string(dims[i]);
  return out;
}

// The family of the group a description names ("ring", "torus", "hypercube"), or "".
std::string family(const std::string& symmetry) {
  if (symmetry.rfind("translation symmetry:", 0) != 0) return "";
  if (symmetry.find("hypercube") != std::string::npos) return "hypercube";
  if (symmetry.find("torus") != std::string::npos) return "torus";
  return "ring";
}

const std::vector<std::vector<int>> kShapes = {{8},    {9},    {12},      {16},     {27},
                                               {4, 4}, {3, 3}, {2, 2, 4}, {3, 3, 3}};

// Every registered algorithm of the three translation-invariant collectives on small rings,
// tori and hypercubes: wherever the reduced path applies, it agrees with the full run (same
// verdict, same messages), and the reduced run checks fewer blocks.
TEST(TranslationSymmetry, ReducedRunsEqualFullRuns) {
  std::map<std::string, int> reduced_by_family;
  for (Collective c : {Collective::allreduce, Collective::reduce_scatter, Collective::allgather}) {
    for (const AlgorithmInfo& algo : registry().all()) {
      if (!algo.supports(c)) continue;
      for (const auto& dims : kShapes) {
        ScheduleRequest request;
        request.collective = c;
        request.ranks = 1;
        for (int n : dims) request.ranks *= n;
        request.dims = dims;
        if (Registry::rejection(algo, request)) continue;
        const auto schedule = registry().build(algo.name, request);
        const auto reduced = run(*schedule, true);
        const std::string what = algo.name + " " + std::string(collective_name(c)) + " " +
                                 shape_name(dims) + ": " + reduced.symmetry;
        if (reduced.symmetry_order == 1) continue;
        const auto full = run(*schedule, false);
        EXPECT_TRUE(full.ok) << what << ": " << full.message;
        EXPECT_EQ(reduced.ok, full.ok) << what << ": " << reduced.message;
        EXPECT_EQ(reduced.messages, full.messages) << what;
        EXPECT_EQ(reduced.block_transfers, full.block_transfers) << what;
        EXPECT_LT(reduced.checked_slots, full.checked_slots) << what;
        ++reduced_by_family[family(reduced.symmetry) + " " + std::to_string(dims.size())];
      }
    }
  }
  // The path is exercised on each kind of group: rings, 2D and 3D shapes, hypercubes.
  EXPECT_GT(reduced_by_family["ring 1"], 0);
  EXPECT_GT(reduced_by_family["hypercube 1"], 0);
  EXPECT_GT(reduced_by_family["hypercube 2"] + reduced_by_family["torus 2"], 0);
  EXPECT_GT(reduced_by_family["hypercube 3"] + reduced_by_family["torus 3"], 0);
}

SchedulePtr build(const std::string& name, Collective c, std::vector<int> dims) {
  ScheduleRequest request;
  request.collective = c;
  request.ranks = 1;
  for (int n : dims) request.ranks *= n;
  request.dims = std::move(dims);
  return registry().build(name, request);
}

// Instances the reduced path covers, one per group family (checked below).
struct Instance {
  std::string algorithm;
  Collective collective;
  std::vector<int> dims;
  std::string family;
};
const std::vector<Instance> kInstances = {
    {"ring", Collective::allreduce, {12}, "ring"},
    {"ring", Collective::allgather, {9}, "ring"},
    {"bucket", Collective::reduce_scatter, {16}, "ring"},
    {"recdoub-bw", Collective::allreduce, {16}, "hypercube"},
    {"recdoub-bw", Collective::allreduce, {2, 2, 4}, "hypercube"},
    {"recdoub-bw", Collective::allreduce, {4, 4}, "hypercube"},
    // Blocks in the schedules' own orders (Schedule::block_ranks).
    {"swing-bw", Collective::allreduce, {16}, "ring"},
    {"swing-bw", Collective::allreduce, {2, 4, 2}, "hypercube"},
    {"bine-bw", Collective::allreduce, {16}, "ring"},
    {"bine-bw-torus", Collective::allreduce, {4, 4}, "hypercube"},
    // Blocks grouped by rank residue (Trivance's allreduce layout, RingLayout).
    {"trivance-bw", Collective::allreduce, {27}, "ring"},
    {"trivance-bw", Collective::allreduce, {81}, "ring"},
};

TEST(TranslationSymmetry, InstancesUseTheReducedPath) {
  for (const Instance& i : kInstances) {
    const auto s = build(i.algorithm, i.collective, i.dims);
    const auto report = run(*s, true);
    EXPECT_TRUE(report.ok) << i.algorithm << ": " << report.message;
    EXPECT_EQ(family(report.symmetry), i.family) << i.algorithm << ": " << report.symmetry;
  }
}

// A deliberately wrong translation (peers moved one rank further, or blocks left in place)
// makes the proof refuse every instance: the proof really compares each rank with the
// translate of its representative, and the tests above would fail with such a translation.
TEST(TranslationSymmetry, WrongTranslationIsRefused) {
  const detail::Translate peer_off_by_one = [](const TranslationGroup& g, int e,
                                               const Operation& op, int per_rank) {
    Operation out = g.act(e, op, per_rank);
    if (op.kind != OpKind::copy) out.peer = (out.peer + 1) % g.ranks();
    return out;
  };
  const detail::Translate blocks_fixed = [](const TranslationGroup& g, int e, const Operation& op,
                                            int per_rank) {
    Operation out = g.act(e, op, per_rank);
    out.blocks = op.blocks;
    out.blocks.normalize();
    return out;
  };
  const detail::Translate right = [](const TranslationGroup& g, int e, const Operation& op,
                                     int per_rank) { return g.act(e, op, per_rank); };
  for (const Instance& i : kInstances) {
    const auto s = build(i.algorithm, i.collective, i.dims);
    EXPECT_TRUE(detail::find_verify_symmetry(*s, 1, right).group.has_value()) << i.algorithm;
    for (const auto* wrong : {&peer_off_by_one, &blocks_fixed}) {
      const auto found = detail::find_verify_symmetry(*s, 1, *wrong);
      EXPECT_FALSE(found.group.has_value()) << i.algorithm << ": " << found.description;
    }
  }
}

// One rank's schedule changed, for each rank in turn: the proof refuses the symmetry (the
// sample of ranks tried first, or the proof over every rank, which names it), the run falls
// back to checking every block and finds the wrong result (exit 1 at the CLI). The change
// touches blocks past the ones the reduced run would check, so a run that assumed the
// symmetry without proving it would pass.
TEST(TranslationSymmetry, OneBrokenRankIsCaught) {
  int named = 0;  // mutations that passed the sample and were caught by the proof
  for (const Instance& i : kInstances) {
    const auto original = build(i.algorithm, i.collective, i.dims);
    const auto before = run(*original, true);
    ASSERT_GT(before.symmetry_order, 1) << i.algorithm;
    for (int rank = 1; rank < original->ranks(); ++rank) {
      auto s = materialize(*original);
      // The rank's first receive that carries a block past the checked ones: its reduction
      // becomes a copy (or a copy a reduction), which drops or doubles contributions.
      bool mutated = false;
      for (Step& step : s->lane_zero(rank)) {
        for (Operation& op : step.ops) {
          if (op.kind != OpKind::recv || op.blocks.ranges().back().end <= before.checked_slots)
            continue;
          op.combine = op.combine == Combine::reduce ? Combine::copy : Combine::reduce;
          mutated = true;
          break;
        }
        if (mutated) break;
      }
      ASSERT_TRUE(mutated) << i.algorithm << " rank " << rank;
      const auto after = run(*s, true);
      EXPECT_FALSE(after.ok) << i.algorithm << " rank " << rank << ": " << after.symmetry;
      EXPECT_EQ(after.symmetry_order, 1) << i.algorithm << " rank " << rank;
      if (after.symmetry.find("rank " + std::to_string(rank) + " ") != std::string::npos) ++named;
    }
  }
  EXPECT_GT(named, 5) << "the proof over every rank rarely had to decide";
}

// A conflict between two lanes at every rank: under a proven symmetry the lane order is checked
// at one rank per orbit (core/verifier/engine.hpp), which must still find it. Each rank sends
// its block to its right neighbour from both lanes (ports 0 and 1) and receives its left
// neighbour's block on both, so both lanes write that block with nothing ordering them.
TEST(TranslationSymmetry, LaneConflictsAreFoundAtTheOrbitRepresentatives) {
  constexpr int kRanks = 8;
  ScheduleInfo info;
  info.collective = Collective::allgather;
  info.algorithm = "two-lane relay";
  info.ranks = kRanks;
  info.blocks = kRanks;
  info.ports = 2;
  std::vector<ExplicitSchedule::Lanes> lanes(kRanks);
  for (int r = 0; r < kRanks; ++r) {
    const int right = (r + 1) % kRanks;
    const int left = (r + kRanks - 1) % kRanks;
    for (int port : {0, 1}) {
      Step step;
      step.ops = {Operation::send(right, BlockSet::single(r), port),
                  Operation::recv(left, BlockSet::single(left), Combine::copy, port)};
      lanes[r].push_back({step});
    }
  }
  const ExplicitSchedule schedule(info, std::move(lanes));
  const auto report = run(schedule, true);
  ASSERT_GT(report.symmetry_order, 1) << report.symmetry;
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.violation, Violation::lane_conflict) << report.message;
  EXPECT_EQ(report.rank, 0) << report.message;  // the representative of the one orbit
}

// The group's action on block sets against a block-by-block evaluation of the same
// definition, for every element, on sets of every shape the schedules use.
TEST(TranslationSymmetry, BlockActionMatchesItsDefinition) {
  auto reverse = [](int x, int radix, int digits) {
    int out = 0;
    for (int i = 0; i < digits; ++i, x /= radix) out = out * radix + x % radix;
    return out;
  };
  struct Form {
    TranslationGroup group;
    int per_rank;
    int radix;
    int digits;
    detail::BlockLayout layout;
  };
  using detail::BlockLayout;
  const std::vector<Form> forms = {
      {TranslationGroup::torus({12}, {1}), 2, 0, 0, BlockLayout::owner_major},
      {TranslationGroup::torus({4, 3}, {1, 1}), 1, 0, 0, BlockLayout::owner_major},
      {TranslationGroup::torus({9}, {1}, BlockLayout::copy_major), 2, 0, 0,
       BlockLayout::copy_major},
      {TranslationGroup::torus({27}, {1}, BlockLayout::copy_major_reversed, 3), 1, 3, 3,
       BlockLayout::copy_major_reversed},
      {TranslationGroup::hypercube(4, ~0U, BlockLayout::copy_major_reversed), 2, 2, 4,
       BlockLayout::copy_major_reversed},
      {TranslationGroup::hypercube(4, ~0U), 1, 0, 0, BlockLayout::owner_major},
  };
  for (const Form& f : forms) {
    const int p = f.group.ranks();
    const int blocks = p * f.per_rank;
    auto image = [&](int g, int b) {
      if (f.layout == BlockLayout::owner_major)
        return f.group.act(g, b / f.per_rank) * f.per_rank + b % f.per_rank;
      const int copy = b / p, o = b % p;
      const int owner = f.layout == BlockLayout::copy_major ? o : reverse(o, f.radix, f.digits);
      const int moved = f.group.act(g, owner);
      return copy * p +
             (f.layout == BlockLayout::copy_major ? moved : reverse(moved, f.radix, f.digits));
    };
    for (int g = 0; g < p; ++g)
      for (int b0 = 0; b0 < blocks; ++b0)
        for (int b1 = b0 + 1; b1 <= blocks; b1 += 1 + (b1 % 3)) {
          BlockSet expected;
          for (int b = b0; b < b1; ++b) expected.add(static_cast<BlockIndex>(image(g, b)));
          expected.normalize();
          EXPECT_EQ(f.group.act(g, BlockSet::range(b0, b1), f.per_rank), expected)
              << f.group.describe() << " g=" << g << " [" << b0 << "," << b1 << ")";
        }
  }
}

// The relabelled layout (Schedule::block_ranks) against the same definition, block by block:
// position o of copy c moves to where the translate of its rank sits, for every element of
// the groups the proof finds for Swing's labels and Bine's sigma order on a ring of 16.
TEST(TranslationSymmetry, RelabelledBlockActionMatchesItsDefinition) {
  for (const std::string name : {"swing-bw", "bine-bw"}) {
    const auto s = build(name, Collective::allreduce, {16});
    const std::vector<int> ranks_of = s->block_ranks();
    ASSERT_EQ(ranks_of.size(), static_cast<std::size_t>(s->info().blocks)) << name;
    const auto group = TranslationGroup::torus({16}, {2}).with_block_ranks(ranks_of, 2);
    ASSERT_TRUE(group.has_value()) << name;
    const int p = 16, blocks = s->info().blocks;
    auto image = [&](int g, int b) {
      const int copy = b / p;
      const int moved = group->act(g, ranks_of[static_cast<std::size_t>(b)]);
      for (int o = 0; o < p; ++o)
        if (ranks_of[static_cast<std::size_t>(copy * p + o)] == moved) return copy * p + o;
      return -1;
    };
    for (int g = 0; g < p; g += 2) {
      ASSERT_TRUE(group->keeps_aligned_runs(g)) << name << " g=" << g;
      for (int b0 = 0; b0 < blocks; ++b0)
        for (int b1 = b0 + 1; b1 <= blocks; ++b1) {
          BlockSet expected;
          for (int b = b0; b < b1; ++b) expected.add(static_cast<BlockIndex>(image(g, b)));
          expected.normalize();
          EXPECT_EQ(group->act(g, BlockSet::range(b0, b1), 1), expected)
              << name << " g=" << g << " [" << b0 << "," << b1 << ")";
        }
    }
  }
}

// The residue-grouped layout against the same definition, block by block, for every
// translation of the rings on which Trivance groups its allreduce blocks by residue mod 3 and 9.
TEST(TranslationSymmetry, ResidueGroupedBlockActionMatchesItsDefinition) {
  for (const int p : {27, 81}) {
    const auto s = build("trivance-bw", Collective::allreduce, {p});
    const std::vector<int> ranks_of = s->block_ranks();
    ASSERT_EQ(ranks_of.size(), static_cast<std::size_t>(p));
    const auto group = TranslationGroup::torus({p}, {1}).with_residue_groups(ranks_of);
    ASSERT_TRUE(group.has_value()) << p;
    EXPECT_NE(group->describe().find("residue modulo " + std::to_string(p == 27 ? 3 : 9)),
              std::string::npos)
        << group->describe();
    std::vector<int> position_of(static_cast<std::size_t>(p));
    for (int o = 0; o < p; ++o) position_of[static_cast<std::size_t>(ranks_of[o])] = o;
    for (int g = 0; g < p; ++g)
      for (int b0 = 0; b0 < p; ++b0)
        for (int b1 = b0 + 1; b1 <= p; ++b1) {
          BlockSet expected;
          for (int b = b0; b < b1; ++b)
            expected.add(static_cast<BlockIndex>(
                position_of[static_cast<std::size_t>(group->act(g, ranks_of[b]))]));
          expected.normalize();
          EXPECT_EQ(group->act(g, BlockSet::range(b0, b1), 1), expected)
              << p << " g=" << g << " [" << b0 << "," << b1 << ")";
        }
  }
}

// Orders that are not residue groups build no such group: a swap inside one group, groups of
// unequal length, groups of one block (any order would fit), and a hypercube.
TEST(TranslationSymmetry, OnlyResidueGroupsBuildTheRotatedLayout) {
  const auto s = build("trivance-bw", Collective::allreduce, {27});
  std::vector<int> swapped = s->block_ranks();
  std::swap(swapped[1], swapped[2]);
  EXPECT_FALSE(TranslationGroup::torus({27}, {1}).with_residue_groups(swapped).has_value());
  std::vector<int> uneven = {0, 2, 4, 6, 1, 3, 5};  // residues mod 2 of 7 ranks: 4 and 3
  EXPECT_FALSE(TranslationGroup::torus({7}, {1}).with_residue_groups(uneven).has_value());
  std::vector<int> singles = {3, 1, 2, 0};
  EXPECT_FALSE(TranslationGroup::torus({4}, {1}).with_residue_groups(singles).has_value());
  std::vector<int> even = {0, 2, 4, 6, 1, 3, 5, 7};
  EXPECT_TRUE(TranslationGroup::torus({8}, {1}).with_residue_groups(even).has_value());
  EXPECT_FALSE(TranslationGroup::hypercube(3, ~0U).with_residue_groups(even).has_value());
}

// A schedule whose block_ranks lies (here: Swing's order shuffled) is not verified on fewer
// blocks: the moves of its order break aligned runs, so no group is built on it, and the
// run checks every block.
class ShuffledOrder final : public Schedule {
 public:
  explicit ShuffledOrder(SchedulePtr inner) : Schedule(inner->info()), inner_(std::move(inner)) {}
  [[nodiscard]] int lane_count(int rank) const override { return inner_->lane_count(rank); }
  [[nodiscard]] int lane_step_count(int rank, int lane) const override {
    return inner_->lane_step_count(rank, lane);
  }
  void build_lane_step(int rank, int lane, int step, Step& out) const override {
    inner_->build_lane_step(rank, lane, step, out);
  }
  [[nodiscard]] int step_count(int rank) const override { return inner_->step_count(rank); }
  void build_step(int rank, int step, Step& out) const override {
    inner_->build_step(rank, step, out);
  }
  [[nodiscard]] std::vector<int> block_ranks() const override {
    std::vector<int> out = inner_->block_ranks();
    const std::size_t p = static_cast<std::size_t>(ranks());
    for (std::size_t base = 0; base < out.size(); base += p)  // a fixed shuffle per copy
      for (std::size_t o = 0; o < p; ++o) std::swap(out[base + o], out[base + (o * 7 + 3) % p]);
    return out;
  }

 private:
  SchedulePtr inner_;
};

TEST(TranslationSymmetry, AWrongBlockOrderFallsBackToEveryBlock) {
  const ShuffledOrder s(build("swing-bw", Collective::allreduce, {16}));
  const auto group = TranslationGroup::torus({16}, {2}).with_block_ranks(s.block_ranks(), 2);
  ASSERT_TRUE(group.has_value());
  EXPECT_FALSE(group->keeps_aligned_runs(2));
  const auto report = run(s, true);
  EXPECT_TRUE(report.ok) << report.message;
  EXPECT_EQ(report.symmetry_order, 1) << report.symmetry;
  EXPECT_EQ(report.checked_slots, static_cast<std::uint64_t>(s.info().total_slots()));
}

// Without symmetry (or outside the collectives that commute with translations), the run
// checks every block and says why.
TEST(TranslationSymmetry, OtherwiseEveryBlockAndTheReason) {
  const auto bruck = build("bruck-bw", Collective::allreduce, {16});
  const auto report = run(*bruck, true);
  EXPECT_TRUE(report.ok) << report.message;
  EXPECT_EQ(report.symmetry_order, 1);
  EXPECT_EQ(report.checked_slots, static_cast<std::uint64_t>(bruck->info().total_slots()));
  EXPECT_EQ(report.symmetry.rfind("no translation symmetry (", 0), 0U) << report.symmetry;
  VerifyOptions ordered;
  ordered.mode = VerifyMode::fingerprint;
  ordered.commutative = false;
  const auto ring = build("ring", Collective::allreduce, {8});
  EXPECT_NE(verify(*ring, ordered).symmetry.find("non-commutative"), std::string::npos);
}

}  // namespace
}  // namespace topocoll
