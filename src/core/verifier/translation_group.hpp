#pragma once
// A group of translations acting on the ranks of a ring, torus or hypercube, and on blocks. A
// block is a copy index i < S and a position o < P (S blocks per rank), laid out owner-major
// (b = o * S + i) or copy-major (b = i * P + o, the sub-vectors of a schedule's lanes). The
// position belongs to a rank: o itself, or, for schedules that lay blocks out in digit-reversed
// order (recursive halving ends with block bitrev(r) at rank r, Trivance with the base-3
// reversal), the rank whose digits reversed give o. A translation g moves a position with its
// rank. The verifier uses it to check one block per orbit (symmetry_proof.hpp). The
// translations act freely, so each element is named by the rank it takes rank 0 to, and each
// rank r is element(r) applied to its orbit's representative.
//
// A schedule may also lay each copy's P positions out in an order of its own
// (Schedule::block_ranks: Swing's labels, Bine's sigma order). A translation then moves a
// position to where the translate of its rank sits. Such a move is only computed range by
// range when it keeps the aligned runs of radix^j positions together (each onto another aligned
// run), which `keeps_aligned_runs` checks position by position for a generator; compositions of
// such moves keep them too.
//
// Trivance's allreduce on a ring groups its blocks by rank residue modulo M = 3^t, the groups in
// an order of their own and each in rank order (RingLayout). With M dividing P, a translation
// moves a whole group onto another and rotates it, so a range of positions inside one group
// maps onto at most two ranges.
//
// The flow model has its own search for the translations of a run on a network
// (src/sim/translation_symmetry.*): it compares hashes of what the network sees of every step
// (peer offsets, byte counts), not blocks, so the verifier does not share it.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/block_set.hpp"
#include "core/operation.hpp"

namespace topocoll::detail {

enum class BlockLayout {
  owner_major,
  copy_major,
  copy_major_reversed,
  copy_major_relabelled,
  copy_major_residue_grouped
};

class TranslationGroup {
 public:
  // Translations of a torus of `sizes` (dimension 0 fastest in the rank number; a ring is
  // one size) by multiples of `periods` per dimension; each period divides its size. A
  // reversed layout needs a ring of radix^n ranks.
  static TranslationGroup torus(std::vector<int> sizes, std::vector<int> periods,
                                BlockLayout layout = BlockLayout::owner_major, int radix = 2);
  // Translations (XOR) of the binary cube of 2^bits ranks by the bits set in `moved`.
  static TranslationGroup hypercube(int bits, std::uint32_t moved,
                                    BlockLayout layout = BlockLayout::owner_major);
  // The same translations acting on blocks laid out copy-major, copy i's position o standing
  // for rank block_ranks[i * P + o]. Nullopt unless every copy is a permutation of the ranks
  // and P is a power of `radix`.
  [[nodiscard]] std::optional<TranslationGroup> with_block_ranks(
      const std::vector<int>& block_ranks, int radix) const;
  // The translations of a ring acting on blocks laid out copy-major, each copy grouped by rank
  // residue modulo some M that divides P (see above). Nullopt unless this is a ring and every
  // copy of block_ranks has that form.
  [[nodiscard]] std::optional<TranslationGroup> with_residue_groups(
      const std::vector<int>& block_ranks) const;
  // Whether element g maps every aligned run of radix^j positions of every copy onto an aligned
  // run (always, but for the relabelled layout).
  [[nodiscard]] bool keeps_aligned_runs(int g) const;
  // The same translations with other periods or moved bits.
  [[nodiscard]] TranslationGroup with_periods(std::vector<int> periods) const;
  [[nodiscard]] TranslationGroup with_moved(std::uint32_t moved) const;
  [[nodiscard]] const std::vector<int>& sizes() const { return sizes_; }
  [[nodiscard]] bool is_cube() const { return cube_; }

  [[nodiscard]] int ranks() const { return ranks_; }
  [[nodiscard]] std::int64_t order() const;
  // Element `g` (the rank it takes rank 0 to) applied to rank `r`.
  [[nodiscard]] int act(int g, int r) const;
  // The smallest rank of r's orbit, and the element that takes it to r.
  [[nodiscard]] int representative(int r) const;
  [[nodiscard]] int element(int r) const;
  // Slots that hold at least one block of every orbit of blocks (few when the group is large).
  [[nodiscard]] std::vector<BlockRange> orbit_blocks(int per_rank) const;
  // Element g applied to a block set of S blocks per rank (blocks past ranks * S have no
  // image: callers exclude schedules that use them). The result is normalized.
  [[nodiscard]] BlockSet act(int g, const BlockSet& blocks, int per_rank) const;
  // Element g applied to an operation: its peer and block sets move, the rest stays.
  [[nodiscard]] Operation act(int g, const Operation& op, int per_rank) const;
  // "translations of the ring of 8 by multiples of 2 (4 of them)"
  [[nodiscard]] std::string describe() const;

 private:
  TranslationGroup() = default;
  [[nodiscard]] int coordinate(int r, std::size_t d) const { return (r / strides_[d]) % sizes_[d]; }
  // Owners [o0, o1) moved by g, as block ranges appended to `out`.
  void act_owners(int g, int o0, int o1, int per_rank, BlockSet& out) const;
  // The longest run of radix^j positions (j <= digits) aligned at p inside [p, p1): (j, length).
  [[nodiscard]] std::pair<int, int> aligned_run(int p, int p1) const;
  // Positions [p0, p1) of digit-reversed blocks moved by g, offset by `base`.
  void act_reversed(int g, int p0, int p1, BlockIndex base, BlockSet& out) const;
  [[nodiscard]] int reverse(int x, int digits) const;
  [[nodiscard]] int position_owner(int o) const;
  // Positions [p0, p1) of relabelled copy `copy` moved by g, offset by `base`.
  void act_relabelled(int g, int copy, int p0, int p1, BlockIndex base, BlockSet& out) const;
  // Positions [p0, p1) of residue-grouped copy `copy` moved by g, offset by `base`.
  void act_residue_grouped(int g, int copy, int p0, int p1, BlockIndex base, BlockSet& out) const;
  // The rank position o of copy c stands for.
  [[nodiscard]] int position_rank(std::size_t copy, int o) const;
  [[nodiscard]] std::size_t copies_with_own_order() const;

  struct Relabelling {
    std::vector<std::vector<int>> rank_of;      // per copy: position -> rank
    std::vector<std::vector<int>> position_of;  // per copy: rank -> position
  };
  std::shared_ptr<const Relabelling> relabelling_;

  // Per copy: position k * length + q holds rank residue_of_group[k] + modulus * q.
  struct ResidueGroups {
    int modulus = 1, length = 1;
    std::vector<int> residue_of_group, group_of_residue;
  };
  std::shared_ptr<const std::vector<ResidueGroups>> residue_groups_;

  bool cube_ = false;
  BlockLayout layout_ = BlockLayout::owner_major;
  int radix_ = 2, digits_ = 0;  // reversed layouts: ranks = radix^digits
  int ranks_ = 1;
  std::vector<int> sizes_, strides_, periods_;  // torus
  std::uint32_t moved_ = 0;                     // hypercube
};

}  // namespace topocoll::detail
