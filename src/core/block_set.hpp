#pragma once
// Block sets: the unit of data movement in a schedule. A set is a sorted list of disjoint
// half-open ranges, so a contiguous send costs O(1) to describe and the number of ranges is
// the number of separate messages a sender must issue unless it packs.
#include <cstdint>
#include <string>
#include <vector>

namespace topocoll {

using BlockIndex = std::uint32_t;

struct BlockRange {
  BlockIndex begin = 0;
  BlockIndex end = 0;  // exclusive
  [[nodiscard]] BlockIndex size() const { return end - begin; }
  // The part inside [lo, hi); empty (size 0) when they do not overlap.
  [[nodiscard]] BlockRange clipped(BlockIndex lo, BlockIndex hi) const {
    const BlockIndex b = begin > lo ? begin : lo;
    const BlockIndex e = end < hi ? end : hi;
    return {b, e > b ? e : b};
  }
  friend bool operator==(const BlockRange&, const BlockRange&) = default;
};

// Sorts ranges by their start and merges the overlapping or touching ones, in place.
void sort_and_merge(std::vector<BlockRange>& ranges);

class BlockSet {
 public:
  BlockSet() = default;
  static BlockSet range(BlockIndex begin, BlockIndex end);
  static BlockSet single(BlockIndex block) { return range(block, block + 1); }

  // Appends a range; merges with the last one when adjacent. Ranges may arrive unsorted:
  // call normalize() afterwards in that case.
  void add(BlockIndex begin, BlockIndex end);
  void add(BlockIndex block) { add(block, block + 1); }
  void add(const BlockSet& other);
  // Sorts and merges overlapping or adjacent ranges.
  void normalize();
  // Moves every range by `by` blocks, merging touching neighbours as add() does.
  void shift(BlockIndex by);
  void clear() { ranges_.clear(); }

  [[nodiscard]] const std::vector<BlockRange>& ranges() const { return ranges_; }
  [[nodiscard]] std::size_t range_count() const { return ranges_.size(); }
  [[nodiscard]] bool empty() const { return ranges_.empty(); }
  [[nodiscard]] std::uint64_t block_count() const;
  [[nodiscard]] bool contains(BlockIndex block) const;
  [[nodiscard]] bool is_normalized() const;
  // The ranges clipped to [begin, end).
  [[nodiscard]] BlockSet clipped(BlockIndex begin, BlockIndex end) const;
  // The blocks in both sets, and those of this set not in `other` (both sets normalized).
  [[nodiscard]] BlockSet intersected(const BlockSet& other) const;
  [[nodiscard]] BlockSet without(const BlockSet& other) const;
  // Blocks in order, expanded (for small sets and tests).
  [[nodiscard]] std::vector<BlockIndex> to_vector() const;
  [[nodiscard]] std::string to_string() const;

  friend bool operator==(const BlockSet&, const BlockSet&) = default;

 private:
  std::vector<BlockRange> ranges_;
};

}  // namespace topocoll
