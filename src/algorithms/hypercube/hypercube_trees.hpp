#pragma once
// Rooted spanning trees of a binary d-cube (cm200-all-to-all-tr0293.txt section 5, after
// Johnsson and Ho [14]). Ranks are node addresses; a tree rooted at R is the tree rooted at 0
// translated by xor with R, so a node works with its address relative to the root. Every
// message crosses one dimension on that dimension's port.
#include "core/schedule.hpp"

namespace topocoll::algorithms::hypercube {

// Broadcast of info.blocks from info.root over d directed-edge-disjoint spanning trees of
// height d + 1 (alternative 1). Tree k: the root sends to e_k; a binomial tree rooted at e_k,
// taking dimensions k+1, ..., k+d-1 (mod d) in turn, covers the half with bit k set; last,
// each of those nodes but e_k sends across dimension k. Tree k's edges across dimension j != k
// run from bit j = 0 to 1 inside that half, while tree j's run from 1 to 0 (or leave the root),
// so no directed channel carries two trees. Tree k owns slice k of the blocks, cut into
// `packets` packets that follow each other down the tree one step apart (pipelining).
class EdgeDisjointTreesBroadcast final : public Schedule {
 public:
  EdgeDisjointTreesBroadcast(ScheduleInfo info, int d, int packets);
  [[nodiscard]] int step_count(int rank) const override;
  void build_step(int rank, int step, Step& out) const override;
  // Steps of the whole broadcast (the root finishes earlier).
  [[nodiscard]] int span() const { return packets_ + last_level_; }

  // Tree k's operations at `step` for a node at `relative` address, over blocks offset by
  // `first_block` (a broadcast of one chunk inside a larger vector).
  void tree_ops(unsigned relative, int rank, int k, int step, BlockIndex first_block,
                Step& out) const;

 private:
  [[nodiscard]] BlockSet packet(int tree, int index, BlockIndex first_block) const;
  int d_;
  int packets_;
  int last_level_;  // d, or 0 when d = 1 (the one tree is a single edge)
  int payload_;     // blocks broadcast: the chunk size when embedded, else info.blocks
  friend class SequentialBroadcasts;
};

// Broadcast over d rotated spanning binomial trees (alternative 4): slice k of the blocks
// doubles along dimensions k, k+1, ... (mod d), so the d slices use d different dimensions in
// every step. d steps.
class RotatedTreesBroadcast final : public Schedule {
 public:
  RotatedTreesBroadcast(ScheduleInfo info, int d) : Schedule(std::move(info)), d_(d) {}
  [[nodiscard]] int step_count(int) const override { return d_; }
  void build_step(int rank, int step, Step& out) const override;

 private:
  int d_;
};

// Scatter over the same rotated binomial trees: part k of every chunk (block n*d + k, B = P*d)
// follows tree k; in step u a node that holds data passes across dimension (k + u) mod d the
// parts for the subcube behind that edge. d steps.
class RotatedTreesScatter final : public Schedule {
 public:
  RotatedTreesScatter(ScheduleInfo info, int d) : Schedule(std::move(info)), d_(d) {}
  [[nodiscard]] int step_count(int) const override { return d_; }
  void build_step(int rank, int step, Step& out) const override;

 private:
  int d_;
};

// Alternative 1 for all-to-all broadcast: the ranks broadcast their chunks (B = P * S) one
// after the other, rank 0 first, each over the edge-disjoint trees.
class SequentialBroadcasts final : public Schedule {
 public:
  SequentialBroadcasts(ScheduleInfo info, int d, int packets);
  [[nodiscard]] int step_count(int rank) const override;
  void build_step(int rank, int step, Step& out) const override;

 private:
  EdgeDisjointTreesBroadcast one_;  // the broadcast of one chunk, from root 0
};

}  // namespace topocoll::algorithms::hypercube
