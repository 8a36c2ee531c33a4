// Section 4.4 of trivance.txt: after the first s - 1 steps (distances 1, 3, ..., 3^(s-2)) a rank
// has reduced a window of W = 3^(s-1) contributions of its own block; the M = n - W missing ones
// come in the last step from the ranks at distance ceil(M/2) and floor(M/2), each of which
// reduced them, among others, in its own window.
//
// In a reduce-scatter the roots d, d - right and d + left of block d must split the ring between
// them: every rank's contribution to block d is reduced at exactly one root, along the path its
// balanced-ternary offset gives. A rank forwards one partial sum per block, so the offsets
// reduced at a root must be closed under clearing their lowest nonzero digit (the rank on the
// path one step later). The full windows of the three roots overlap, so the partition is not
// three windows: starting from root d's full window, each missing offset is given to its side's
// root together with its path, and the parts of d's window below a node it loses move to that
// root as well. The tests run every n in 2..6561: no clash, at most a few dozen intervals.
#include "algorithms/ternary/trivance_last_step.hpp"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "algorithms/ternary/trivance_patterns.hpp"
#include "core/rank_math.hpp"

namespace topocoll::algorithms {
namespace {

// The balanced-ternary digit of v (a multiple of p) at p.
int digit_at(long long v, long long p) { return static_cast<int>(mod(v / p + 1, 3)) - 1; }

// Position of the lowest nonzero balanced-ternary digit of v != 0.
int lowest_digit(long long v) {
  int k = 0;
  for (long long p = 1; digit_at(v, p) == 0; p *= 3) ++k;
  return k;
}

// v with its lowest nonzero digit cleared: the rank on v's path one step later.
long long parent(long long v) {
  const long long p = pow3(lowest_digit(v));
  return v - digit_at(v, p) * p;
}

class Partition {
 public:
  Partition(int n, int s, std::vector<long long> bases)
      : n_(n),
        s_(s),
        radius_((pow3(s - 1) - 1) / 2),
        bases_(std::move(bases)),
        owner_(static_cast<std::size_t>(n), -1),
        fixed_(static_cast<std::size_t>(n), -1) {
    for (long long v = -radius_; v <= radius_; ++v) owner_[mod(v, n_)] = 0;
  }

  // Gives position x (block offset d - rank) to root i, with everything that implies.
  void assign(long long x, int i) {
    x = mod(x, n_);
    if (fixed_[x] == i) return;
    if (fixed_[x] != -1) throw std::logic_error("trivance: two roots need position " + str(x));
    const auto v = offset(x, i);
    if (!v) throw std::logic_error("trivance: position " + str(x) + " out of a root's window");
    fixed_[x] = static_cast<std::int8_t>(i);
    const int old = owner_[x];
    owner_[x] = static_cast<std::int8_t>(i);
    if (*v != 0) assign(bases_[i] + parent(*v), i);
    if (old == -1 || old == i) return;
    // The positions below x on the old root's paths lose their way there; they follow x.
    const long long vo = *offset(x, old);
    const int below = vo == 0 ? s_ - 1 : lowest_digit(vo);
    for (int j = 0; j < below; ++j)
      for (int e : {-1, 1}) {
        const long long w = mod(x + e * pow3(j), n_);
        if (owner_[w] == old && fixed_[w] == -1 && offset(w, old) == vo + e * pow3(j)) assign(w, i);
      }
  }

  // Maximal runs of positions with one owner, as offsets from that owner.
  [[nodiscard]] std::vector<TrivanceRegion> regions() const {
    std::vector<TrivanceRegion> out;
    for (long long x = 0; x < n_;) {
      const int i = owner_[x];
      if (i < 0) throw std::logic_error("trivance: position " + str(x) + " has no root");
      const long long v = *offset(x, i);
      if (v != 0 && owner_[mod(bases_[i] + parent(v), n_)] != i)
        throw std::logic_error("trivance: the path of position " + str(x) + " leaves its root");
      long long end = x + 1;
      while (end < n_ && owner_[end] == i) ++end;
      const long long lo = *offset(x, i);
      out.push_back({bases_[i], lo, lo + (end - 1 - x)});
      x = end;
    }
    return out;
  }

 private:
  static std::string str(long long x) { return std::to_string(x); }

  // The offset v, |v| <= radius, of position x from root i, if x is in its window.
  [[nodiscard]] std::optional<long long> offset(long long x, int i) const {
    const long long v = mod(x - bases_[i], n_);
    if (v <= radius_) return v;
    if (v - n_ >= -radius_) return v - n_;
    return std::nullopt;
  }

  long long n_;
  int s_;
  long long radius_;
  std::vector<long long> bases_;
  std::vector<std::int8_t> owner_;
  std::vector<std::int8_t> fixed_;
};

}  // namespace

TrivanceLastStep trivance_last_step(int n) {
  TrivanceLastStep out;
  const int s = ceil_log(n, 3);
  const long long w = pow3(s - 1), r = (w - 1) / 2, m = n - w;
  out.right = (m + 1) / 2;
  out.left = m / 2;
  std::vector<long long> bases = {0, out.right};
  if (out.left > 0) bases.push_back(-out.left);
  Partition partition(n, s, bases);
  for (int i = 0; i < static_cast<int>(bases.size()); ++i) partition.assign(bases[i], i);
  for (long long j = 1; j <= out.right; ++j) partition.assign(r + j, 1);
  for (long long j = 1; j <= out.left; ++j) partition.assign(-r - j, 2);
  out.regions = partition.regions();
  return out;
}

}  // namespace topocoll::algorithms
