#include "algorithms/bine/bine_latency.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "algorithms/common/negabinary.hpp"
#include "core/rank_math.hpp"

// Recursive doubling is the superposition of the broadcast trees of every rank's contribution,
// with partial sums combined on the way (section 3.1). On a power-of-two shape the two ranks of
// every pair hold disjoint sets of contributions, so each sends its whole partial result. On
// other even shapes the pruned trees (Appendix C) drop some edges: at the step where the two
// halves overlap, a rank may send only the contributions its peer lacks, a subset of what it
// holds. A single accumulator cannot provide that sum, so ranks keep a few partial sums
// ("atoms") in scratch slots, exactly as fine as the later steps need.
//
// Everything is rank-independent in the coordinates of the trees (relative to the rank, shifted
// for even and mirrored for odd coordinates), so one slot program serves every rank:
//  - N_t: the contributions a rank holds before step t, S_t = N_t minus its peer's N_t: what it
//    sends at step t.
//  - Backwards from the last step, the sets each message must carry separately (the partial
//    sums its receiver will need later), and the atoms D_t a rank keeps before step t: the
//    coarsest partition of N_t that can produce every such set.
//  - Forwards, a slot per atom: a message carries the atoms inside S_t, the receiver reduces
//    each into the slot of the atom it joins (or copies it to a fresh slot), and atoms that
//    join merge by local reductions. When one receive cannot do that (two pieces for one slot,
//    or fresh and existing targets at once), the message lands in temporary slots and a local
//    step (no communication) merges them.
namespace topocoll::algorithms::bine {
namespace {

using GridPtr = std::shared_ptr<const BineGrid>;

// A set of tree coordinates (lane-inner node indices) as a bitset.
class Bits {
 public:
  explicit Bits(int n = 0) : words_(static_cast<std::size_t>((n + 63) / 64), 0) {}
  void set(int i) { words_[static_cast<std::size_t>(i / 64)] |= 1ULL << (i % 64); }
  [[nodiscard]] bool test(int i) const {
    return (words_[static_cast<std::size_t>(i / 64)] >> (i % 64)) & 1ULL;
  }
  [[nodiscard]] bool any() const {
    return std::any_of(words_.begin(), words_.end(), [](std::uint64_t w) { return w != 0; });
  }
  [[nodiscard]] Bits operator&(const Bits& o) const {
    return zip(o, [](auto a, auto b) { return a & b; });
  }
  [[nodiscard]] Bits operator|(const Bits& o) const {
    return zip(o, [](auto a, auto b) { return a | b; });
  }
  [[nodiscard]] Bits operator-(const Bits& o) const {
    return zip(o, [](auto a, auto b) { return a & ~b; });
  }
  [[nodiscard]] bool subset_of(const Bits& o) const { return !(*this - o).any(); }
  friend bool operator==(const Bits&, const Bits&) = default;

 private:
  template <class F>
  Bits zip(const Bits& o, F f) const {
    Bits out;
    out.words_.resize(words_.size());
    for (std::size_t i = 0; i < words_.size(); ++i) out.words_[i] = f(words_[i], o.words_[i]);
    return out;
  }
  std::vector<std::uint64_t> words_;
};

// The atoms of `universe` under the sets `generators`: the classes of elements that every
// generator either contains or misses.
std::vector<Bits> atoms_of(const Bits& universe, const std::vector<Bits>& generators) {
  std::vector<Bits> atoms{universe};
  for (const Bits& g : generators) {
    std::vector<Bits> next;
    for (const Bits& a : atoms) {
      Bits in = a & g, out = a - g;
      if (in.any()) next.push_back(std::move(in));
      if (out.any()) next.push_back(std::move(out));
    }
    atoms = std::move(next);
  }
  return atoms;
}

struct ProgramStep {
  int scatter_step = -1;  // the butterfly step; -1 for a local-only step
  BlockSet send;
  BlockSet recv;
  Combine combine = Combine::reduce;
  std::vector<std::pair<BlockIndex, BlockIndex>> merges;  // (from, into): into = into ∘ from
};

class Compiler {
 public:
  explicit Compiler(const BineGrid& grid) : grid_(grid), n_(grid.ranks()), steps_(grid.steps()) {}

  std::vector<ProgramStep> compile() {
    holdings();
    requirements();
    return assign_slots();
  }

  [[nodiscard]] int slots() const { return max_slot_ + 1; }

 private:
  struct Atom {
    Bits set;
    int slot;
  };

  // The coordinate, seen from the rank's peer at step t (the peer differs in one dimension by
  // distance rho, and its trees are mirrored there): x -> rho - x in that dimension.
  Bits mirror(const Bits& x, int t) const {
    const int dim = grid_.allgather_step(steps_ - 1 - t).dim;
    const int d = grid_.dims()[static_cast<std::size_t>(dim)];
    const int stride = grid_.stride(dim);
    const auto rho = static_cast<int>(negabinary::rho(grid_.scatter_distance(t)) % d);
    Bits out(n_);
    for (int i = 0; i < n_; ++i) {
      if (!x.test(i)) continue;
      const int c = (i / stride) % d;
      out.set(i + (mod(rho - c, d) - c) * stride);
    }
    return out;
  }

  // The tree of contribution b reaches the rank before step t iff the rank's coordinate in b's
  // tree arrives before t; in the rank's own coordinates that is phi(x): x for odd and -x for
  // even coordinates.
  void holdings() {
    std::vector<int> arrival(static_cast<std::size_t>(n_));
    for (int i = 0; i < n_; ++i) {
      int phi = 0;
      for (std::size_t j = 0; j < grid_.dims().size(); ++j) {
        const int d = grid_.dims()[j];
        const int c = (i / grid_.stride(static_cast<int>(j))) % d;
        phi += (c % 2 == 1 ? c : (d - c) % d) * grid_.stride(static_cast<int>(j));
      }
      arrival[static_cast<std::size_t>(i)] = grid_.scatter_arrival(phi);
    }
    held_.assign(static_cast<std::size_t>(steps_ + 1), Bits(n_));
    for (int t = 0; t <= steps_; ++t)
      for (int i = 0; i < n_; ++i)
        if (arrival[static_cast<std::size_t>(i)] < t) held_[static_cast<std::size_t>(t)].set(i);
    sent_.clear();
    for (int t = 0; t < steps_; ++t) {
      const Bits& held = held_[static_cast<std::size_t>(t)];
      sent_.push_back(held - mirror(held, t));
      if (!((held | mirror(sent_.back(), t)) == held_[static_cast<std::size_t>(t + 1)]) ||
          (held & mirror(sent_.back(), t)).any())
        throw std::logic_error("bine-lat: the pruned trees do not add up");
    }
  }

  void requirements() {
    needed_.assign(static_cast<std::size_t>(steps_), {});
    for (int t = steps_ - 1; t >= 0; --t) {
      const Bits incoming = mirror(sent_[static_cast<std::size_t>(t)], t);
      std::vector<Bits> generators;
      for (int k = t + 1; k < steps_; ++k)
        for (const Bits& x : needed_[static_cast<std::size_t>(k)]) {
          Bits part = x & incoming;
          if (part.any()) generators.push_back(std::move(part));
        }
      for (const Bits& a : atoms_of(incoming, generators))
        needed_[static_cast<std::size_t>(t)].push_back(mirror(a, t));
    }
  }

  std::vector<Bits> kept_atoms(int t) const {
    const Bits& held = held_[static_cast<std::size_t>(t)];
    std::vector<Bits> generators;
    for (int k = t; k < steps_; ++k)
      for (const Bits& x : needed_[static_cast<std::size_t>(k)]) generators.push_back(x & held);
    return atoms_of(held, generators);
  }

  int fresh_slot() {
    int s = 0;
    while (std::find(used_.begin(), used_.end(), s) != used_.end()) ++s;
    used_.push_back(s);
    max_slot_ = std::max(max_slot_, s);
    return s;
  }
  void release(int slot) { used_.erase(std::find(used_.begin(), used_.end(), slot)); }

  std::vector<ProgramStep> assign_slots() {
    std::vector<ProgramStep> program;
    std::vector<Atom> atoms{{held_[0], 0}};
    used_ = {0};
    max_slot_ = 0;
    for (int t = 0; t < steps_; ++t) {
      const Bits& sent = sent_[static_cast<std::size_t>(t)];
      std::vector<Atom> message;
      for (const Atom& a : atoms)
        if (a.set.subset_of(sent)) message.push_back(a);
      std::sort(message.begin(), message.end(),
                [](const Atom& a, const Atom& b) { return a.slot < b.slot; });
      std::vector<Bits> next_sets =
          t + 1 < steps_ ? kept_atoms(t + 1)
                         : std::vector<Bits>{held_[static_cast<std::size_t>(steps_)]};
      step(t, atoms, message, next_sets, program);
    }
    if (atoms.size() != 1 || atoms.front().slot != 0)
      throw std::logic_error("bine-lat: the result does not end in slot 0");
    return program;
  }

  // One butterfly step: sends `message`, receives the peer's mirror image, regroups `atoms`
  // into `next_sets`.
  void step(int t, std::vector<Atom>& atoms, const std::vector<Atom>& message,
            const std::vector<Bits>& next_sets, std::vector<ProgramStep>& program) {
    const std::size_t m = message.size();
    std::vector<Bits> incoming;
    for (const Atom& a : message) incoming.push_back(mirror(a.set, t));
    auto target_of = [&](const Bits& part) {
      for (std::size_t k = 0; k < next_sets.size(); ++k)
        if (part.subset_of(next_sets[k])) return k;
      throw std::logic_error("bine-lat: an atom splits");
    };
    // Primary slot of each next atom that contains old atoms (slot 0 if it holds the own data).
    std::vector<int> primary(next_sets.size(), -1);
    for (const Atom& a : atoms) {
      int& p = primary[target_of(a.set)];
      if (p < 0 || a.slot == 0 || (p != 0 && a.slot < p)) p = a.slot;
    }
    std::vector<std::size_t> target(m);
    std::vector<int> pieces(next_sets.size(), 0);
    for (std::size_t i = 0; i < m; ++i) ++pieces[target[i] = target_of(incoming[i])];
    bool one_each = true, all_old = true, all_new = true;
    for (std::size_t i = 0; i < m; ++i) {
      one_each = one_each && pieces[target[i]] == 1;
      (primary[target[i]] >= 0 ? all_new : all_old) = false;
    }
    bool increasing = true;
    for (std::size_t i = 1; i < m && all_old; ++i)
      increasing = increasing && primary[target[i]] > primary[target[i - 1]];

    ProgramStep comm;
    comm.scatter_step = t;
    for (const Atom& a : message) comm.send.add(static_cast<BlockIndex>(a.slot));
    std::vector<int> landed(m);  // slot each incoming piece lands in
    const bool direct = one_each && ((all_old && increasing) || all_new);
    comm.combine = direct && all_old && m > 0 ? Combine::reduce : Combine::copy;
    for (std::size_t i = 0; i < m; ++i) {
      landed[i] = comm.combine == Combine::reduce ? primary[target[i]] : fresh_slot();
      comm.recv.add(static_cast<BlockIndex>(landed[i]));
    }
    // Regroup: every next atom collects its old atoms and incoming pieces in one slot.
    ProgramStep local;
    ProgramStep& merging = direct ? comm : local;
    std::vector<Atom> next;
    for (std::size_t k = 0; k < next_sets.size(); ++k) {
      std::vector<int> parts;
      for (const Atom& a : atoms)
        if (a.set.subset_of(next_sets[k])) parts.push_back(a.slot);
      for (std::size_t i = 0; i < m; ++i)
        if (target[i] == k && landed[i] != primary[k]) parts.push_back(landed[i]);
      const int into = primary[k] >= 0 ? primary[k] : parts.front();
      for (int from : parts) {
        if (from == into) continue;
        merging.merges.emplace_back(static_cast<BlockIndex>(from), static_cast<BlockIndex>(into));
        release(from);
      }
      next.push_back({next_sets[k], into});
    }
    atoms = std::move(next);
    program.push_back(std::move(comm));
    if (!direct) program.push_back(std::move(local));
  }

  const BineGrid& grid_;
  int n_;
  int steps_;
  std::vector<Bits> held_;                 // N_t
  std::vector<Bits> sent_;                 // S_t
  std::vector<std::vector<Bits>> needed_;  // the separate sums each step's message carries
  std::vector<int> used_;
  int max_slot_ = 0;
};

class LatencyProgram final : public Schedule {
 public:
  LatencyProgram(ScheduleInfo info, GridPtr grid, std::vector<ProgramStep> program)
      : Schedule(std::move(info)), grid_(std::move(grid)), program_(std::move(program)) {}

  [[nodiscard]] int step_count(int) const override { return static_cast<int>(program_.size()); }

  void build_step(int rank, int step, Step& out) const override {
    const ProgramStep& s = program_[static_cast<std::size_t>(step)];
    if (s.scatter_step >= 0) {
      const int peer = grid_->allgather_peer(rank, grid_->steps() - 1 - s.scatter_step);
      out.ops.push_back(Operation::send(peer, s.send));
      out.ops.push_back(Operation::recv(peer, s.recv, s.combine));
    }
    for (const auto& [from, into] : s.merges)
      out.ops.push_back(
          Operation::local_copy(BlockSet::single(from), BlockSet::single(into), Combine::reduce));
  }

 private:
  GridPtr grid_;
  std::vector<ProgramStep> program_;
};

}  // namespace

SchedulePtr latency_optimal(ScheduleInfo info, GridPtr grid) {
  Compiler compiler(*grid);
  auto program = compiler.compile();
  info.blocks = 1;
  info.slots = compiler.slots();
  bool moves = false;
  for (const ProgramStep& s : program) moves = moves || !s.merges.empty() || !(s.send == s.recv);
  info.keeps_positions = !moves;
  return std::make_unique<LatencyProgram>(std::move(info), std::move(grid), std::move(program));
}

}  // namespace topocoll::algorithms::bine
