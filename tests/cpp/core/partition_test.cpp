#include "core/partition.hpp"

#include <gtest/gtest.h>

#include <numeric>

namespace topocoll {

TEST(BlockPartition, EarlyBlocksTakeTheRemainder) {
  BlockPartition p(10, 4);
  EXPECT_EQ(p.size(0), 3u);
  EXPECT_EQ(p.size(1), 3u);
  EXPECT_EQ(p.size(2), 2u);
  EXPECT_EQ(p.size(3), 2u);
  EXPECT_EQ(p.offset(3), 8u);
  EXPECT_EQ(p.total(), 10u);
}

TEST(BlockPartition, CountSmallerThanBlocksLeavesEmptyBlocks) {
  BlockPartition p(3, 8);
  for (BlockIndex b = 0; b < 8; ++b) EXPECT_EQ(p.size(b), b < 3 ? 1u : 0u) << b;
  EXPECT_EQ(p.elements(BlockSet::range(2, 8)), 1u);
}

TEST(BlockPartition, ZeroCountGivesOnlyEmptyBlocks) {
  BlockPartition p(0, 5);
  for (BlockIndex b = 0; b < 5; ++b) EXPECT_EQ(p.size(b), 0u);
  EXPECT_EQ(p.total(), 0u);
}

TEST(BlockPartition, ChunkedCollectivesSplitEachRanksChunk) {
  ScheduleInfo info;
  info.collective = Collective::reduce_scatter;
  info.ranks = 3;
  info.blocks = 6;            // two blocks per chunk
  BlockPartition p(info, 5);  // 5 elements per rank
  EXPECT_EQ(p.total(), 15u);
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(p.size(2 * r), 3u);
    EXPECT_EQ(p.size(2 * r + 1), 2u);
    EXPECT_EQ(p.offset(2 * r), 5u * r);
  }
}

TEST(BlockPartition, RejectsBlockCountsThatDoNotFitTheChunks) {
  ScheduleInfo info;
  info.collective = Collective::allgather;
  info.ranks = 4;
  info.blocks = 6;
  EXPECT_THROW(BlockPartition(info, 8), std::invalid_argument);
  EXPECT_THROW(BlockPartition(8, 0), std::invalid_argument);
}

}  // namespace topocoll
