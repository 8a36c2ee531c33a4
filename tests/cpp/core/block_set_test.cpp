#include "core/block_set.hpp"

#include <gtest/gtest.h>

namespace topocoll {

TEST(BlockSet, AddMergesAdjacentRanges) {
  BlockSet s;
  s.add(0, 2);
  s.add(2, 5);
  s.add(7);
  ASSERT_EQ(s.range_count(), 2u);
  EXPECT_EQ(s.block_count(), 6u);
  EXPECT_TRUE(s.contains(4));
  EXPECT_FALSE(s.contains(5));
  EXPECT_TRUE(s.contains(7));
  EXPECT_EQ(s.to_string(), "{0-4,7}");
}

TEST(BlockSet, NormalizeSortsAndMergesOverlaps) {
  BlockSet s;
  s.add(8, 10);
  s.add(1, 3);
  s.add(2, 4);
  s.normalize();
  EXPECT_EQ(s.to_vector(), (std::vector<BlockIndex>{1, 2, 3, 8, 9}));
  EXPECT_EQ(s.range_count(), 2u);
}

// Touching ranges merge as overlapping ones do, and a range inside another disappears.
TEST(BlockSet, SortAndMergeJoinsTouchingRanges) {
  std::vector<BlockRange> ranges{{6, 7}, {0, 2}, {2, 3}, {5, 6}, {9, 12}, {10, 11}};
  sort_and_merge(ranges);
  EXPECT_EQ(ranges, (std::vector<BlockRange>{{0, 3}, {5, 7}, {9, 12}}));
}

// A range's window part: the overlap, or an empty range when there is none (never a
// wrapped-around size, BlockIndex being unsigned).
TEST(BlockRange, ClippedIsTheOverlapOrEmpty) {
  const BlockRange r{4, 10};
  EXPECT_EQ(r.clipped(0, 6), (BlockRange{4, 6}));
  EXPECT_EQ(r.clipped(6, 20), (BlockRange{6, 10}));
  EXPECT_EQ(r.clipped(5, 7), (BlockRange{5, 7}));
  EXPECT_EQ(r.clipped(10, 12).size(), 0u);
  EXPECT_EQ(r.clipped(0, 3).size(), 0u);
}

// A shift keeps the ranges' order and merges neighbours that touch, as add() does.
TEST(BlockSet, ShiftMovesRangesAndMergesTouchingOnes) {
  BlockSet s;
  s.add(4, 6);
  s.add(1, 2);  // out of order: kept where it is
  s.add(2, 3);  // touches its predecessor: add() merged it
  s.shift(10);
  EXPECT_EQ(s.ranges(), (std::vector<BlockRange>{{14, 16}, {11, 13}}));
  BlockSet empty;
  empty.shift(3);
  EXPECT_TRUE(empty.empty());
}

TEST(BlockSet, ClippedKeepsOnlyTheWindow) {
  BlockSet s;
  s.add(0, 4);
  s.add(6, 9);
  EXPECT_EQ(s.clipped(2, 7).to_vector(), (std::vector<BlockIndex>{2, 3, 6}));
  EXPECT_TRUE(s.clipped(4, 6).empty());
}

TEST(BlockSet, IntersectedAndWithoutSplitRangesWhereTheyOverlap) {
  BlockSet a;  // {0..3, 6..8, 12}
  a.add(0, 4);
  a.add(6, 9);
  a.add(12);
  BlockSet b;  // {2..6, 8..12}
  b.add(2, 7);
  b.add(8, 13);
  EXPECT_EQ(a.intersected(b).to_vector(), (std::vector<BlockIndex>{2, 3, 6, 8, 12}));
  EXPECT_EQ(a.without(b).to_vector(), (std::vector<BlockIndex>{0, 1, 7}));
  EXPECT_EQ(b.without(a).to_vector(), (std::vector<BlockIndex>{4, 5, 9, 10, 11}));
  EXPECT_TRUE(a.intersected(BlockSet{}).empty());
  EXPECT_EQ(a.without(BlockSet{}), a);
  EXPECT_TRUE(a.without(BlockSet::range(0, 20)).empty());
}

}  // namespace topocoll
