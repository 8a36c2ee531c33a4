// Bytes a node peer read (sim/lent_blocks.hpp): which writes take lent blocks back, and what a
// call leaves for the next one, on the 2-rank schedules worked by hand in docs/host-costs.md.
#include "sim/lent_blocks.hpp"

#include <gtest/gtest.h>

namespace topocoll::sim {
namespace {

using Write = LentBlocks::Write;

std::vector<BlockIndex> blocks(const BlockSet& set) { return set.to_vector(); }

// Recursive doubling at 2 ranks: the input copy writes both blocks, the rank sends both and
// reduces the received ones into them. The reduction takes both back; nothing is left.
TEST(LentBlocks, AReductionIntoWhatTheStepSentTakesItBack) {
  LentBlocks lent(BlockSet::range(0, 2));
  lent.lend(BlockSet::range(0, 2));
  EXPECT_EQ(blocks(lent.write(BlockSet::range(0, 2), Write::reduce)),
            (std::vector<BlockIndex>{0, 1}));
  const LentBlocks::Settlement left = lent.settle();
  EXPECT_TRUE(left.copy.empty());
  EXPECT_TRUE(left.reduce.empty());
}

// Ring at 2 ranks, rank 0: sends block 1, reduces block 0 (not lent), sends block 0, receives
// block 1 (a landing: nothing to pay). Block 0 stays lent, and the input copy wrote it first.
TEST(LentBlocks, WhatTheCallLeavesLentIsSettledByItsFirstWrite) {
  LentBlocks lent(BlockSet::range(0, 2));
  lent.lend(BlockSet::single(1));
  EXPECT_TRUE(lent.write(BlockSet::single(0), Write::reduce).empty());
  lent.lend(BlockSet::single(0));
  EXPECT_EQ(blocks(lent.write(BlockSet::single(1), Write::landing)), (std::vector<BlockIndex>{1}));
  const LentBlocks::Settlement left = lent.settle();
  EXPECT_EQ(blocks(left.copy), (std::vector<BlockIndex>{0}));
  EXPECT_TRUE(left.reduce.empty());
}

// A block first written by a reduction (no input copy) and lent at the end is settled as a
// reduction; one first written by a received message is not settled at all.
TEST(LentBlocks, SettlementFollowsTheKindOfTheFirstWrite) {
  LentBlocks lent{BlockSet{}};
  lent.write(BlockSet::single(0), Write::reduce);
  lent.write(BlockSet::single(1), Write::landing);
  lent.write(BlockSet::single(1), Write::copy);  // not its first write
  lent.lend(BlockSet::range(0, 2));
  const LentBlocks::Settlement left = lent.settle();
  EXPECT_TRUE(left.copy.empty());
  EXPECT_EQ(blocks(left.reduce), (std::vector<BlockIndex>{0}));
}

TEST(LentBlocks, OnlyLentBlocksAreTakenBackAndOnlyOnce) {
  LentBlocks lent{BlockSet{}};
  BlockSet sent;
  sent.add(2, 4);
  sent.add(7);
  lent.lend(sent);
  EXPECT_EQ(blocks(lent.write(BlockSet::range(0, 8), Write::copy)),
            (std::vector<BlockIndex>{2, 3, 7}));
  EXPECT_TRUE(lent.write(BlockSet::range(0, 8), Write::copy).empty());
}

}  // namespace
}  // namespace topocoll::sim
