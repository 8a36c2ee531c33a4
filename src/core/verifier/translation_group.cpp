#include "core/verifier/translation_group.hpp"

#include <algorithm>
#include <bit>

namespace topocoll::detail {

namespace {

int digits_of(int ranks, int radix) {
  int n = 0;
  for (long long x = 1; x < ranks; x *= radix) ++n;
  return n;
}

// The modulus M of a copy laid out in residue groups (see the header), or 0. The first group
// is the longest increasing run from position 0: every group has P / M positions. Groups of
// one position would fit any order and move block by block: not taken.
int residue_modulus(const int* rank_of, int p) {
  int length = 1;
  while (length < p && rank_of[length] > rank_of[length - 1]) ++length;
  return length > 1 && p % length == 0 ? p / length : 0;
}

}  // namespace

TranslationGroup TranslationGroup::torus(std::vector<int> sizes, std::vector<int> periods,
                                         BlockLayout layout, int radix) {
  TranslationGroup g;
  g.sizes_ = std::move(sizes);
  g.periods_ = std::move(periods);
  for (const int n : g.sizes_) {
    g.strides_.push_back(g.ranks_);
    g.ranks_ *= n;
  }
  g.layout_ = layout;
  g.radix_ = radix;
  g.digits_ = digits_of(g.ranks_, radix);
  return g;
}

TranslationGroup TranslationGroup::hypercube(int bits, std::uint32_t moved, BlockLayout layout) {
  TranslationGroup g;
  g.cube_ = true;
  g.ranks_ = 1 << bits;
  g.moved_ = moved & static_cast<std::uint32_t>(g.ranks_ - 1);
  g.layout_ = layout;
  g.digits_ = bits;
  return g;
}

TranslationGroup TranslationGroup::with_periods(std::vector<int> periods) const {
  TranslationGroup g = *this;
  g.periods_ = std::move(periods);
  return g;
}

TranslationGroup TranslationGroup::with_moved(std::uint32_t moved) const {
  TranslationGroup g = *this;
  g.moved_ = moved & static_cast<std::uint32_t>(ranks_ - 1);
  return g;
}

std::optional<TranslationGroup> TranslationGroup::with_block_ranks(
    const std::vector<int>& block_ranks, int radix) const {
  const auto p = static_cast<std::size_t>(ranks_);
  if (radix < 2 || block_ranks.empty() || block_ranks.size() % p != 0) return std::nullopt;
  const int digits = digits_of(ranks_, radix);
  long long power = 1;
  for (int i = 0; i < digits; ++i) power *= radix;
  if (power != ranks_) return std::nullopt;
  auto tables = std::make_shared<Relabelling>();
  for (std::size_t base = 0; base < block_ranks.size(); base += p) {
    std::vector<int> rank_of(block_ranks.begin() + static_cast<std::ptrdiff_t>(base),
                             block_ranks.begin() + static_cast<std::ptrdiff_t>(base + p));
    std::vector<int> position_of(p, -1);
    for (std::size_t o = 0; o < p; ++o) {
      const int r = rank_of[o];
      if (r < 0 || r >= ranks_ || position_of[static_cast<std::size_t>(r)] >= 0)
        return std::nullopt;
      position_of[static_cast<std::size_t>(r)] = static_cast<int>(o);
    }
    tables->rank_of.push_back(std::move(rank_of));
    tables->position_of.push_back(std::move(position_of));
  }
  TranslationGroup g = *this;
  g.layout_ = BlockLayout::copy_major_relabelled;
  g.residue_groups_.reset();
  g.radix_ = radix;
  g.digits_ = digits;
  g.relabelling_ = std::move(tables);
  return g;
}

std::optional<TranslationGroup> TranslationGroup::with_residue_groups(
    const std::vector<int>& block_ranks) const {
  const int p = ranks_;
  if (cube_ || sizes_.size() != 1 || block_ranks.empty() ||
      block_ranks.size() % static_cast<std::size_t>(p) != 0)
    return std::nullopt;
  auto copies = std::make_shared<std::vector<ResidueGroups>>();
  for (std::size_t base = 0; base < block_ranks.size(); base += static_cast<std::size_t>(p)) {
    const int* rank_of = block_ranks.data() + base;
    ResidueGroups groups;
    groups.modulus = residue_modulus(rank_of, p);
    if (groups.modulus == 0) return std::nullopt;
    groups.length = p / groups.modulus;
    groups.residue_of_group.assign(static_cast<std::size_t>(groups.modulus), -1);
    groups.group_of_residue.assign(static_cast<std::size_t>(groups.modulus), -1);
    for (int k = 0; k < groups.modulus; ++k) {
      const int r = rank_of[static_cast<std::ptrdiff_t>(k) * groups.length];
      if (r < 0 || r >= groups.modulus || groups.group_of_residue[static_cast<std::size_t>(r)] >= 0)
        return std::nullopt;
      groups.residue_of_group[static_cast<std::size_t>(k)] = r;
      groups.group_of_residue[static_cast<std::size_t>(r)] = k;
      for (int q = 0; q < groups.length; ++q)
        if (rank_of[static_cast<std::ptrdiff_t>(k) * groups.length + q] != r + groups.modulus * q)
          return std::nullopt;
    }
    copies->push_back(std::move(groups));
  }
  TranslationGroup g = *this;
  g.layout_ = BlockLayout::copy_major_residue_grouped;
  g.relabelling_.reset();
  g.residue_groups_ = std::move(copies);
  return g;
}

bool TranslationGroup::keeps_aligned_runs(int g) const {
  if (layout_ != BlockLayout::copy_major_relabelled) return true;
  std::vector<int> image(static_cast<std::size_t>(ranks_));
  for (std::size_t c = 0; c < relabelling_->rank_of.size(); ++c) {
    const auto& rank_of = relabelling_->rank_of[c];
    const auto& position_of = relabelling_->position_of[c];
    for (std::size_t o = 0; o < image.size(); ++o)
      image[o] = position_of[static_cast<std::size_t>(act(g, rank_of[o]))];
    for (int run = radix_; run <= ranks_; run *= radix_)
      for (int o = 0; o < ranks_; ++o)
        if (image[static_cast<std::size_t>(o)] / run !=
            image[static_cast<std::size_t>(o - o % run)] / run)
          return false;
  }
  return true;
}

int TranslationGroup::reverse(int x, int digits) const {
  int out = 0;
  for (int i = 0; i < digits; ++i, x /= radix_) out = out * radix_ + x % radix_;
  return out;
}

int TranslationGroup::position_owner(int o) const {
  return layout_ == BlockLayout::copy_major_reversed ? reverse(o, digits_) : o;
}

int TranslationGroup::position_rank(std::size_t copy, int o) const {
  if (relabelling_) return relabelling_->rank_of[copy][static_cast<std::size_t>(o)];
  if (residue_groups_) {
    const ResidueGroups& groups = (*residue_groups_)[copy];
    return groups.residue_of_group[static_cast<std::size_t>(o / groups.length)] +
           groups.modulus * (o % groups.length);
  }
  return position_owner(o);
}

std::size_t TranslationGroup::copies_with_own_order() const {
  if (relabelling_) return relabelling_->rank_of.size();
  if (residue_groups_) return residue_groups_->size();
  return 1;
}

std::int64_t TranslationGroup::order() const {
  if (cube_) return std::int64_t{1} << std::popcount(moved_);
  std::int64_t n = 1;
  for (std::size_t d = 0; d < sizes_.size(); ++d) n *= sizes_[d] / periods_[d];
  return n;
}

int TranslationGroup::act(int g, int r) const {
  if (cube_) return g ^ r;
  int out = 0;
  for (std::size_t d = 0; d < sizes_.size(); ++d)
    out += (coordinate(g, d) + coordinate(r, d)) % sizes_[d] * strides_[d];
  return out;
}

int TranslationGroup::representative(int r) const {
  if (cube_) return r & ~static_cast<int>(moved_);
  int out = 0;
  for (std::size_t d = 0; d < sizes_.size(); ++d)
    out += coordinate(r, d) % periods_[d] * strides_[d];
  return out;
}

int TranslationGroup::element(int r) const {
  if (cube_) return r & static_cast<int>(moved_);
  return r - representative(r);  // the offsets are multiples of the periods: no wrap
}

std::vector<BlockRange> TranslationGroup::orbit_blocks(int per_rank) const {
  // The smallest position of each orbit; the window reaches the largest of them (over every
  // copy, when each has its own order).
  const std::size_t orders = copies_with_own_order();
  int last = 0;
  for (std::size_t c = 0; c < orders; ++c) {
    std::vector<char> seen(static_cast<std::size_t>(ranks_), 0);
    for (int o = 0; o < ranks_; ++o) {
      char& s = seen[static_cast<std::size_t>(representative(position_rank(c, o)))];
      if (s) continue;
      s = 1;
      last = std::max(last, o);
    }
  }
  const auto width = static_cast<BlockIndex>(last + 1);
  const auto p = static_cast<BlockIndex>(ranks_);
  if (layout_ == BlockLayout::owner_major)
    return {BlockRange{0, width * static_cast<BlockIndex>(per_rank)}};
  std::vector<BlockRange> out;
  for (BlockIndex i = 0; i < static_cast<BlockIndex>(per_rank); ++i)
    out.push_back({i * p, i * p + width});
  return out;
}

std::pair<int, int> TranslationGroup::aligned_run(int p, int p1) const {
  int j = 0, run = 1;
  while (j < digits_ && p % (run * radix_) == 0 && p + run * radix_ <= p1) {
    run *= radix_;
    ++j;
  }
  return {j, run};
}

void TranslationGroup::act_reversed(int g, int p0, int p1, BlockIndex base, BlockSet& out) const {
  // An aligned run of radix^j positions shares its top digits, which are the low digits of
  // its ranks; the translation moves those (carries past them land in the free digits), so
  // the run maps onto another aligned run.
  int p = p0;
  while (p < p1) {
    const auto [j, run] = aligned_run(p, p1);
    const int k = digits_ - j;
    int low = 1;
    for (int i = 0; i < k; ++i) low *= radix_;
    const int a = reverse(p / run, k);
    const int moved = cube_ ? (a ^ (g & (low - 1))) : (a + g % low) % low;
    const auto first = base + static_cast<BlockIndex>(reverse(moved, k) * run);
    out.add(first, first + static_cast<BlockIndex>(run));
    p += run;
  }
}

void TranslationGroup::act_relabelled(int g, int copy, int p0, int p1, BlockIndex base,
                                      BlockSet& out) const {
  const auto& rank_of = relabelling_->rank_of[static_cast<std::size_t>(copy)];
  const auto& position_of = relabelling_->position_of[static_cast<std::size_t>(copy)];
  // Each maximal aligned run maps onto the aligned run of its size around its first position's
  // image (keeps_aligned_runs, checked for the generators before the group is used).
  int p = p0;
  while (p < p1) {
    const int run = aligned_run(p, p1).second;
    const int image =
        position_of[static_cast<std::size_t>(act(g, rank_of[static_cast<std::size_t>(p)]))];
    const auto first = base + static_cast<BlockIndex>(image / run * run);
    out.add(first, first + static_cast<BlockIndex>(run));
    p += run;
  }
}

void TranslationGroup::act_residue_grouped(int g, int copy, int p0, int p1, BlockIndex base,
                                           BlockSet& out) const {
  const ResidueGroups& groups = (*residue_groups_)[static_cast<std::size_t>(copy)];
  const int m = groups.modulus, length = groups.length;
  // Rank r + m * q moved by g is (r + g) mod m + m * (q + g / m + carry) mod P: the group of
  // residue r lands on the group of (r + g) mod m, rotated by g / m + carry positions.
  int p = p0;
  while (p < p1) {
    const int k = p / length, q0 = p % length;
    const int count = std::min(p1, (k + 1) * length) - p;
    const int r = groups.residue_of_group[static_cast<std::size_t>(k)] + g % m;
    const int carry = r >= m ? 1 : 0;
    const int target = groups.group_of_residue[static_cast<std::size_t>(r - carry * m)];
    const int q = (q0 + g / m + carry) % length;
    const auto first = base + static_cast<BlockIndex>(target) * length;
    const int head = std::min(count, length - q);
    out.add(first + q, first + q + head);
    if (head < count) out.add(first, first + (count - head));
    p += count;
  }
}

void TranslationGroup::act_owners(int g, int o0, int o1, int per_rank, BlockSet& out) const {
  const auto s = static_cast<BlockIndex>(per_rank);
  auto emit = [&](int first_image, int count) {
    out.add(static_cast<BlockIndex>(first_image) * s,
            static_cast<BlockIndex>(first_image + count) * s);
  };
  int o = o0;
  while (o < o1) {
    int run = 0;
    if (cube_) {
      // An aligned run of 2^j owners maps onto an aligned run of 2^j: XOR keeps its low bits.
      run = o == 0 ? 1 << 30 : o & -o;
      while (o + run > o1) run >>= 1;
      emit(o ^ (g & ~(run - 1)), run);
    } else {
      // Owners stay consecutive until either side wraps along dimension 0.
      const int n0 = sizes_[0];
      const int y = act(g, o);
      run = std::min({o1 - o, n0 - coordinate(o, 0), n0 - coordinate(y, 0)});
      emit(y, run);
    }
    o += run;
  }
}

BlockSet TranslationGroup::act(int g, const BlockSet& blocks, int per_rank) const {
  BlockSet out;
  const auto s = static_cast<BlockIndex>(per_rank);
  if (layout_ != BlockLayout::owner_major) {
    const auto p = static_cast<BlockIndex>(ranks_);
    for (const BlockRange& range : blocks.ranges()) {
      for (BlockIndex x = range.begin; x < range.end;) {  // one copy's positions at a time
        const BlockIndex base = x / p * p;
        const BlockIndex end = std::min(range.end, base + p);
        const bool own_orders = relabelling_ || residue_groups_;
        if (own_orders && static_cast<std::size_t>(x / p) >= copies_with_own_order()) break;
        if (x == base && range.end - x >= p) {
          // Every layout permutes positions within a copy, so whole copies map onto
          // themselves: a vector of billions of blocks on few ranks costs one step, not one
          // per copy.
          BlockIndex whole = x + (range.end - x) / p * p;
          if (own_orders)
            whole = std::min(whole, static_cast<BlockIndex>(copies_with_own_order()) * p);
          out.add(x, whole);
          x = whole;
          continue;
        }
        if (layout_ == BlockLayout::copy_major_reversed) {
          act_reversed(g, static_cast<int>(x - base), static_cast<int>(end - base), base, out);
        } else if (layout_ == BlockLayout::copy_major_relabelled) {
          act_relabelled(g, static_cast<int>(x / p), static_cast<int>(x - base),
                         static_cast<int>(end - base), base, out);
        } else if (layout_ == BlockLayout::copy_major_residue_grouped) {
          act_residue_grouped(g, static_cast<int>(x / p), static_cast<int>(x - base),
                              static_cast<int>(end - base), base, out);
        } else {
          BlockSet moved;
          act_owners(g, static_cast<int>(x - base), static_cast<int>(end - base), 1, moved);
          for (const BlockRange& m : moved.ranges()) out.add(base + m.begin, base + m.end);
        }
        x = end;
      }
    }
    out.normalize();
    return out;
  }
  for (const BlockRange& range : blocks.ranges()) {
    BlockIndex x = range.begin;
    while (x < range.end) {
      const BlockIndex owner = x / s;
      const BlockIndex inside = x % s;
      if (inside != 0 || range.end - x < s) {  // part of one owner's blocks
        const BlockIndex end = std::min(range.end, (owner + 1) * s);
        const auto image = static_cast<BlockIndex>(act(g, static_cast<int>(owner))) * s;
        out.add(image + inside, image + (end - owner * s));
        x = end;
        continue;
      }
      const BlockIndex last = range.end / s;  // whole owners [owner, last)
      act_owners(g, static_cast<int>(owner), static_cast<int>(last), per_rank, out);
      x = last * s;
    }
  }
  out.normalize();
  return out;
}

Operation TranslationGroup::act(int g, const Operation& op, int per_rank) const {
  Operation out = op;
  if (op.kind != OpKind::copy && op.peer >= 0 && op.peer < ranks_) out.peer = act(g, op.peer);
  out.blocks = act(g, op.blocks, per_rank);
  if (!op.source.empty()) out.source = act(g, op.source, per_rank);
  return out;
}

std::string TranslationGroup::describe() const {
  std::string count = " (" + std::to_string(order()) + " of them";
  if (layout_ == BlockLayout::copy_major) count += "; blocks in per-lane sub-vectors";
  if (layout_ == BlockLayout::copy_major_reversed)
    count += "; blocks in digit-reversed order, base " + std::to_string(radix_);
  if (layout_ == BlockLayout::copy_major_relabelled)
    count += "; blocks in the schedule's own order of the ranks, aligned runs of powers of " +
             std::to_string(radix_) + " kept";
  if (layout_ == BlockLayout::copy_major_residue_grouped)
    count += "; blocks grouped by rank residue modulo " +
             std::to_string(residue_groups_->front().modulus) + ", groups rotated";
  count += ")";
  if (cube_) {
    return "XOR translations of the hypercube of " + std::to_string(ranks_) + " ranks on " +
           std::to_string(std::popcount(moved_)) + " of its " +
           std::to_string(std::countr_zero(static_cast<unsigned>(ranks_))) + " bits" + count;
  }
  std::string shape, step;
  for (std::size_t d = 0; d < sizes_.size(); ++d) {
    shape += (d ? "x" : "") + std::to_string(sizes_[d]);
    step += (d ? "x" : "") + std::to_string(periods_[d]);
  }
  const std::string what = sizes_.size() == 1 ? "ring of " : "torus ";
  return "translations of the " + what + shape + " by multiples of " + step + count;
}

}  // namespace topocoll::detail
