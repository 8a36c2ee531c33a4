#include "core/block_set.hpp"

#include <algorithm>
#include <span>
#include <sstream>

namespace topocoll {

BlockSet BlockSet::range(BlockIndex begin, BlockIndex end) {
  BlockSet set;
  set.add(begin, end);
  return set;
}

void BlockSet::add(BlockIndex begin, BlockIndex end) {
  if (begin >= end) return;
  if (!ranges_.empty() && ranges_.back().end == begin) {
    ranges_.back().end = end;
    return;
  }
  ranges_.push_back({begin, end});
}

void BlockSet::shift(BlockIndex by) {
  std::size_t kept = 0;
  for (const BlockRange& r : ranges_) {
    if (r.begin >= r.end) continue;
    if (kept > 0 && ranges_[kept - 1].end == r.begin + by) {
      ranges_[kept - 1].end = r.end + by;
      continue;
    }
    ranges_[kept++] = {r.begin + by, r.end + by};
  }
  ranges_.resize(kept);
}

void BlockSet::add(const BlockSet& other) {
  for (const auto& r : other.ranges_) add(r.begin, r.end);
}

void sort_and_merge(std::vector<BlockRange>& ranges) {
  std::sort(ranges.begin(), ranges.end(),
            [](const BlockRange& a, const BlockRange& b) { return a.begin < b.begin; });
  std::size_t kept = 0;
  for (const auto& r : ranges) {
    if (kept > 0 && r.begin <= ranges[kept - 1].end)
      ranges[kept - 1].end = std::max(ranges[kept - 1].end, r.end);
    else
      ranges[kept++] = r;
  }
  ranges.resize(kept);
}

void BlockSet::normalize() {
  if (!is_normalized()) sort_and_merge(ranges_);
}

bool BlockSet::is_normalized() const {
  for (std::size_t i = 1; i < ranges_.size(); ++i) {
    if (ranges_[i].begin <= ranges_[i - 1].end) return false;
  }
  return true;
}

std::uint64_t BlockSet::block_count() const {
  std::uint64_t n = 0;
  for (const auto& r : ranges_) n += r.size();
  return n;
}

bool BlockSet::contains(BlockIndex block) const {
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), block,
                             [](BlockIndex b, const BlockRange& r) { return b < r.end; });
  return it != ranges_.end() && it->begin <= block;
}

BlockSet BlockSet::clipped(BlockIndex begin, BlockIndex end) const {
  BlockSet out;
  for (const auto& r : ranges_) {
    const BlockRange part = r.clipped(begin, end);
    out.add(part.begin, part.end);
  }
  return out;
}

namespace {

// The ranges of `sorted` (sorted, disjoint) that overlap `r`, searched from index `first`, which
// moves past those that end before `r`: a sweep over ranges in order visits each range once.
std::span<const BlockRange> overlapping(const std::vector<BlockRange>& sorted, const BlockRange& r,
                                        std::size_t& first) {
  while (first < sorted.size() && sorted[first].end <= r.begin) ++first;
  std::size_t last = first;
  while (last < sorted.size() && sorted[last].begin < r.end) ++last;
  return {sorted.data() + first, last - first};
}

}  // namespace

BlockSet BlockSet::intersected(const BlockSet& other) const {
  BlockSet out;
  std::size_t first = 0;
  for (const BlockRange& r : ranges_)
    for (const BlockRange& theirs : overlapping(other.ranges_, r, first)) {
      const BlockRange part = theirs.clipped(r.begin, r.end);
      out.add(part.begin, part.end);
    }
  return out;
}

BlockSet BlockSet::without(const BlockSet& other) const {
  BlockSet out;
  std::size_t first = 0;
  for (const BlockRange& r : ranges_) {
    BlockIndex from = r.begin;
    for (const BlockRange& theirs : overlapping(other.ranges_, r, first)) {
      if (theirs.begin > from) out.add(from, theirs.begin);
      from = std::max(from, theirs.end);
    }
    if (from < r.end) out.add(from, r.end);
  }
  return out;
}

std::vector<BlockIndex> BlockSet::to_vector() const {
  std::vector<BlockIndex> out;
  for (const auto& r : ranges_)
    for (BlockIndex b = r.begin; b < r.end; ++b) out.push_back(b);
  return out;
}

std::string BlockSet::to_string() const {
  std::ostringstream os;
  os << '{';
  for (std::size_t i = 0; i < ranges_.size(); ++i) {
    if (i) os << ',';
    const auto& r = ranges_[i];
    if (r.size() == 1) {
      os << r.begin;
    } else {
      os << r.begin << '-' << (r.end - 1);
    }
  }
  os << '}';
  return os.str();
}

}  // namespace topocoll
