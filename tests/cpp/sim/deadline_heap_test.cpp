// The flow model's event queue: one pending time per id, ties in the order last set.
#include "sim/deadline_heap.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <utility>
#include <vector>

namespace topocoll::sim {
namespace {

TEST(DeadlineHeap, MovingAnIdLeavesNoStaleEntry) {
  DeadlineHeap heap;
  heap.set(3, 5.0);
  heap.set(1, 2.0);
  heap.set(3, 1.0);  // earlier
  heap.set(1, 7.0);  // later
  std::vector<int> due;
  heap.pop_until(6.0, due);
  EXPECT_EQ(due, std::vector<int>{3});
  EXPECT_TRUE(heap.contains(1));
  EXPECT_FALSE(heap.contains(3));
  EXPECT_DOUBLE_EQ(heap.next_time(), 7.0);
}

TEST(DeadlineHeap, TiesPopInTheOrderTheirTimesWereLastSet) {
  DeadlineHeap heap;
  heap.set(0, 1.0);
  heap.set(1, 1.0);
  heap.set(2, 1.0);
  heap.set(0, 1.0);  // set again: now last among the ties
  std::vector<int> due;
  heap.pop_until(1.0, due);
  EXPECT_EQ(due, (std::vector<int>{1, 2, 0}));
  EXPECT_TRUE(heap.empty());
}

TEST(DeadlineHeap, RemovingAnAbsentIdIsHarmless) {
  DeadlineHeap heap;
  heap.remove(42);
  heap.set(0, 1.0);
  heap.remove(0);
  heap.remove(0);
  EXPECT_TRUE(heap.empty());
  EXPECT_FALSE(heap.contains(42));
}

// Random sets, moves and removals against an ordered map of (time, order) -> id.
TEST(DeadlineHeap, MatchesAnOrderedReferenceUnderRandomUpdates) {
  std::mt19937 random(7);
  DeadlineHeap heap;
  std::map<std::pair<double, std::uint64_t>, int> reference;
  std::map<int, std::pair<double, std::uint64_t>> key_of;
  std::uint64_t order = 0;
  for (int round = 0; round < 20000; ++round) {
    const int id = static_cast<int>(random() % 64);
    const double time = static_cast<double>(random() % 32);  // many ties
    if (auto it = key_of.find(id); it != key_of.end()) {
      reference.erase(it->second);
      key_of.erase(it);
    }
    if (random() % 4 == 0) {
      heap.remove(id);
    } else {
      heap.set(id, time);
      key_of[id] = {time, order};
      reference[{time, order++}] = id;
    }
    if (round % 50 == 49) {
      const double end = static_cast<double>(random() % 32);
      std::vector<int> due;
      heap.pop_until(end, due);
      std::vector<int> expected;
      while (!reference.empty() && reference.begin()->first.first <= end) {
        expected.push_back(reference.begin()->second);
        key_of.erase(reference.begin()->second);
        reference.erase(reference.begin());
      }
      ASSERT_EQ(due, expected) << "round " << round;
    }
  }
}

}  // namespace
}  // namespace topocoll::sim
