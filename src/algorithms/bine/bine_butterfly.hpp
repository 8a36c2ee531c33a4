#pragma once
// Bine butterflies derived from their pruned trees, for any even ring size and any torus whose
// dimensions are all even (bine-trees-sc25.txt sections 3, 4.3, Appendices A, C, D).
//
// A Bine butterfly on an even ring pairs rank r with r + rho(k) (r even) or r - rho(k) (r odd)
// at a step of distance index k (negabinary.hpp). Seen from one root, the steps form a
// broadcast tree; a butterfly is the superposition of the trees of every root, shifted for even
// roots and mirrored for odd ones (section 3.1). With s = ceil(log2 d) steps on d ranks, the
// 2^s paths of a tree reach some ranks twice when d is not a power of two; Appendix C keeps
// the copy reached first and drops the later subtree. We build that pruned tree by flooding
// from the root (a holder sends to its peer only if the peer does not hold the data yet) and
// derive everything else from it, instead of from a closed form.
//
// The bandwidth-optimal allgather is then the union of the pruned broadcast trees of every
// block (block b's tree is rooted at rank b), and the reduce-scatter its time reversal: every
// block reaches (leaves) every rank exactly once, so both are correct for any even size and
// move the optimal volume. The default order uses distance-halving trees for the allgather
// (distance-doubling reduce-scatter, section 4.3); AllgatherOrder::distance_doubling gives the
// "two transmissions" variant, whose block sets are circular ranges.
//
// On a torus (Appendix D) each dimension is such a ring and the torus butterfly is their
// product, steps interleaved round-robin over the dimensions that still have steps; the product
// of the pruned ring trees is the pruned torus tree. A lane may start the round-robin at any
// dimension and may be mirrored (every coordinate x read as -x), giving the 2D concurrent
// collectives of D.4.
#include <cstdint>
#include <vector>

#include "core/block_set.hpp"

namespace topocoll::algorithms::bine {

enum class AllgatherOrder { distance_halving, distance_doubling };

// One ring of even size d >= 2 (or d = 1: no steps).
class BineRing {
 public:
  BineRing(int size, AllgatherOrder order);

  [[nodiscard]] int size() const { return size_; }
  [[nodiscard]] int steps() const { return steps_; }
  // Distance index of the allgather's ring-local step i.
  [[nodiscard]] int distance_index(int i) const;
  // Peer of coordinate x at the allgather's ring-local step i.
  [[nodiscard]] int peer(int x, int i) const;
  // Coordinate of x in the tree rooted at `root` (shift for an even root, mirror for an odd one).
  [[nodiscard]] int relative(int root, int x) const;
  // Allgather step at which the tree rooted at 0 reaches x (-1 for the root itself).
  [[nodiscard]] int arrival(int x) const { return arrival_[static_cast<std::size_t>(x)]; }
  // Bits of the reduce-scatter steps (ring-local index) on the path from root 0 to x in the
  // reduce-scatter's pruned tree (the v of section 3.2.1 when d is a power of two).
  [[nodiscard]] std::uint64_t scatter_path(int x) const {
    return scatter_path_[static_cast<std::size_t>(x)];
  }

  // The roots b whose tree reaches x at allgather step i, sorted ascending (appended to out).
  void reached_at(int x, int i, std::vector<int>& out) const;
  // The roots b whose tree reaches x before allgather step c (b = x included), sorted.
  void reached_before(int x, int c, std::vector<int>& out) const;

 private:
  static std::vector<std::int8_t> flood(int size, const std::vector<int>& distance_of_step,
                                        std::vector<std::uint64_t>* paths);

  int size_;
  int steps_;
  AllgatherOrder order_;
  std::vector<std::int8_t> arrival_;
  std::vector<std::uint64_t> scatter_path_;
  // by_step_[parity][i]: relative nodes of that parity reached at allgather step i, sorted.
  std::vector<std::vector<int>> by_step_[2];
};

// A (possibly 1D) torus of even dimensions as one Bine butterfly lane.
class BineGrid {
 public:
  struct Step {
    int dim;    // dimension this allgather step moves along
    int local;  // the ring's allgather-local step index
  };

  // dims: sizes, dimension 0 varies fastest; each size even, or 1 (no steps). start_dim: the
  // dimension of the reduce-scatter's first step. mirrored: every coordinate read as -x.
  BineGrid(std::vector<int> dims, AllgatherOrder order, int start_dim, bool mirrored);

  [[nodiscard]] int ranks() const { return ranks_; }
  [[nodiscard]] int steps() const { return static_cast<int>(schedule_.size()); }
  [[nodiscard]] bool power_of_two() const { return power_of_two_; }
  [[nodiscard]] const Step& allgather_step(int t) const {
    return schedule_[static_cast<std::size_t>(t)];
  }
  // The lane's own label of a rank or block (its mirror image when mirrored; an involution).
  [[nodiscard]] int inner(int rank) const;
  // Peer of rank r at allgather step t (the reduce-scatter's step S-1-t).
  [[nodiscard]] int allgather_peer(int rank, int t) const;

  // Blocks (one per rank, natural labels) rank r receives at allgather step t: the blocks whose
  // tree reaches r at that step. Appended to out, sorted.
  void received(int rank, int t, BlockSet& out) const;
  // The same set in "sigma space": block c of the lane sits at position sigma(inner(c)).
  void received_sigma(int rank, int t, BlockSet& out) const;

  // Reduce-scatter step at which the reduce-scatter-order tree rooted at 0 reaches the lane's
  // node (-1 for node 0): the pruned distance-doubling tree of the default order.
  [[nodiscard]] int scatter_arrival(int inner_node) const;
  // Reduce-scatter step t moves along dimension allgather_step(S-1-t).dim by distance
  // rho(scatter_distance(t)).
  [[nodiscard]] int scatter_distance(int t) const;
  [[nodiscard]] const std::vector<int>& dims() const { return dims_; }
  [[nodiscard]] int stride(int dim) const { return strides_[static_cast<std::size_t>(dim)]; }

  // sigma: DFS order of the reduce-scatter tree rooted at 0 (nodes sorted by the bit-reversed
  // global step bits of their path; Appendix D.2's postorder renumbering). For powers of two it
  // is nu of section 4.3.1 and makes every set above one aligned range.
  [[nodiscard]] int sigma(int inner_block) const {
    return sigma_[static_cast<std::size_t>(inner_block)];
  }
  [[nodiscard]] int sigma_inverse(int position) const {
    return sigma_inverse_[static_cast<std::size_t>(position)];
  }

 private:
  void coordinates(int rank, std::vector<int>& out) const;
  void build_order(int start_dim);
  void build_sigma();
  // Per-dimension sorted coordinate lists of the set, then their product (natural order).
  void per_dimension_sets(int inner_rank, int t, std::vector<std::vector<int>>& lists) const;

  std::vector<int> dims_;
  std::vector<int> strides_;
  std::vector<BineRing> rings_;
  int ranks_;
  bool mirrored_;
  bool power_of_two_;
  std::vector<Step> schedule_;                    // allgather order
  std::vector<std::vector<int>> done_before_;     // [t][dim]: ring steps of dim before step t
  std::vector<std::vector<int>> scatter_global_;  // [dim][ring-local scatter index] -> step
  std::vector<int> sigma_;
  std::vector<int> sigma_inverse_;
};

}  // namespace topocoll::algorithms::bine
