#pragma once
// Schedules that run one collective along a Tree whose nodes are ranks. Steps are aligned with
// the tree's steps (a rank idle in a step has an empty one), so several trees can run
// concurrently as lanes (Appendix D.4) without deadlock.
#include <memory>

#include "algorithms/trees/tree_shape.hpp"
#include "core/schedule.hpp"

namespace topocoll::algorithms {

using TreePtr = std::shared_ptr<const Tree>;

// Broadcast of all B blocks from the tree's root: one message per edge (Listing 1).
class TreeBcast final : public Schedule {
 public:
  TreeBcast(ScheduleInfo info, TreePtr tree);
  [[nodiscard]] int step_count(int rank) const override;
  void build_step(int rank, int step, Step& out) const override;

 private:
  TreePtr tree_;
  BlockSet all_;
};

// Reduction of all B blocks to the tree's root, running the broadcast edges backwards in time;
// then, if forward_to differs from the tree's root, one more step hands the result over (how
// rank order is kept for non-commutative operators when the ordered tree is rooted elsewhere).
class TreeReduce final : public Schedule {
 public:
  TreeReduce(ScheduleInfo info, TreePtr tree, int forward_to);
  [[nodiscard]] int step_count(int rank) const override;
  void build_step(int rank, int step, Step& out) const override;
  // Whether the root combines every contribution in rank order.
  [[nodiscard]] bool rank_ordered() const { return rank_ordered_; }

 private:
  TreePtr tree_;
  int forward_to_;
  BlockSet all_;
  std::vector<OperandOrder> order_;
  bool rank_ordered_ = false;
};

// Where the n nodes of a tree (or butterfly) rooted at node 0 run among P >= n ranks: node c
// runs on rank root + (c < x ? 2c : c + x) with x = P - n, so ranks root + 2i + 1 (i < x) are
// folded onto root + 2i (Appendix C, "the standard techniques"). With n = P it is the rotation
// of section 2.2.
class Participants {
 public:
  Participants(int ranks, int root, int nodes);
  static Participants identity(int ranks) { return {ranks, 0, ranks}; }
  [[nodiscard]] int ranks() const { return ranks_; }
  [[nodiscard]] int nodes() const { return nodes_; }
  [[nodiscard]] int pairs() const { return ranks_ - nodes_; }
  [[nodiscard]] int rank_of(int node) const;
  [[nodiscard]] int node_of(int rank) const;  // -1 for a folded rank
  // A folded rank's representative, a representative's folded rank; -1 outside pairs.
  [[nodiscard]] int fold_partner(int rank) const;

 private:
  [[nodiscard]] int relative(int rank) const;
  int ranks_;
  int root_;
  int nodes_;
};

// Block chunks of a scatter or gather along a tree: node v's chunk is chunk(v); a message to
// (from) a child carries the chunks of the child's whole subtree.
class SubtreeChunks {
 public:
  // chunk_of[v]: the chunk index of node v; blocks_per_chunk blocks per chunk.
  SubtreeChunks(TreePtr tree, std::vector<int> chunk_of, int blocks_per_chunk);
  [[nodiscard]] BlockSet blocks_of_subtree(int v) const;

 private:
  TreePtr tree_;
  std::vector<int> chunk_of_;
  int per_chunk_;
  std::vector<int> preorder_;  // subtree of v = preorder_[first_[v], first_[v] + size_[v])
  std::vector<int> first_;
  std::vector<int> size_;
};

// Scatter: the root starts with every chunk; each node ends with its own (chunk_of[node]).
// Tree nodes run on ranks as `where` says; folded ranks take no part.
class TreeScatter final : public Schedule {
 public:
  TreeScatter(ScheduleInfo info, TreePtr tree, std::vector<int> chunk_of, Participants where);
  [[nodiscard]] int step_count(int rank) const override;
  void build_step(int rank, int step, Step& out) const override;

 private:
  TreePtr tree_;
  SubtreeChunks chunks_;
  Participants where_;
};

// Gather: the reverse of TreeScatter.
class TreeGather final : public Schedule {
 public:
  TreeGather(ScheduleInfo info, TreePtr tree, std::vector<int> chunk_of, Participants where);
  [[nodiscard]] int step_count(int rank) const override;
  void build_step(int rank, int step, Step& out) const override;

 private:
  TreePtr tree_;
  SubtreeChunks chunks_;
  Participants where_;
};

// The folding steps around a collective run by Participants: before a reduction each folded
// rank hands its whole vector to its representative (`in`); after a broadcast the
// representative hands the result back (`out`). One step, ranks outside pairs have none.
class FoldStep final : public Schedule {
 public:
  enum class Direction { in, out };
  FoldStep(ScheduleInfo info, Participants where, Direction direction);
  [[nodiscard]] int step_count(int rank) const override;
  void build_step(int rank, int step, Step& out) const override;

 private:
  Participants where_;
  Direction direction_;
  BlockSet all_;
};

// A preorder of the tree in which each node's children come from the last step to the first:
// subtrees are contiguous in it, and for a distance-doubling Bine tree on a power of two it is
// the bit-reversed v(r) of section 4.3.1 ("Permute"), so the matching butterflies send
// contiguous blocks too.
[[nodiscard]] std::vector<int> late_first_preorder(const Tree& tree);

}  // namespace topocoll::algorithms
