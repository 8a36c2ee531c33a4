// Binomial and Bine gather and scatter (bine-trees-sc25.txt sections 4.1-4.2). Both trees are
// described by the transfers of the gather; the scatter replays them backwards with the
// directions swapped. Ranks are relative to the root (section 2.2: rotate by the root).
#include "algorithms/personalized/gather_scatter.hpp"

#include <algorithm>
#include <memory>
#include <vector>

#include "algorithms/personalized/personal_negabinary.hpp"
#include "core/rank_math.hpp"

namespace topocoll::algorithms {
namespace {

using namespace personal;

// Ranks first, first + 1, ..., first + count - 1 (mod P), relative to the root.
struct RankRange {
  int first = 0;
  int count = 0;
};

// One transfer of the gather: the rank sends what it collected to its parent, or receives
// what a child collected.
struct TreeEvent {
  int peer = 0;
  bool send = false;
  RankRange range;
};

using Events = std::vector<TreeEvent>;

class TreeShape {
 public:
  virtual ~TreeShape() = default;
  // The gather transfers of relative rank v in order; no idle steps in between.
  virtual void events(int v, Events& out) const = 0;
};

// MPICH's binomial gather: at step k a rank whose lowest set bit is k sends its 2^k ranks
// down to v - 2^k; ranks below receive the next 2^k ranks, clipped at P (any P works).
class BinomialShape final : public TreeShape {
 public:
  explicit BinomialShape(int p) : p_(p) {}
  void events(int v, Events& out) const override {
    for (long long bit = 1; bit < p_; bit <<= 1) {
      const auto b = static_cast<int>(bit);
      if (v & b) {
        out.push_back({v - b, true, {v, std::min(b, p_ - v)}});
        return;
      }
      if (v + bit < p_)
        out.push_back(
            {v + b, false, {v + b, static_cast<int>(std::min<long long>(bit, p_ - v - bit))}});
    }
  }

 private:
  int p_;
};

// The distance-halving Bine tree on p' = 2^s ranks (section 2.3): the node with negabinary
// string x joins at broadcast step s - u(x) from x ^ (u(x) ones), and its subtree is every
// string sharing the bits above its u(x) - 1 low bits (section 2.3.3), a range of 2^(u-1)
// consecutive values. For P > p' the e = P - p' extra ranks 1, 3, ..., 2e - 1 hand their chunk
// to their left neighbour first (the standard technique of Appendix C): tree node j then
// stands for ranks [first(j), first(j + 1)), so every subtree stays one circular range.
// (Appendix C's pruning of duplicated subtrees would keep the step count but splits subtrees
// into several ranges, e.g. P = 10: rank 5's subtree is {1, 2, 5, 6, 7}.)
class BineShape final : public TreeShape {
 public:
  explicit BineShape(int p)
      : p_(p),
        tree_(static_cast<int>(floor_power(p, 2))),
        extra_(p_ - tree_),
        bits_(ceil_log(tree_, 2)) {}

  void events(int v, Events& out) const override {
    if (v < 2 * extra_ && v % 2 == 1) {
      out.push_back({v - 1, true, {v, 1}});
      return;
    }
    if (v < 2 * extra_) out.push_back({v + 1, false, {v + 1, 1}});
    tree_events(v < 2 * extra_ ? v / 2 : v - extra_, out);
  }

 private:
  // First rank of the group of tree node j; j may lie outside [0, p') (circular).
  [[nodiscard]] long long first(long long j) const {
    const long long wraps = (j >= 0 ? j : j - tree_ + 1) / tree_;
    const long long j0 = j - wraps * tree_;
    return j0 + std::min<long long>(j0, extra_) + wraps * p_;
  }
  [[nodiscard]] RankRange ranks_of(long long first_node, long long nodes) const {
    const long long a = first(first_node), b = first(first_node + nodes);
    return {mod(a, p_), static_cast<int>(b - a)};
  }
  [[nodiscard]] int rank_of(std::uint64_t node) const {
    return static_cast<int>(first(mod(from_negabinary(node), tree_)));
  }
  // The subtree of `node`, whose `free_bits` low bits vary in it.
  [[nodiscard]] RankRange subtree(std::uint64_t node, int free_bits) const {
    const long long base = from_negabinary(node & ~low_mask(free_bits));
    return ranks_of(base - odd_bits(free_bits), 1LL << free_bits);
  }

  void tree_events(int j, Events& out) const {
    const long long value = j <= even_bits(bits_) ? j : j - tree_;
    const std::uint64_t x = to_negabinary(value);
    // The root receives at every step; other nodes u - 1 times, then send to their parent.
    const int u = j == 0 ? bits_ + 1 : equal_low_bits(x, bits_);
    for (int g = 0; g < std::min(u - 1, bits_); ++g) {
      const std::uint64_t child = x ^ low_mask(g + 1);
      out.push_back({rank_of(child), false, subtree(child, g)});
    }
    if (j != 0) out.push_back({rank_of(x ^ low_mask(u)), true, subtree(x, u - 1)});
  }

  int p_;
  int tree_;   // p', the largest power of two <= P
  int extra_;  // P - p'
  int bits_;   // s = log2 p'
};

class TreeTransfer final : public Schedule {
 public:
  TreeTransfer(ScheduleInfo info, std::unique_ptr<const TreeShape> shape, bool scatter)
      : Schedule(std::move(info)), shape_(std::move(shape)), scatter_(scatter) {}

  [[nodiscard]] int step_count(int rank) const override {
    Events events;
    shape_->events(relative(rank), events);
    return static_cast<int>(events.size());
  }

  void build_step(int rank, int step, Step& out) const override {
    Events events;
    shape_->events(relative(rank), events);
    const auto n = static_cast<int>(events.size());
    const TreeEvent& e = events.at(static_cast<std::size_t>(scatter_ ? n - 1 - step : step));
    const int peer = mod(e.peer + info().root, ranks());
    const BlockSet blocks = blocks_of(e.range);
    if (e.send != scatter_) {
      out.ops.push_back(Operation::send(peer, blocks));
    } else {
      out.ops.push_back(Operation::recv(peer, blocks, Combine::copy));
    }
  }

 private:
  [[nodiscard]] int relative(int rank) const { return mod(rank - info().root, ranks()); }

  [[nodiscard]] BlockSet blocks_of(RankRange r) const {
    const int p = ranks();
    const auto s = static_cast<BlockIndex>(info().blocks_per_chunk());
    const auto a = static_cast<BlockIndex>(mod(r.first + info().root, p));
    const auto end = a + static_cast<BlockIndex>(r.count);
    BlockSet out;
    if (end <= static_cast<BlockIndex>(p)) {
      out.add(a * s, end * s);
    } else {  // the range wraps: its low part comes first in slot order
      out.add(0, (end - static_cast<BlockIndex>(p)) * s);
      out.add(a * s, static_cast<BlockIndex>(p) * s);
    }
    return out;
  }

  std::unique_ptr<const TreeShape> shape_;
  bool scatter_;
};

SchedulePtr make_transfer(GatherTree tree, int ranks, int root, int blocks_per_rank, bool scatter) {
  ScheduleInfo info;
  info.collective = scatter ? Collective::scatter : Collective::gather;
  info.algorithm = std::string(gather_tree_name(tree));
  info.ranks = ranks;
  info.blocks = ranks * blocks_per_rank;
  info.root = root;
  info.dims = {ranks};
  std::unique_ptr<const TreeShape> shape;
  if (tree == GatherTree::binomial) {
    shape = std::make_unique<BinomialShape>(ranks);
  } else {
    shape = std::make_unique<BineShape>(ranks);
  }
  return std::make_unique<TreeTransfer>(std::move(info), std::move(shape), scatter);
}

}  // namespace

std::string_view gather_tree_name(GatherTree tree) {
  return tree == GatherTree::binomial ? "binomial" : "bine";
}

SchedulePtr make_gather(GatherTree tree, int ranks, int root, int blocks_per_rank) {
  return make_transfer(tree, ranks, root, blocks_per_rank, false);
}

SchedulePtr make_scatter(GatherTree tree, int ranks, int root, int blocks_per_rank) {
  return make_transfer(tree, ranks, root, blocks_per_rank, true);
}

}  // namespace topocoll::algorithms
