#pragma once
// Where the ranks of a composed schedule sit: P = N nodes x K ranks per node. A rank is a
// (node, local index) pair; the compositions ask this map and never assume a formula, so a
// cyclic or file-given mapping is one more implementation.
namespace topocoll::algorithms::hierarchical {

class NodeMap {
 public:
  NodeMap(int nodes, int per_node) : nodes_(nodes), per_node_(per_node) {}
  virtual ~NodeMap() = default;
  [[nodiscard]] int nodes() const { return nodes_; }
  [[nodiscard]] int per_node() const { return per_node_; }
  [[nodiscard]] int ranks() const { return nodes_ * per_node_; }
  [[nodiscard]] virtual int node_of(int rank) const = 0;
  [[nodiscard]] virtual int local_of(int rank) const = 0;
  [[nodiscard]] virtual int rank_of(int node, int local) const = 0;
  // Whether rank order is (node, local) order: a node's ranks are consecutive. Then a node's
  // partial result is a contiguous run of ranks, and combining partial results in node order
  // keeps the rank order a non-commutative operator needs.
  [[nodiscard]] virtual bool nodes_are_rank_runs() const = 0;

 private:
  int nodes_;
  int per_node_;
};

// Rank r on node r / K with local index r % K (the usual launcher default: --map-by node
// blocks, Slurm's block distribution).
class BlockedNodes final : public NodeMap {
 public:
  using NodeMap::NodeMap;
  [[nodiscard]] int node_of(int rank) const override { return rank / per_node(); }
  [[nodiscard]] int local_of(int rank) const override { return rank % per_node(); }
  [[nodiscard]] int rank_of(int node, int local) const override {
    return node * per_node() + local;
  }
  [[nodiscard]] bool nodes_are_rank_runs() const override { return true; }
};

}  // namespace topocoll::algorithms::hierarchical
