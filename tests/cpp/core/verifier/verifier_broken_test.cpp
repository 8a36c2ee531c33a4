// Deliberately broken schedules must be rejected with the right diagnosis.
#include <gtest/gtest.h>

#include "core/registry.hpp"
#include "core/verifier/verifier.hpp"

namespace topocoll {
namespace {

std::unique_ptr<ExplicitSchedule> ring_allreduce(int p) {
  ScheduleRequest request;
  request.ranks = p;
  return materialize(*registry().build("ring", request));
}

Operation* find_op(ExplicitSchedule& s, int rank, int step, OpKind kind) {
  for (auto& op : s.lane_zero(rank)[step].ops)
    if (op.kind == kind) return &op;
  return nullptr;
}

class BrokenSchedules : public ::testing::TestWithParam<VerifyMode> {
 protected:
  VerifyReport run(const Schedule& s) {
    VerifyOptions options;
    options.mode = GetParam();
    return verify(s, options);
  }
};

TEST_P(BrokenSchedules, IntactRingPasses) { EXPECT_TRUE(run(*ring_allreduce(6)).ok); }

TEST_P(BrokenSchedules, DroppedReceiveIsReported) {
  auto s = ring_allreduce(6);
  auto& ops = s->lane_zero(3)[2].ops;
  ops.erase(std::remove_if(ops.begin(), ops.end(),
                           [](const Operation& op) { return op.kind == OpKind::recv; }),
            ops.end());
  auto report = run(*s);
  ASSERT_FALSE(report.ok);
  // Rank 2's send of step 2 now meets rank 3's receive of step 3, with other blocks.
  EXPECT_EQ(report.violation, Violation::block_mismatch) << report.message;
  EXPECT_EQ(report.rank, 3);
}

TEST_P(BrokenSchedules, DroppedLastReceiveIsUnmatched) {
  auto s = ring_allreduce(5);
  const int last = static_cast<int>(s->lane_zero(1).size()) - 1;
  auto& ops = s->lane_zero(1)[last].ops;
  ops.erase(std::remove_if(ops.begin(), ops.end(),
                           [](const Operation& op) { return op.kind == OpKind::recv; }),
            ops.end());
  auto report = run(*s);
  ASSERT_FALSE(report.ok);
  EXPECT_EQ(report.violation, Violation::unmatched) << report.message;
  EXPECT_EQ(report.rank, 0);
  EXPECT_NE(report.message.find("send to 1"), std::string::npos) << report.message;
}

TEST_P(BrokenSchedules, DoubledReductionIsCountedTwice) {
  auto s = ring_allreduce(4);
  // Rank 2 reduces the block it receives at step 1 twice.
  auto& ops = s->lane_zero(2)[1].ops;
  Operation twice = *find_op(*s, 2, 1, OpKind::recv);
  ops.push_back(Operation::local_copy(twice.blocks, twice.blocks, Combine::reduce));
  auto report = run(*s);
  ASSERT_FALSE(report.ok);
  EXPECT_EQ(report.violation, Violation::wrong_result) << report.message;
  if (GetParam() == VerifyMode::exact) {
    EXPECT_NE(report.found.find("counted 2 times"), std::string::npos) << report.found;
  } else {
    EXPECT_NE(report.found.find("5 contributions (expected 4)"), std::string::npos) << report.found;
  }
}

TEST_P(BrokenSchedules, WrongPeerIsUnmatched) {
  auto s = ring_allreduce(6);
  find_op(*s, 0, 0, OpKind::send)->peer = 3;
  auto report = run(*s);
  ASSERT_FALSE(report.ok);
  EXPECT_EQ(report.violation, Violation::unmatched) << report.message;
  EXPECT_NE(report.message.find("rank 0"), std::string::npos) << report.message;
}

TEST_P(BrokenSchedules, MismatchedBlockSetIsReported) {
  auto s = ring_allreduce(6);
  find_op(*s, 4, 1, OpKind::recv)->blocks = BlockSet::single(0);
  auto report = run(*s);
  ASSERT_FALSE(report.ok);
  EXPECT_EQ(report.violation, Violation::block_mismatch) << report.message;
  EXPECT_EQ(report.rank, 4);
  EXPECT_EQ(report.found, "{0}");
}

TEST_P(BrokenSchedules, ExtraConcurrentSendExceedsPorts) {
  auto s = ring_allreduce(4);
  s->lane_zero(1)[0].ops.push_back(Operation::send(3, BlockSet::single(1)));
  auto report = run(*s);
  ASSERT_FALSE(report.ok);
  EXPECT_EQ(report.violation, Violation::ports_exceeded) << report.message;
}

TEST_P(BrokenSchedules, TwoCopyWritersConflict) {
  auto s = ring_allreduce(4);
  const int last = static_cast<int>(s->lane_zero(0).size()) - 1;
  Operation recv = *find_op(*s, 0, last, OpKind::recv);
  s->lane_zero(0)[last].ops.push_back(Operation::local_copy(recv.blocks, recv.blocks));
  auto report = run(*s);
  ASSERT_FALSE(report.ok);
  EXPECT_EQ(report.violation, Violation::write_conflict) << report.message;
}

TEST_P(BrokenSchedules, ReadOfUnwrittenBlockIsReported) {
  ScheduleRequest request;
  request.collective = Collective::allgather;
  request.ranks = 4;
  auto s = materialize(*registry().build("ring", request));
  find_op(*s, 0, 0, OpKind::send)->blocks = BlockSet::single(2);
  find_op(*s, 1, 0, OpKind::recv)->blocks = BlockSet::single(2);
  auto report = run(*s);
  ASSERT_FALSE(report.ok);
  EXPECT_EQ(report.violation, Violation::read_undefined) << report.message;
  EXPECT_EQ(report.rank, 0);
  EXPECT_EQ(report.block, 2);
}

INSTANTIATE_TEST_SUITE_P(Modes, BrokenSchedules,
                         ::testing::Values(VerifyMode::exact, VerifyMode::fingerprint),
                         [](const auto& info) {
                           return info.param == VerifyMode::exact ? "exact" : "fingerprint";
                         });

// The commutative fingerprint counts contributions in 24 bits; beyond that it refuses and says
// why instead of reporting a wrong count. A limit is an input error, not a wrong schedule.
TEST(VerifierLimits, FingerprintNamesItsRankLimit) {
  ScheduleRequest request;
  request.ranks = (1 << 24) + 1;
  auto schedule = registry().build("recdoub-lat", request);
  VerifyOptions options;
  options.mode = VerifyMode::fingerprint;
  try {
    (void)verify(*schedule, options);
    FAIL() << "expected VerifyRequestError";
  } catch (const VerifyRequestError& e) {
    EXPECT_NE(std::string(e.what()).find("at most 16777215 ranks"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace topocoll
