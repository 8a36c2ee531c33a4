#include "algorithms/trees/tree_shape.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include "algorithms/common/negabinary.hpp"
#include "core/rank_math.hpp"

namespace topocoll::algorithms {

Tree::Tree(int nodes, int root)
    : root_(root),
      parent_(static_cast<std::size_t>(nodes), -1),
      recv_step_(static_cast<std::size_t>(nodes), -1) {}

void Tree::add_edge(int parent, int child, int step) { pending_.push_back({parent, child, step}); }

void Tree::finalize() {
  const int n = size();
  auto fail = [](const std::string& why) { throw std::logic_error("tree construction: " + why); };
  offsets_.assign(static_cast<std::size_t>(n) + 1, 0);
  for (const Pending& e : pending_) {
    if (e.child == root_ || parent_[e.child] != -1) fail("node reached twice");
    parent_[e.child] = e.parent;
    recv_step_[e.child] = e.step;
    ++offsets_[e.parent + 1];
  }
  if (static_cast<int>(pending_.size()) != n - 1) fail("tree does not span every node");
  for (int v = 0; v < n; ++v) offsets_[v + 1] += offsets_[v];
  edges_.assign(pending_.size(), {});
  std::vector<int> fill(offsets_.begin(), offsets_.end() - 1);
  steps_ = 0;
  for (const Pending& e : pending_) {
    if (e.step <= recv_step_[e.parent]) fail("a node sends before it joins");
    edges_[fill[e.parent]++] = {e.child, e.step};
    steps_ = std::max(steps_, e.step + 1);
  }
  pending_.clear();
  pending_.shrink_to_fit();
  for (int v = 0; v < n; ++v) {
    auto first = edges_.begin() + offsets_[v];
    auto last = edges_.begin() + offsets_[v + 1];
    std::sort(first, last, [](const TreeEdge& a, const TreeEdge& b) { return a.step < b.step; });
    if (std::adjacent_find(first, last, [](const TreeEdge& a, const TreeEdge& b) {
          return a.step == b.step;
        }) != last)
      fail("a node sends twice in one step");
  }
}

std::span<const TreeEdge> Tree::children(int v) const {
  return {edges_.data() + offsets_[v], edges_.data() + offsets_[v + 1]};
}

int Tree::child_at(int v, int step) const {
  const auto kids = children(v);
  const auto it = std::lower_bound(kids.begin(), kids.end(), step,
                                   [](const TreeEdge& e, int s) { return e.step < s; });
  return it != kids.end() && it->step == step ? it->child : -1;
}

int Tree::last_step(int v) const {
  const auto kids = children(v);
  return kids.empty() ? recv_step_[v] : kids.back().step;
}

Tree Tree::relabeled(const std::vector<int>& label) const {
  Tree out(size(), label[root_]);
  for (int v = 0; v < size(); ++v)
    for (const TreeEdge& e : children(v)) out.add_edge(label[v], label[e.child], e.step);
  out.finalize();
  return out;
}

namespace {

struct Virtual {
  long long id;
  int joined;
};

// Grows a tree step by step from virtual node 0 (section 2.3.2): at step j every node that
// already holds the data sends to child(x, j). Virtual nodes fold onto n nodes through
// node_of(x); a node reached a second time keeps the subtree reached first (Appendix C).
template <class Child, class NodeOf>
Tree grow(int n, int steps, Child child, NodeOf node_of) {
  Tree tree(n, 0);
  std::vector<char> reached(static_cast<std::size_t>(n), 0);
  reached[0] = 1;
  std::vector<Virtual> nodes{{0, -1}};
  for (int j = 0; j < steps; ++j) {
    const std::size_t senders = nodes.size();  // nodes added below join at j and wait
    for (std::size_t k = 0; k < senders; ++k) {
      const Virtual x = nodes[k];
      const std::optional<long long> c = child(x.id, j);
      if (!c) continue;
      const int v = node_of(*c);
      if (v < 0 || reached[v]) continue;
      reached[v] = 1;
      tree.add_edge(node_of(x.id), v, j);
      nodes.push_back({*c, j});
    }
  }
  tree.finalize();
  return tree;
}

int steps_for(int n) { return ceil_log(n, 2); }

// Odd n: the even tree on nodes 0..n-2, then the root serves node n-1 (its neighbour on the
// ring) in one more step.
Tree with_extra_node(const Tree& even) {
  const int n = even.size() + 1;
  Tree tree(n, 0);
  for (int v = 0; v < even.size(); ++v)
    for (const TreeEdge& e : even.children(v)) tree.add_edge(v, e.child, e.step);
  tree.add_edge(0, n - 1, even.steps());
  tree.finalize();
  return tree;
}

Tree single_node() {
  Tree tree(1, 0);
  tree.finalize();
  return tree;
}

}  // namespace

Tree binomial_halving_tree(int n) {
  const int s = steps_for(n);
  // MPICH order: the root first serves the node 2^(s-1) away; x sends below its lowest set bit.
  return grow(
      n, s,
      [&](long long x, int j) -> std::optional<long long> {
        const long long c = x + (1LL << (s - 1 - j));
        return c < n ? std::optional<long long>(c) : std::nullopt;
      },
      [](long long x) { return static_cast<int>(x); });
}

Tree binomial_doubling_tree(int n) {
  // Open MPI order: at step j every node x < 2^j serves x + 2^j.
  return grow(
      n, steps_for(n),
      [&](long long x, int j) -> std::optional<long long> {
        const long long c = x + (1LL << j);
        return c < n ? std::optional<long long>(c) : std::nullopt;
      },
      [](long long x) { return static_cast<int>(x); });
}

Tree bine_halving_tree(int n) {
  if (n == 1) return single_node();
  if (n % 2 == 1) return with_extra_node(bine_halving_tree(n - 1));
  const int s = steps_for(n);
  // Virtual nodes are s-digit negabinary strings; at step j a node flips its s - j low digits
  // (Eq. 1). Values outside [0, n) stand for the rank value mod n (section 2.3.1).
  return grow(
      n, s,
      [&](long long x, int j) -> std::optional<long long> {
        return static_cast<long long>(static_cast<std::uint64_t>(x) ^ ((1ULL << (s - j)) - 1));
      },
      [&](long long x) { return mod(negabinary::decode(static_cast<std::uint64_t>(x)), n); });
}

Tree bine_doubling_tree(int n) {
  if (n == 1) return single_node();
  if (n % 2 == 1) return with_extra_node(bine_doubling_tree(n - 1));
  // Appendix A, Eq. 5: at step j even nodes serve x + rho(j), odd nodes x - rho(j). Virtual
  // nodes are unwrapped integers so duplicates are found after folding mod n.
  return grow(
      n, steps_for(n),
      [](long long x, int j) -> std::optional<long long> {
        return (x & 1) == 0 ? x + negabinary::rho(j) : x - negabinary::rho(j);
      },
      [&](long long x) { return mod(x, n); });
}

Tree placed(const Tree& shape, int root, bool mirrored) {
  const int n = shape.size();
  std::vector<int> label(static_cast<std::size_t>(n));
  for (int v = 0; v < n; ++v) label[v] = mod(mirrored ? root - v : root + v, n);
  return shape.relabeled(label);
}

namespace {

struct Range {
  long long first;
  long long count;
};

// Joins `child` to `node`: after it (local_first) or before it (received_first). When the two
// close the circle, the join that makes the range start at node 0 wins.
OperandOrder join(Range& node, const Range& child, long long n, bool& node_ordered) {
  const bool after = mod(node.first + node.count, n) == child.first;
  const bool before = mod(child.first + child.count, n) == node.first;
  const bool prepend = before && (!after || child.first == 0);
  if (!after && !before) node_ordered = false;  // not adjacent: commutative operators only
  if (prepend) node.first = child.first;
  node.count += child.count;
  if (node.first + node.count > n) node_ordered = false;
  return prepend ? OperandOrder::received_first : OperandOrder::local_first;
}

}  // namespace

ReductionOrder reduction_order(const Tree& tree) {
  const int n = tree.size();
  ReductionOrder out;
  out.order.assign(static_cast<std::size_t>(n), OperandOrder::local_first);
  std::vector<Range> range(static_cast<std::size_t>(n));
  for (int v = 0; v < n; ++v) range[v] = {v, 1};
  // Children join later than their parents, so ascending join steps visit leaves last; walk
  // backwards so every child's range is complete before its parent merges it.
  std::vector<int> by_join(static_cast<std::size_t>(n));
  for (int v = 0; v < n; ++v) by_join[v] = v;
  std::stable_sort(by_join.begin(), by_join.end(),
                   [&](int a, int b) { return tree.recv_step(a) < tree.recv_step(b); });
  for (auto it = by_join.rbegin(); it != by_join.rend(); ++it) {
    const int v = *it;
    const auto kids = tree.children(v);
    for (auto k = kids.rbegin(); k != kids.rend(); ++k)  // reduce time: last step first
      out.order[k->child] = join(range[v], range[k->child], n, out.node_ordered);
  }
  out.root_first = static_cast<int>(range[tree.root()].first);
  return out;
}

}  // namespace topocoll::algorithms
