#include "algorithms/swing/swing_lines.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/rank_math.hpp"

namespace topocoll::algorithms::swing {
namespace {

// {(x + dir * v) mod m : v in base}, as sorted ranges, in O(ranges). The values that wrap
// around m form one ascending run and the others another, so no sorting is needed.
BlockSet place(const std::vector<BlockRange>& base, int m, int x, int dir) {
  std::vector<BlockRange> low, high;  // images below x (or <= x), images above
  const long long n = m;
  auto emit = [&](long long lo, long long hi) {  // an image range, possibly across 0 or m
    if (lo < 0 && hi <= 0) return high.push_back({BlockIndex(lo + n), BlockIndex(hi + n)});
    if (lo >= n) return low.push_back({BlockIndex(lo - n), BlockIndex(hi - n)});
    if (lo < 0) {
      high.push_back({BlockIndex(lo + n), BlockIndex(n)});
      return low.push_back({0, BlockIndex(hi)});
    }
    if (hi > n) {
      low.push_back({0, BlockIndex(hi - n)});
      return high.push_back({BlockIndex(lo), BlockIndex(n)});
    }
    (dir > 0 ? high : low).push_back({BlockIndex(lo), BlockIndex(hi)});
  };
  const long long at = x;
  if (dir > 0) {
    for (const BlockRange& r : base) emit(at + r.begin, at + r.end);
  } else {
    for (auto r = base.rbegin(); r != base.rend(); ++r) emit(at - r->end + 1, at - r->begin + 1);
  }
  BlockSet out;
  for (const BlockRange& r : low) out.add(r.begin, r.end);
  for (const BlockRange& r : high) out.add(r.begin, r.end);
  return out;
}

// Appends block b to sorted ranges, extending the last one when adjacent.
void push_block(std::vector<BlockRange>& out, BlockIndex b) {
  if (!out.empty() && out.back().end == b) {
    ++out.back().end;
  } else {
    out.push_back({b, b + 1});
  }
}

// Sorted ranges of two sorted, disjoint range lists, touching ranges joined: linear in the
// ranges, where a scan of every member would cost the butterfly's size at every step.
std::vector<BlockRange> disjoint_union(const std::vector<BlockRange>& a,
                                       const std::vector<BlockRange>& b) {
  std::vector<BlockRange> sorted;
  sorted.reserve(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(sorted),
             [](const BlockRange& x, const BlockRange& y) { return x.begin < y.begin; });
  std::vector<BlockRange> out;
  out.reserve(sorted.size());
  for (const BlockRange& r : sorted) {
    if (!out.empty() && out.back().end == r.begin) {
      out.back().end = r.end;
    } else {
      out.push_back(r);
    }
  }
  return out;
}

}  // namespace

long long rho(int step) {
  long long sum = 0, term = 1;
  for (int i = 0; i <= step; ++i, term *= -2) sum += term;
  return sum;
}

int direction(int x, bool mirrored) { return (x % 2 == 0) != mirrored ? 1 : -1; }

int peer(int x, int step, int m, bool mirrored) {
  return mod(x + direction(x, mirrored) * rho(step), m);
}

std::uint32_t label(int x, int m, bool mirrored) {
  const int steps = ceil_log(m, 2);
  const int y = mirrored ? mod(-static_cast<long long>(x), m) : x;
  long long v = y % 2 == 1 ? y : mod(-static_cast<long long>(y), m);
  // The L-digit negabinary numbers are the m consecutive integers ending at the largest one.
  long long largest = 0;
  for (int i = 0; i < steps; i += 2) largest += 1LL << i;
  if (v > largest) v -= m;
  constexpr std::uint64_t kOddDigits = 0xAAAAAAAAAAAAAAAAULL;
  const std::uint64_t negabinary = (static_cast<std::uint64_t>(v) + kOddDigits) ^ kOddDigits;
  const std::uint64_t changes = negabinary ^ (negabinary >> 1);
  std::uint32_t out = 0;
  for (int s = 0; s < steps; ++s)
    if ((changes >> s) & 1) out |= 1U << (steps - 1 - s);
  return out;
}

Butterfly::Butterfly(int m) : m_(m), steps_(ceil_log(m, 2)) {
  if (m < 2 || m % 2 != 0) throw std::logic_error("swing butterfly needs an even size");
  offsets_.resize(steps_ + 1);
  deltas_.resize(steps_);
  std::vector<char> member(m, 0);
  std::vector<int> elements{0};
  member[0] = 1;
  offsets_[steps_] = {{0, 1}};
  // R(x, s) = R(x, s+1) u R(pi(x, s), s+1): the offsets grow by rho(s) - O(s+1), minus what
  // is already there (that part is what the peer keeps as well, so it is not sent).
  for (int s = steps_ - 1; s >= 0; --s) {
    std::vector<int> fresh;
    for (int o : elements) {
      const int v = mod(rho(s) - o, m);
      if (!member[v]) fresh.push_back(v);
    }
    for (int v : fresh) member[v] = 1;
    elements.insert(elements.end(), fresh.begin(), fresh.end());
    std::sort(fresh.begin(), fresh.end());
    for (int v : fresh) push_block(deltas_[s], static_cast<BlockIndex>(v));
    offsets_[s] = disjoint_union(offsets_[s + 1], deltas_[s]);
  }
  // Appendix A proves that every node reaches every other one; keep the claim checked.
  if (static_cast<int>(elements.size()) != m)
    throw std::logic_error("swing butterfly on " + std::to_string(m) + " nodes misses nodes");
}

BlockSet Butterfly::reach(int x, int step, bool mirrored) const {
  return place(offsets_[step], m_, x, direction(x, mirrored));
}

BlockSet Butterfly::sent(int x, int step, bool mirrored) const {
  return place(deltas_[step], m_, x, direction(x, mirrored));
}

BandwidthLine::BandwidthLine(int size, bool mirrored, bool standalone,
                             std::shared_ptr<const Butterfly> inner)
    : size_(size),
      mirrored_(mirrored),
      standalone_(standalone),
      extra_(size >= 3 && size % 2 == 1),
      inner_(std::move(inner)) {
  if (size > 1 && (!inner_ || inner_->size() != (extra_ ? size - 1 : size)))
    throw std::logic_error("BandwidthLine: butterfly of the wrong size");
  if (extra_) {
    w_ = size - 2;
    u_ = peer(w_, 0, size - 1, mirrored);
  }
}

int BandwidthLine::steps() const {
  if (size_ == 1) return 0;
  return inner_steps() + (extra_ && standalone_ ? 1 : 0);
}

BlockSet BandwidthLine::ext(BlockSet coords) const {
  const auto m = static_cast<BlockIndex>(size_ - 1);
  if (!extra_ || coords.empty() || coords.ranges().back().end != m) return coords;
  coords.add(m, m + 1);
  return coords;
}

BlockSet BandwidthLine::held(int x, int step) const {
  if (size_ == 1) return BlockSet::single(0);
  const int extra = size_ - 1;
  if (extra_ && x == extra) {
    if (step == 0) return BlockSet::range(0, static_cast<BlockIndex>(size_));
    if (step > inner_steps()) return BlockSet::single(static_cast<BlockIndex>(extra));
    return {};
  }
  if (step > inner_steps()) return BlockSet::single(static_cast<BlockIndex>(x));
  return reach(x, step);
}

void BandwidthLine::first_step_with_extra(int x, int sub, std::vector<LineOp>& out) const {
  const int extra = size_ - 1;
  // Sub-step 0: u -> w as usual, E -> u the blocks u keeps. Sub-step 1: w -> u as usual,
  // E -> w the blocks w keeps. Each node sends and receives at most once per sub-step.
  if (x == extra) {
    if (sub == 0) out.push_back({OpKind::send, u_, reach(u_, 1)});
    if (sub == 1) out.push_back({OpKind::send, w_, sent(u_, 0)});
    return;
  }
  if (x == u_) {
    if (sub == 0) {
      out.push_back({OpKind::send, w_, sent(u_, 0)});
      out.push_back({OpKind::recv, extra, reach(u_, 1)});
    } else {
      out.push_back({OpKind::recv, w_, sent(w_, 0)});
    }
    return;
  }
  if (sub == 0) {
    out.push_back({OpKind::recv, u_, sent(u_, 0)});
  } else {
    out.push_back({OpKind::send, u_, sent(w_, 0)});
    out.push_back({OpKind::recv, extra, sent(u_, 0)});
  }
}

void BandwidthLine::ops(int x, int step, int sub, std::vector<LineOp>& out) const {
  const int extra = size_ - 1;
  if (extra_ && step == inner_steps()) {  // standalone odd line: block E goes home
    if (x == extra - 1) out.push_back({OpKind::send, extra, BlockSet::single(extra)});
    if (x == extra)
      out.push_back({OpKind::recv, extra - 1, BlockSet::single(extra), Combine::copy});
    return;
  }
  if (extra_ && step == 0 && (x == extra || x == u_ || x == w_)) {
    first_step_with_extra(x, sub, out);
    return;
  }
  if (sub != 0 || (extra_ && x == extra)) return;
  const int q = peer(x, step, inner_->size(), mirrored_);
  BlockSet mine = sent(x, step), theirs = sent(q, step);
  if (!mine.empty()) out.push_back({OpKind::send, q, std::move(mine)});
  if (!theirs.empty()) out.push_back({OpKind::recv, q, std::move(theirs)});
}

LatencyLine::LatencyLine(int size, bool mirrored)
    : size_(size),
      mirrored_(mirrored),
      core_(static_cast<int>(floor_power(size, 2))),
      extras_(size - core_),
      log_core_(ceil_log(core_, 2)) {}

int LatencyLine::steps() const { return log_core_ + (extras_ > 0 ? 2 : 0); }

BlockSet LatencyLine::held(int x, int step) const {
  if (folded_out(x) && step > 0 && step < steps()) return {};
  return BlockSet::single(0);
}

void LatencyLine::ops(int x, int step, int, std::vector<LineOp>& out) const {
  const BlockSet all = BlockSet::single(0);
  if (extras_ > 0 && (step == 0 || step == steps() - 1)) {
    if (x >= 2 * extras_) return;
    const bool in = step == 0;  // fold in: 2i+1 -> 2i; fold out: 2i -> 2i+1
    const bool sender = folded_out(x) == in;
    const int partner = folded_out(x) ? x - 1 : x + 1;
    if (sender) {
      out.push_back({OpKind::send, partner, all});
    } else {
      out.push_back({OpKind::recv, partner, all, in ? Combine::reduce : Combine::copy});
    }
    return;
  }
  if (folded_out(x)) return;
  const int s = step - (extras_ > 0 ? 1 : 0);
  const int q = from_virtual(peer(to_virtual(x), s, core_, mirrored_));
  out.push_back({OpKind::send, q, all});
  out.push_back({OpKind::recv, q, all});
}

}  // namespace topocoll::algorithms::swing
