// Whole-vector (latency-optimal) Trivance and Bruck on a ring (trivance.txt sections 2.4, 4.2,
// 4.4): windows that grow by the peers' windows, then one last step of partial sums, or a fold
// for the sizes that have no such step. The reduce-scatter patterns are in trivance_patterns.cpp.
#include <algorithm>
#include <array>
#include <climits>
#include <optional>
#include <utility>

#include "algorithms/ternary/trivance_patterns.hpp"
#include "core/rank_math.hpp"

namespace topocoll::algorithms {
namespace {

// Both latency-optimal patterns keep one partial sum (a window of ranks) per rank and grow it
// by the windows of the peers. That tiles the ring exactly when n is 3^s or 2 * 3^(s-1).
bool whole_windows_tile(int n) {
  return is_power_of(n, 3) || (n % 2 == 0 && is_power_of(n / 2, 3));
}

LatencyOp send_to(int peer, int port) { return {OpKind::send, peer, port, Combine::copy}; }
LatencyOp recv_from(int peer, int port, Combine combine) {
  return {OpKind::recv, peer, port, combine};
}

// Whole-vector Trivance (section 4.2): the window [q - R_k, q + R_k] triples each step
// (Lemma 4.2). For n = 2 * 3^(s-1) the last step adds one window from one side.
class TrivanceLatency final : public LatencyRing {
 public:
  explicit TrivanceLatency(int n) : n_(n), s_(ceil_log(n, 3)) {}
  [[nodiscard]] int size() const override { return n_; }
  [[nodiscard]] int steps() const override { return s_; }

  void ops(int q, int k, std::vector<LatencyOp>& out) const override {
    const long long d = pow3(k);
    if (k == s_ - 1 && !is_power_of(n_, 3)) {
      out.push_back(send_to(mod(q - d, n_), 1));
      out.push_back(recv_from(mod(q + d, n_), 1, Combine::reduce));
      return;
    }
    out.push_back(send_to(mod(q + d, n_), 0));
    out.push_back(send_to(mod(q - d, n_), 1));
    out.push_back(recv_from(mod(q - d, n_), 0, Combine::reduce));
    out.push_back(recv_from(mod(q + d, n_), 1, Combine::reduce));
  }

 private:
  int n_;
  int s_;
};

// Whole-vector Bruck (section 2.4): the window [q, q + 3^k) grows by the windows of q + 3^k and
// q + 2 * 3^k while they fit.
class BruckLatency final : public LatencyRing {
 public:
  explicit BruckLatency(int n) : n_(n), s_(ceil_log(n, 3)) {}
  [[nodiscard]] int size() const override { return n_; }
  [[nodiscard]] int steps() const override { return s_; }

  void ops(int q, int k, std::vector<LatencyOp>& out) const override {
    const long long d = pow3(k);
    for (int j = 1; j <= 2 && (j + 1) * d <= n_; ++j) {
      out.push_back(send_to(mod(q - j * d, n_), j - 1));
      out.push_back(recv_from(mod(q + j * d, n_), j - 1, Combine::reduce));
    }
  }

 private:
  int n_;
  int s_;
};

// Ring offsets relative to a coordinate q: the coordinates q + lo .. q + hi - 1.
struct Span {
  long long lo = 0;
  long long hi = 0;
  [[nodiscard]] bool empty() const { return hi <= lo; }
  [[nodiscard]] bool contains(const Span& o) const { return lo <= o.lo && o.hi <= hi; }
  [[nodiscard]] Span shifted(long long by) const { return {lo + by, hi + by}; }
  friend bool operator==(const Span&, const Span&) = default;
};

// The first s - 1 steps of a whole-vector pattern: at step k coordinate q receives on port p the
// window of q + offset[k][p]. Each received window is an atom: a rank can add atoms into any
// partial sum, never split one. Both patterns grow one contiguous window [lo, hi).
struct Atoms {
  std::vector<std::array<long long, 2>> offset;
  std::vector<std::array<Span, 2>> atom;
  Span window{0, 1};
  std::vector<long long> bounds;  // sorted ends of all atoms (own atom [0, 1) included)

  explicit Atoms(std::vector<std::array<long long, 2>> offsets) : offset(std::move(offsets)) {
    bounds = {0, 1};
    for (const auto& off : offset) {
      const std::array<Span, 2> got = {window.shifted(off[0]), window.shifted(off[1])};
      atom.push_back(got);
      for (const Span& a : got) {
        bounds.push_back(a.lo);
        bounds.push_back(a.hi);
        window = {std::min(window.lo, a.lo), std::max(window.hi, a.hi)};
      }
    }
    std::sort(bounds.begin(), bounds.end());
    bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
  }
};

// The last step (section 4.4): q keeps the partial sum `keep` of its own atoms and receives on
// port p, from q + from[p], the partial sum part[p] (in q's coordinates); keep, part[0] and
// part[1] tile the ring.
struct LastStep {
  Span keep;
  std::array<long long, 2> from{};
  std::array<Span, 2> part;
};

// Section 4.4 sends each rank, from one peer per side, the partial sums of exactly the blocks it
// still misses. Its closed form ceil((3^s - n) / 2) for the distance does not hold (n = 32 gives
// 25, yet the text says only 5 blocks are missing), so we derive the step instead. Every
// partial sum a rank holds is a union of atoms (the atoms tile its window), so an interval is a
// union of atoms exactly when both its ends are atom ends (`bounds`). The last step is:
// keep = [u0, v0), part 0 = [v0, v1) from q + a, part 1 = [v1, u0 + n) from q + c, where u0, v0,
// v0 - a, v1 - a, v1 - c and u0 + n - c are all atom ends. There are O(log^4 n) candidates; we
// take the one with the shortest longest peer distance (one ring direction for Bruck, either
// for Trivance), then the largest kept sum. For Trivance, n = 7 gives distance 2 on both sides
// (Fig. 4) and n = 32 distances 2 and 3. Bruck always has a split. Trivance has none for
// n = 25, 26, 61, 62, 64, 65, 70, 71, 73-80, ... and every n in (8 * 3^(s-2), 3^s): its atoms
// are 3^(s-2), ..., 3, 1, 1, 1, 3, ..., 3^(s-2), so no union of one window's atoms has between
// 2/3 and all of the window; e.g. n = 26 = 9 + 9 + 8, and 8 blocks of a 9-window leave a hole of
// one rank inside it, which no other window can fill. Those n fold instead (FoldedLatency).
std::optional<LastStep> find_last_step(int n, const Atoms& atoms, bool one_direction) {
  auto distance = [n, one_direction](long long a) {
    const long long d = mod(a, n);
    return one_direction ? d : std::min(d, n - d);
  };
  std::optional<LastStep> best;
  std::array<long long, 4> best_key{};
  auto consider = [&](const LastStep& c) {
    const long long d0 = c.part[0].empty() ? 0 : distance(c.from[0]);
    const long long d1 = c.part[1].empty() ? 0 : distance(c.from[1]);
    const std::array<long long, 4> key = {std::max(d0, d1), -(c.keep.hi - c.keep.lo), d0, d1};
    if (!best || key < best_key) {
      best = c;
      best_key = key;
    }
  };
  const auto& b = atoms.bounds;
  // Every union of atoms that is an interval, as (length, start), to find part 1 by its length.
  std::vector<std::pair<long long, long long>> spans;
  for (long long lo : b)
    for (long long hi : b)
      if (lo < hi) spans.emplace_back(hi - lo, lo);
  std::sort(spans.begin(), spans.end());
  for (long long u0 : b) {
    for (long long v0 : b) {
      if (v0 <= u0 || v0 - u0 > n) continue;
      const long long end = u0 + n;
      if (v0 == end) consider({{u0, v0}, {0, 0}, {Span{}, Span{}}});
      for (long long bi : b) {
        const long long a = v0 - bi;
        if (mod(a, n) == 0) continue;
        for (long long bj : b) {
          const long long v1 = a + bj;
          if (bj <= bi || v1 > end) continue;
          if (v1 == end) {
            consider({{u0, v0}, {a, 0}, {Span{v0, v1}, Span{}}});
            continue;
          }
          const long long length = end - v1;
          auto it = std::lower_bound(spans.begin(), spans.end(), std::pair{length, LLONG_MIN});
          for (; it != spans.end() && it->first == length; ++it) {
            const long long c = v1 - it->second;
            if (mod(c, n) != 0 && mod(c - a, n) != 0)
              consider({{u0, v0}, {a, c}, {Span{v0, v1}, Span{v1, end}}});
          }
        }
      }
    }
  }
  return best;
}

// The first s - 1 steps as in the pattern (slot 0 grows the window); received windows land in
// scratch slots 1 and 2, and after the receives the rank adds them into the partial sums it
// keeps for the last step (slots 3..). Fig. 4's n = 7: steps at distances 1, then 2.
class PartialSumLatency final : public LatencyRing {
 public:
  PartialSumLatency(int n, const Atoms& atoms, const LastStep& last) : n_(n) {
    targets_ = {atoms.window};  // slot 0 holds the whole window
    const int keep = target_slot(last.keep);
    std::array<int, 2> send_slot{};
    for (int p = 0; p < 2; ++p)
      if (!last.part[p].empty()) send_slot[p] = target_slot(last.part[p].shifted(-last.from[p]));
    first_steps(atoms);
    std::vector<LatencyOp> final_ops;
    for (int p = 0; p < 2; ++p) {
      if (last.part[p].empty()) continue;
      final_ops.push_back(
          {OpKind::send, static_cast<int>(-last.from[p]), p, Combine::copy, send_slot[p]});
      final_ops.push_back({OpKind::recv, static_cast<int>(last.from[p]), p, Combine::reduce, keep});
    }
    if (keep != 0) final_ops.push_back(local(keep, 0, Combine::copy, true));
    templates_.push_back(std::move(final_ops));
  }

  [[nodiscard]] int size() const override { return n_; }
  [[nodiscard]] int steps() const override { return static_cast<int>(templates_.size()); }
  [[nodiscard]] int slots() const override { return static_cast<int>(targets_.size()) + 2; }

  void ops(int q, int k, std::vector<LatencyOp>& out) const override {
    for (LatencyOp op : templates_[k]) {
      if (op.kind != OpKind::copy) op.peer = mod(q + op.peer, n_);
      out.push_back(op);
    }
  }

 private:
  // Target i > 0 lives in slot i + 2 (after the receive slots 1 and 2).
  int target_slot(const Span& span) {
    for (std::size_t i = 0; i < targets_.size(); ++i)
      if (targets_[i] == span) return i == 0 ? 0 : static_cast<int>(i) + 2;
    targets_.push_back(span);
    return static_cast<int>(targets_.size()) + 1;
  }
  static LatencyOp local(int source, int slot, Combine combine, bool after) {
    return {OpKind::copy, 0, 0, combine, slot, source, after};
  }

  // A copy may not share its phase with another writer of its slot, and the after-receives
  // copies all read the buffer as the receives left it. So a partial sum starts with one copy:
  // of the own vector at step 0, or of one atom. A sum that starts with both atoms of a step
  // (Bruck only) receives the port-0 atom directly and adds the other after the receives; a
  // second such sum copies it at the start of the next step (they differ in a later atom).
  void first_steps(const Atoms& atoms) {
    const int count = static_cast<int>(atoms.offset.size());
    std::vector<bool> started(targets_.size(), false);
    std::vector<std::pair<int, int>> copy_next;  // (from, to) at the start of the next step
    for (int k = 0; k < count; ++k) {
      std::vector<LatencyOp> out;
      for (const auto& [from, to] : copy_next) out.push_back(local(from, to, Combine::copy, false));
      for (const auto& [from, to] : copy_next) started[to - 2] = true;
      copy_next.clear();
      const std::array<bool, 2> none = {false, false};
      std::vector<std::array<bool, 2>> uses(targets_.size(), none);
      std::vector<std::size_t> both;
      for (std::size_t i = 1; i < targets_.size(); ++i) {
        if (k == 0 && targets_[i].contains({0, 1})) {
          out.push_back(local(0, slot_of(i), Combine::copy, false));
          started[i] = true;
        }
        uses[i] = {targets_[i].contains(atoms.atom[k][0]), targets_[i].contains(atoms.atom[k][1])};
        if (!started[i] && uses[i][0] && uses[i][1]) both.push_back(i);
      }
      // Where the port-0 atom lands: scratch slot 1, or the first sum that starts with both.
      const int atom0 = both.empty() ? 1 : slot_of(both.front());
      const std::array<int, 2> atom_slot = {atom0, 2};
      for (int p = 0; p < 2; ++p) {
        out.push_back({OpKind::send, static_cast<int>(-atoms.offset[k][p]), p, Combine::copy, 0});
        out.push_back(
            {OpKind::recv, static_cast<int>(atoms.offset[k][p]), p, Combine::copy, atom_slot[p]});
      }
      out.push_back(local(atom_slot[0], 0, Combine::reduce, true));
      out.push_back(local(atom_slot[1], 0, Combine::reduce, true));
      for (std::size_t i = 1; i < targets_.size(); ++i) {
        const bool first_both = !both.empty() && i == both.front();
        if (!first_both && !started[i] && uses[i][0] && uses[i][1]) {
          copy_next.emplace_back(slot_of(both.front()), slot_of(i));
          continue;
        }
        const Combine combine = started[i] || first_both ? Combine::reduce : Combine::copy;
        for (int p = first_both ? 1 : 0; p < 2; ++p)
          if (uses[i][p]) out.push_back(local(atom_slot[p], slot_of(i), combine, true));
        started[i] = started[i] || uses[i][0] || uses[i][1];
      }
      templates_.push_back(std::move(out));
    }
  }
  static int slot_of(std::size_t target) { return static_cast<int>(target) + 2; }

  int n_;
  std::vector<Span> targets_;
  std::vector<std::vector<LatencyOp>> templates_;
};

// The n for which no last step of partial sums exists (Trivance, see find_last_step) use the
// standard fold, which keeps the exact reduction: groups of 1-3 consecutive ranks reduce onto their
// middle rank, the 3^(s-1) group cores run the whole-window pattern, and the cores copy the
// result back. Steps: ceil(log3 n) + 1.
class FoldedLatency final : public LatencyRing {
 public:
  FoldedLatency(int n, std::shared_ptr<const LatencyRing> core)
      : n_(n), w_(core->size()), core_(std::move(core)) {}
  [[nodiscard]] int size() const override { return n_; }
  [[nodiscard]] int steps() const override { return core_->steps() + 2; }

  void ops(int q, int k, std::vector<LatencyOp>& out) const override {
    const int g = group_of(q), c = core_of(g);
    if (k == 0 || k == steps() - 1) {
      fold(q, g, c, k == 0, out);
      return;
    }
    if (q != c) return;
    const std::size_t first = out.size();
    core_->ops(g, k - 1, out);
    for (std::size_t i = first; i < out.size(); ++i) out[i].peer = core_of(out[i].peer);
  }

 private:
  // Group g is the ranks [start(g), start(g + 1)); sizes differ by at most one.
  [[nodiscard]] long long start(long long g) const { return g * n_ / w_; }
  [[nodiscard]] int group_of(int q) const { return static_cast<int>(((q + 1LL) * w_ - 1) / n_); }
  [[nodiscard]] int core_of(int g) const {
    const long long b = start(g), e = start(g + 1);
    return static_cast<int>(e - b == 3 ? b + 1 : b);
  }

  // In: every extra rank sends its vector to the core; out: the core copies the sum back.
  void fold(int q, int g, int c, bool in, std::vector<LatencyOp>& out) const {
    auto port_of = [c](long long extra) { return extra < c ? 0 : 1; };
    if (q != c) {
      out.push_back(in ? send_to(c, port_of(q)) : recv_from(c, port_of(q), Combine::copy));
      return;
    }
    for (long long e = start(g); e < start(g + 1); ++e) {
      if (e == c) continue;
      const int extra = static_cast<int>(e);
      out.push_back(in ? recv_from(extra, port_of(e), Combine::reduce)
                       : send_to(extra, port_of(e)));
    }
  }

  int n_;
  long long w_;
  std::shared_ptr<const LatencyRing> core_;
};

// n that whole windows tile run the pure pattern; the others end with a step of partial sums,
// or fold when no such step exists.
template <class Pure, class Offset>
std::shared_ptr<const LatencyRing> latency_ring(int n, const Offset& offset, bool one_direction) {
  if (whole_windows_tile(n)) return std::make_shared<Pure>(n);
  const int s = ceil_log(n, 3);
  std::vector<std::array<long long, 2>> offsets;
  for (int k = 0; k + 1 < s; ++k) offsets.push_back({offset(k, 0), offset(k, 1)});
  const Atoms atoms(std::move(offsets));
  if (const auto last = find_last_step(n, atoms, one_direction))
    return std::make_shared<PartialSumLatency>(n, atoms, *last);
  const auto core = std::make_shared<Pure>(static_cast<int>(pow3(s - 1)));
  return std::make_shared<FoldedLatency>(n, core);
}

}  // namespace

// Trivance receives on port 0 from the left, on port 1 from the right (distance 3^k).
std::shared_ptr<const LatencyRing> trivance_latency_ring(int n) {
  const auto offset = [](int k, int port) { return port == 0 ? -pow3(k) : pow3(k); };
  return latency_ring<TrivanceLatency>(n, offset, false);
}
// Bruck receives from q + 3^k and q + 2 * 3^k, all in one ring direction.
std::shared_ptr<const LatencyRing> bruck_latency_ring(int n) {
  const auto offset = [](int k, int port) { return (port + 1) * pow3(k); };
  return latency_ring<BruckLatency>(n, offset, true);
}

}  // namespace topocoll::algorithms
