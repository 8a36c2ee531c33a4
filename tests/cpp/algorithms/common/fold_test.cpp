#include "algorithms/common/fold.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/registry.hpp"
#include "core/verifier/verifier.hpp"

namespace topocoll::algorithms {
namespace {

ScheduleRequest request(Collective c, int p, int ports = 1, bool commutative = true) {
  ScheduleRequest r;
  r.collective = c;
  r.ranks = p;
  r.dims = {p};
  r.ports = ports;
  r.commutative = commutative;
  return r;
}

ScheduleBuilder from_registry(const std::string& name) {
  return [name](const ScheduleRequest& r) { return registry().build(name, r); };
}

TEST(FoldLayout, MapsRanksBothWays) {
  const FoldLayout layout(7, 4, 0);  // 3 pairs: (0,1) (2,3) (4,5); 6 alone
  EXPECT_EQ(layout.pairs(), 3);
  const int outer[] = {0, 2, 4, 6};
  for (int c = 0; c < 4; ++c) {
    EXPECT_EQ(layout.outer_of(c), outer[c]);
    EXPECT_EQ(layout.inner_of(outer[c]), c);
  }
  for (int q : {1, 3, 5}) {
    EXPECT_EQ(layout.inner_of(q), -1);
    EXPECT_EQ(layout.partner(q), q - 1);
    EXPECT_EQ(layout.partner(q - 1), q);
  }
  EXPECT_EQ(layout.partner(6), -1);
  EXPECT_EQ(layout.group_begin(4), 7);
}

TEST(FoldLayout, MapsChunksToTheRanksTheyStandFor) {
  const FoldLayout chunked(7, 4, 2);  // S = 2: inner chunk c is outer chunks 2c, 2c+1 (c < 3)
  auto map = [&](BlockSet inner) { return chunked.outer_blocks(inner).to_string(); };
  EXPECT_EQ(map(BlockSet::range(0, 2)), "{0-3}");
  EXPECT_EQ(map(BlockSet::range(1, 2)), "{1,3}");
  EXPECT_EQ(map(BlockSet::range(6, 8)), "{12-13}");
  EXPECT_EQ(map(BlockSet::range(0, 8)), "{0-13}");
  EXPECT_EQ(map(BlockSet::range(1, 7)), "{1,3-12}");
  BlockSet two_offsets_of_one_pair;  // their images interleave in the outer space
  two_offsets_of_one_pair.add(0);
  two_offsets_of_one_pair.add(2);
  EXPECT_EQ(FoldLayout(7, 4, 3).outer_blocks(two_offsets_of_one_pair).to_string(), "{0,2-3,5}");
  BlockSet strided;
  strided.add(0);
  strided.add(5);
  EXPECT_EQ(map(strided), "{0,2,9,11}");
  const FoldLayout identity(7, 4, 0);
  EXPECT_EQ(identity.outer_blocks(BlockSet::range(1, 3)), BlockSet::range(1, 3));
}

// A non-trivial inner: the ring (one and two ports; two ports split every chunk between the
// lanes, so inner ranges cover parts of chunks), folded from every admissible P'.
TEST(FoldSchedule, FoldsTheRingFromEveryInnerSize) {
  for (Collective c : {Collective::allreduce, Collective::reduce_scatter, Collective::allgather})
    for (int ports : {1, 2})
      for (int p = 3; p <= 24; ++p)
        for (int inner = (p + 1) / 2; inner < p; ++inner) {
          if (inner < 2) continue;
          auto schedule = fold(request(c, p, ports), inner, from_registry("ring"));
          ASSERT_EQ(schedule->ranks(), p);
          const auto report = verify(*schedule);
          ASSERT_TRUE(report.ok) << collective_name(c) << " ports=" << ports << " P=" << p
                                 << " P'=" << inner << ": " << report.message;
        }
}

TEST(FoldSchedule, AddsOneStepBeforeAndAfterForPairsOnly) {
  auto schedule = fold(request(Collective::allreduce, 6, 1), 4, from_registry("ring"));
  const int inner = 2 * (4 - 1);
  EXPECT_EQ(schedule->step_count(0), inner + 2);
  EXPECT_EQ(schedule->step_count(1), 2);
  EXPECT_EQ(schedule->step_count(2), inner + 2);
  EXPECT_EQ(schedule->step_count(3), 2);
  EXPECT_EQ(schedule->step_count(4), inner);
  EXPECT_EQ(schedule->step_count(5), inner);
  const auto first = schedule->steps_of(1).front();
  ASSERT_EQ(first.ops.size(), 1u);
  EXPECT_EQ(first.ops[0].kind, OpKind::send);
  EXPECT_EQ(first.ops[0].peer, 0);
  // The inner ring's neighbours of inner rank 3 (outer 5) are inner 2 and 0: outer 4 and 0.
  const auto step = schedule->steps_of(5).front();
  EXPECT_EQ(step.ops[0].peer, 0);
  EXPECT_EQ(step.ops[1].peer, 4);
}

TEST(FoldSchedule, ChunkedCollectivesKeepMpiLayout) {
  for (Collective c : {Collective::reduce_scatter, Collective::allgather}) {
    auto schedule = fold(request(c, 11, 2), 8, from_registry("ring"));
    EXPECT_EQ(schedule->info().blocks, 11 * 2);  // the two-port ring has S = 2
    EXPECT_EQ(schedule->info().dims, std::vector<int>{11});
    EXPECT_TRUE(verify(*schedule).ok);
  }
}

// Folds nest (13 onto 7, which folds onto 4), and rank order survives both.
TEST(FoldSchedule, NestsAndKeepsRankOrder) {
  for (Collective c : {Collective::allreduce, Collective::reduce_scatter, Collective::allgather}) {
    auto schedule = fold(request(c, 13, 1, false), 7, from_registry("recdoub-bw"));
    VerifyOptions options;
    options.commutative = false;
    const auto report = verify(*schedule, options);
    EXPECT_TRUE(report.ok) << collective_name(c) << ": " << report.message;
  }
}

// An inner allreduce that receives into a scratch slot and reduces it in with a local copy:
// both pass through the fold unchanged.
SchedulePtr scratch_allreduce(const ScheduleRequest& r) {
  if (r.ranks != 2) throw UnsupportedRequest("two ranks only");
  ScheduleInfo info;
  info.collective = Collective::allreduce;
  info.algorithm = "scratch-pair";
  info.ranks = 2;
  info.blocks = 1;
  info.slots = 2;
  info.keeps_positions = false;
  std::vector<std::vector<Step>> steps(2);
  for (int rank = 0; rank < 2; ++rank) {
    Step exchange;
    exchange.ops.push_back(Operation::send(1 - rank, BlockSet::single(0)));
    exchange.ops.push_back(Operation::recv(1 - rank, BlockSet::single(1), Combine::copy));
    Step combine;
    const auto order = rank == 0 ? OperandOrder::local_first : OperandOrder::received_first;
    combine.ops.push_back(
        Operation::local_copy(BlockSet::single(1), BlockSet::single(0), Combine::reduce, order));
    steps[rank] = {exchange, combine};
  }
  return std::make_unique<ExplicitSchedule>(info, std::move(steps));
}

TEST(FoldSchedule, AllreducePassesScratchAndCopiesThrough) {
  auto schedule = fold(request(Collective::allreduce, 3, 1, false), 2, scratch_allreduce);
  EXPECT_EQ(schedule->info().total_slots(), 2);
  VerifyOptions options;
  options.commutative = false;
  const auto report = verify(*schedule, options);
  EXPECT_TRUE(report.ok) << report.message;
}

TEST(FoldSchedule, RejectsWhatItCannotFold) {
  const auto ring = from_registry("ring");
  EXPECT_THROW((void)fold(request(Collective::allreduce, 9, 1), 4, ring), UnsupportedRequest);
  EXPECT_THROW((void)fold(request(Collective::allreduce, 9, 1), 10, ring), UnsupportedRequest);
  EXPECT_THROW((void)fold(request(Collective::bcast, 9, 1), 8, ring), UnsupportedRequest);
  ScheduleRequest torus = request(Collective::allreduce, 12, 1);
  torus.dims = {3, 4};
  EXPECT_THROW((void)fold(torus, 8, ring), UnsupportedRequest);
  // Same size: no fold, the inner itself.
  auto same = fold(request(Collective::allreduce, 9, 1), 9, ring);
  EXPECT_EQ(same->step_count(0), 2 * 8);
}

TEST(FoldSchedule, ChunkedInnerMustKeepBlocksInPlace) {
  ScheduleInfo info;
  info.collective = Collective::reduce_scatter;
  info.ranks = 2;
  info.blocks = 2;
  info.slots = 3;  // a scratch slot
  std::vector<std::vector<Step>> none(2);
  EXPECT_THROW(FoldSchedule(std::make_unique<ExplicitSchedule>(info, none), 3), std::logic_error);
  // A copy from inner chunk 0 (outer chunks 0 and 1) to inner chunk 1 (outer chunk 2).
  info.slots = 0;
  std::vector<std::vector<Step>> copy(2);
  Step step;
  step.ops.push_back(Operation::local_copy(BlockSet::single(0), BlockSet::single(1)));
  copy[0] = {step};
  const FoldSchedule folded(std::make_unique<ExplicitSchedule>(info, copy), 3);
  Step out;
  EXPECT_THROW(folded.build_step(0, 1, out), std::logic_error);
}

}  // namespace
}  // namespace topocoll::algorithms
