#pragma once
// Rooted spanning trees whose edges carry the step, in broadcast order, at which they move data:
// binomial trees in the distance-halving and distance-doubling orders (bine-trees-sc25.txt
// section 1, Fig. 1, section 2.1) and Bine trees (sections 2.3, 3.2, Appendix A), with the
// duplicate-subtree removal of Appendix C for non-powers of two. Trees are explicit (O(P) memory,
// built in O(P log P)), so schedules read a rank's edges in O(log P).
#include <span>
#include <vector>

#include "core/operation.hpp"

namespace topocoll::algorithms {

struct TreeEdge {
  int child = 0;
  int step = 0;
};

class Tree {
 public:
  Tree() = default;
  Tree(int nodes, int root);

  // Edges may arrive in any order; finalize() sorts them and checks the invariants.
  void add_edge(int parent, int child, int step);
  // Checks that the tree spans every node, that a child joins after its parent and that a node
  // sends at most once per step; throws std::logic_error otherwise (a construction bug).
  void finalize();

  [[nodiscard]] int size() const { return static_cast<int>(parent_.size()); }
  [[nodiscard]] int root() const { return root_; }
  [[nodiscard]] int steps() const { return steps_; }
  [[nodiscard]] int parent(int v) const { return parent_[v]; }
  [[nodiscard]] int recv_step(int v) const { return recv_step_[v]; }  // -1 for the root
  // Children in ascending step order.
  [[nodiscard]] std::span<const TreeEdge> children(int v) const;
  [[nodiscard]] int child_at(int v, int step) const;  // -1 if v does not send at `step`
  // Last step in which v sends or receives (-1 for an isolated root).
  [[nodiscard]] int last_step(int v) const;

  // The same tree with node v renamed label[v] (a permutation).
  [[nodiscard]] Tree relabeled(const std::vector<int>& label) const;

 private:
  int root_ = 0;
  int steps_ = 0;
  std::vector<int> parent_;
  std::vector<int> recv_step_;
  std::vector<int> offsets_;  // CSR over edges_, size() + 1 entries after finalize
  std::vector<TreeEdge> edges_;
  struct Pending {
    int parent, child, step;
  };
  std::vector<Pending> pending_;
};

// Trees on n nodes rooted at node 0, nodes numbered as relative ranks. They serve every n >= 1.
// Binomial: node x joins at the step of its lowest (halving) or highest (doubling) set bit.
[[nodiscard]] Tree binomial_halving_tree(int n);
[[nodiscard]] Tree binomial_doubling_tree(int n);
// Bine (Listing 1 / Eq. 5): even n natively (Appendix C: a rank reached twice keeps the subtree
// reached first); odd n as a tree on n - 1 nodes plus one last step in which the root serves
// node n - 1 (the standard technique of Appendix C).
[[nodiscard]] Tree bine_halving_tree(int n);
[[nodiscard]] Tree bine_doubling_tree(int n);

// `shape` (rooted at node 0) placed on a ring of `ranks` with its root on `root`; a mirrored
// placement runs it in the opposite direction (Bine butterflies, section 3.1).
[[nodiscard]] Tree placed(const Tree& shape, int root, bool mirrored = false);

// How a reduction along the tree combines operands (reduce time runs the edges from the last
// step to the first). Each partial result covers a circular range of nodes; a child's range
// that ends right before the node's range is prepended (received_first), one that starts right
// after is appended (local_first).
struct ReductionOrder {
  std::vector<OperandOrder> order;  // indexed by child: how its parent combines it
  int root_first = 0;               // first node of the root's final range
  // Every merge joined adjacent ranges without wrapping past node 0: the root holds
  // x_0 ∘ x_1 ∘ ... ∘ x_{n-1} in node order.
  bool node_ordered = true;
};
[[nodiscard]] ReductionOrder reduction_order(const Tree& tree);

}  // namespace topocoll::algorithms
