// Local copies read their source either with the sends (step start) or after the step's
// receives: the second lets a rank combine what it just received before the next round.
#include <gtest/gtest.h>

#include "core/schedule_io.hpp"
#include "core/verifier/verifier.hpp"

namespace topocoll {
namespace {

// Two ranks, one block, scratch slot 1: exchange slot 0 into the peer's slot 1, then fold
// slot 1 into slot 0 in the same step.
std::unique_ptr<ExplicitSchedule> exchange_then_fold(CopyTiming timing) {
  ScheduleInfo info;
  info.collective = Collective::allreduce;
  info.algorithm = "exchange-then-fold";
  info.ranks = 2;
  info.blocks = 1;
  info.slots = 2;
  info.keeps_positions = false;
  std::vector<std::vector<Step>> steps(2, std::vector<Step>(1));
  for (int r = 0; r < 2; ++r) {
    auto& ops = steps[r][0].ops;
    ops.push_back(Operation::send(1 - r, BlockSet::single(0)));
    ops.push_back(Operation::recv(1 - r, BlockSet::single(1), Combine::copy));
    Operation fold =
        Operation::local_copy(BlockSet::single(1), BlockSet::single(0), Combine::reduce);
    fold.timing = timing;
    ops.push_back(fold);
  }
  return std::make_unique<ExplicitSchedule>(info, std::move(steps));
}

TEST(CopyTiming, AfterReceivesReadsWhatTheStepReceived) {
  for (VerifyMode mode : {VerifyMode::exact, VerifyMode::fingerprint}) {
    VerifyOptions options;
    options.mode = mode;
    const auto report = verify(*exchange_then_fold(CopyTiming::after_receives), options);
    EXPECT_TRUE(report.ok) << report.message;
  }
}

TEST(CopyTiming, StepStartReadsTheBufferBeforeTheReceives) {
  const auto report = verify(*exchange_then_fold(CopyTiming::step_start), VerifyOptions{});
  ASSERT_FALSE(report.ok);
  EXPECT_EQ(report.violation, Violation::read_undefined) << report.message;
  EXPECT_EQ(report.block, 1) << report.message;
}

TEST(CopyTiming, AfterReceivesCopiesConflictOnlyWithEachOther) {
  // The receive writes slot 1 and the fold reads it afterwards: no conflict. Two copies into
  // slot 0 after the receives are one too many.
  auto schedule = exchange_then_fold(CopyTiming::after_receives);
  auto& ops = schedule->lane_zero(0)[0].ops;
  ops.push_back(
      Operation::local_after_receives(BlockSet::single(1), BlockSet::single(0), Combine::copy));
  const auto report = verify(*schedule, VerifyOptions{});
  ASSERT_FALSE(report.ok);
  EXPECT_EQ(report.violation, Violation::write_conflict) << report.message;
}

TEST(CopyTiming, RoundTripsThroughJson) {
  const auto original = exchange_then_fold(CopyTiming::after_receives);
  const std::string text = schedule_to_json(*original);
  EXPECT_NE(text.find("\"reads\":\"after-receives\""), std::string::npos) << text;
  const auto parsed = schedule_from_json(text);
  for (int r = 0; r < 2; ++r) EXPECT_EQ(parsed->lane_zero(r)[0].ops, original->lane_zero(r)[0].ops);
  EXPECT_TRUE(verify(*parsed, VerifyOptions{}).ok);
}

}  // namespace
}  // namespace topocoll
