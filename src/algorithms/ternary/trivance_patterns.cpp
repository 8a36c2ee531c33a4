// Reduce-scatter ring patterns of Trivance and Bruck (trivance.txt sections 2.4, 4.1, 4.3, 4.4) and
// the block layout that keeps their messages few ranges; the whole-vector variants are in
// trivance_latency.cpp.
#include "algorithms/ternary/trivance_patterns.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <optional>
#include <utility>

#include "algorithms/ternary/trivance_last_step.hpp"
#include "core/rank_math.hpp"

namespace topocoll::algorithms {
namespace {

// Appends origin + v (mod n) for every v in [lo, hi] with v = residue (mod modulus), hi - lo < n,
// as at most two progressions (split where they wrap around the ring).
void append_progression(int n, long long origin, long long lo, long long hi, long long residue,
                        long long modulus, std::vector<Progression>& out) {
  const long long v0 = lo + mod(residue - lo, modulus);
  if (v0 > hi) return;
  const long long count = (hi - v0) / modulus + 1;
  const long long d0 = mod(origin + v0, n);
  const long long before_wrap = std::min(count, (n - d0 + modulus - 1) / modulus);
  out.push_back({d0, before_wrap, modulus});
  if (before_wrap < count)
    out.push_back({d0 + before_wrap * modulus - n, count - before_wrap, modulus});
}

// Trivance reduce-scatter on a ring of any size n (sections 4.1, 4.3, 4.4).
//
// Source r's contribution to block d moves by the balanced-ternary digits of an offset v, the
// digit k at step k (distance 3^k, left for -1, right for +1), so partial sums meet on the way.
// For n = 3^s the s steps cover every offset in [-(n-1)/2, (n-1)/2] (Lemma 4.2), the last one
// from distance 3^(s-1). Other n end with section 4.4's short step: the ranks at distance
// ceil(M/2) and floor(M/2) (M = n - 3^(s-1)) send the rest; which offsets each of the three
// roots reduces is in trivance_last_step.cpp. Every rank sends one block per side in the last
// step, as section 4.4 says.
class TrivanceRing final : public RingPattern {
 public:
  explicit TrivanceRing(int n) : n_(n), s_(ceil_log(n, 3)) {
    if (n_ < 2) return;
    TrivanceLastStep last = trivance_last_step(n_);
    a_ = last.right;
    b_ = last.left;
    regions_ = std::move(last.regions);
  }

  [[nodiscard]] int size() const override { return n_; }
  [[nodiscard]] int steps() const override { return s_; }

  [[nodiscard]] long long offset(int k, int port) const override {
    if (k < s_ - 1) return port == 0 ? pow3(k) : -pow3(k);
    return port == 0 ? a_ : -b_;
  }

  void sends(int q, int k, int port, std::vector<Progression>& out) const override {
    out.clear();
    if (k == s_ - 1) {  // only the roots of the two outer regions are left
      if (port == 0) out.push_back({mod(q + a_, n_), 1, 1});
      if (port == 1 && b_ > 0) out.push_back({mod(q - b_, n_), 1, 1});
      return;
    }
    const long long step = pow3(k);
    for (const TrivanceRegion& g : regions_)
      append_progression(n_, q + g.base, g.lo, g.hi, port == 0 ? step : -step, 3 * step, out);
  }

  void held(int q, int k, std::vector<Progression>& out) const override {
    out.clear();
    if (k >= s_) {
      out.push_back({q, 1, 1});
      return;
    }
    for (const TrivanceRegion& g : regions_)
      append_progression(n_, q + g.base, g.lo, g.hi, 0, pow3(k), out);
  }

 private:
  int n_;
  int s_;
  long long a_ = 0, b_ = 0;
  std::vector<TrivanceRegion> regions_;  // block d = q + base + v; every d - q once
};

// Bruck's concatenation pattern used as a reduce-scatter (section 2.4): at step k rank q sends
// to q + j * 3^k (port j - 1) the blocks at distance h with lowest ternary digit j at position
// k, h < n. Every partial sum at q for block d holds the contributions whose distance agrees with
// d - q above digit k, q's own included, so any n works.
class BruckRing final : public RingPattern {
 public:
  explicit BruckRing(int n) : n_(n), s_(ceil_log(n, 3)) {}

  [[nodiscard]] int size() const override { return n_; }
  [[nodiscard]] int steps() const override { return s_; }
  [[nodiscard]] long long offset(int k, int port) const override { return (port + 1) * pow3(k); }

  void sends(int q, int k, int port, std::vector<Progression>& out) const override {
    out.clear();
    const long long step = pow3(k);
    append_progression(n_, q, (port + 1) * step, n_ - 1, (port + 1) * step, 3 * step, out);
  }

  void held(int q, int k, std::vector<Progression>& out) const override {
    out.clear();
    append_progression(n_, q, 0, n_ - 1, 0, pow3(k), out);
  }

 private:
  int n_;
  int s_;
};

}  // namespace

RingLayout::RingLayout(int n, int t) : n_(n), modulus_(1) {
  for (int i = 0; i < t && modulus_ * 3 <= n; ++i) modulus_ *= 3;
  start_.assign(static_cast<std::size_t>(modulus_), 0);
  long long next = 0;
  for (long long group = 0; group < modulus_; ++group) {
    long long r = 0;  // the residue whose reversed ternary digits are `group`
    for (long long g = group, m = modulus_; m > 1; g /= 3, m /= 3) r = 3 * r + g % 3;
    start_[r] = next;
    next += (n_ - 1 - r) / modulus_ + 1;
  }
}

int RingLayout::balanced_digits(int n) { return ceil_log(n, 3) / 2; }

long long RingLayout::position(long long d) const { return start_[d % modulus_] + d / modulus_; }

std::vector<int> RingLayout::coordinates() const {
  std::vector<int> out(static_cast<std::size_t>(n_));
  for (long long d = 0; d < n_; ++d)
    out[static_cast<std::size_t>(position(d))] = static_cast<int>(d);
  return out;
}

void RingLayout::append(const Progression& p, std::vector<BlockRange>& out) const {
  auto add = [&out](long long begin, long long length) {
    out.push_back({static_cast<BlockIndex>(begin), static_cast<BlockIndex>(begin + length)});
  };
  if (modulus_ % p.stride == 0) {  // each residue met is a run of consecutive positions
    const long long period = modulus_ / p.stride;
    for (long long j = 0; j < std::min(p.count, period); ++j)
      add(position(p.first + j * p.stride), (p.count - 1 - j) / period + 1);
    return;
  }
  const long long first = position(p.first), step = position(p.first + p.stride) - first;
  for (long long i = 0; i < p.count; ++i) add(first + i * step, 1);
}

void RingLayout::positions(const std::vector<Progression>& pieces,
                           std::vector<BlockRange>& out) const {
  out.clear();
  for (const Progression& p : pieces)
    if (p.count > 0) append(p, out);
  // Touching ranges merged too: a torus schedule repeats these lists once per position of its
  // slower dimensions, so every range saved here is saved many times over.
  sort_and_merge(out);
}

std::shared_ptr<const RingPattern> trivance_ring(int n) {
  return std::make_shared<TrivanceRing>(n);
}
std::shared_ptr<const RingPattern> bruck_ring(int n) { return std::make_shared<BruckRing>(n); }

}  // namespace topocoll::algorithms
