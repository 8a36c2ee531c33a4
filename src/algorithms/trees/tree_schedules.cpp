#include "algorithms/trees/tree_schedules.hpp"

#include <stdexcept>

#include "core/rank_math.hpp"

namespace topocoll::algorithms {
namespace {

BlockSet every_block(const ScheduleInfo& info) {
  return BlockSet::range(0, static_cast<BlockIndex>(info.blocks));
}

void check_fits(const Schedule& s, const Tree& tree) {
  if (tree.size() != s.ranks()) throw std::logic_error("tree and schedule disagree on ranks");
}

// Broadcast steps of `rank` run forward; reduce steps run the same edges backwards.
int reverse_step(const Tree& tree, int step) { return tree.steps() - 1 - step; }

}  // namespace

TreeBcast::TreeBcast(ScheduleInfo info, TreePtr tree)
    : Schedule(std::move(info)), tree_(std::move(tree)), all_(every_block(this->info())) {
  check_fits(*this, *tree_);
}

int TreeBcast::step_count(int rank) const { return tree_->last_step(rank) + 1; }

void TreeBcast::build_step(int rank, int step, Step& out) const {
  if (step == tree_->recv_step(rank)) {
    out.ops.push_back(Operation::recv(tree_->parent(rank), all_, Combine::copy));
    return;
  }
  if (const int child = tree_->child_at(rank, step); child >= 0)
    out.ops.push_back(Operation::send(child, all_));
}

TreeReduce::TreeReduce(ScheduleInfo info, TreePtr tree, int forward_to)
    : Schedule(std::move(info)),
      tree_(std::move(tree)),
      forward_to_(forward_to),
      all_(every_block(this->info())) {
  check_fits(*this, *tree_);
  ReductionOrder order = reduction_order(*tree_);
  order_ = std::move(order.order);
  rank_ordered_ = order.node_ordered;
  if (forward_to_ == tree_->root()) forward_to_ = -1;
}

int TreeReduce::step_count(int rank) const {
  const int t = tree_->steps();
  if (forward_to_ >= 0 && (rank == forward_to_ || rank == tree_->root())) return t + 1;
  return t - tree_->recv_step(rank) - (rank == tree_->root() ? 1 : 0);
}

void TreeReduce::build_step(int rank, int step, Step& out) const {
  const Tree& tree = *tree_;
  if (step == tree.steps()) {  // hand-over to the requested root
    if (rank == tree.root()) out.ops.push_back(Operation::send(forward_to_, all_));
    if (rank == forward_to_) out.ops.push_back(Operation::recv(tree.root(), all_, Combine::copy));
    return;
  }
  const int forward_step = reverse_step(tree, step);
  if (const int child = tree.child_at(rank, forward_step); child >= 0) {
    out.ops.push_back(Operation::recv(child, all_, Combine::reduce, 0, order_[child]));
  } else if (rank != tree.root() && forward_step == tree.recv_step(rank)) {
    out.ops.push_back(Operation::send(tree.parent(rank), all_));
  }
}

std::vector<int> late_first_preorder(const Tree& tree) {
  std::vector<int> order;
  order.reserve(static_cast<std::size_t>(tree.size()));
  std::vector<int> stack{tree.root()};
  while (!stack.empty()) {
    const int v = stack.back();
    stack.pop_back();
    order.push_back(v);
    // Pushed in ascending step order, so the latest child is visited first.
    for (const TreeEdge& e : tree.children(v)) stack.push_back(e.child);
  }
  return order;
}

SubtreeChunks::SubtreeChunks(TreePtr tree, std::vector<int> chunk_of, int blocks_per_chunk)
    : tree_(std::move(tree)), chunk_of_(std::move(chunk_of)), per_chunk_(blocks_per_chunk) {
  const int n = tree_->size();
  preorder_ = late_first_preorder(*tree_);
  first_.assign(static_cast<std::size_t>(n), 0);
  size_.assign(static_cast<std::size_t>(n), 1);
  for (int i = 0; i < n; ++i) first_[preorder_[i]] = i;
  for (int i = n - 1; i > 0; --i) size_[tree_->parent(preorder_[i])] += size_[preorder_[i]];
}

BlockSet SubtreeChunks::blocks_of_subtree(int v) const {
  BlockSet out;
  const auto s = static_cast<BlockIndex>(per_chunk_);
  for (int i = first_[v]; i < first_[v] + size_[v]; ++i) {
    const auto c = static_cast<BlockIndex>(chunk_of_[preorder_[i]]);
    out.add(c * s, (c + 1) * s);
  }
  out.normalize();
  return out;
}

Participants::Participants(int ranks, int root, int nodes)
    : ranks_(ranks), root_(root), nodes_(nodes) {
  if (nodes > ranks || 2 * nodes < ranks) throw std::logic_error("Participants: bad node count");
}

int Participants::relative(int rank) const { return mod(rank - root_, ranks_); }

int Participants::rank_of(int node) const {
  return mod(root_ + (node < pairs() ? 2 * node : node + pairs()), ranks_);
}

int Participants::node_of(int rank) const {
  const int u = relative(rank);
  if (u >= 2 * pairs()) return u - pairs();
  return u % 2 == 0 ? u / 2 : -1;
}

int Participants::fold_partner(int rank) const {
  const int u = relative(rank);
  if (u >= 2 * pairs()) return -1;
  return mod(root_ + (u % 2 == 0 ? u + 1 : u - 1), ranks_);
}

TreeScatter::TreeScatter(ScheduleInfo info, TreePtr tree, std::vector<int> chunk_of,
                         Participants where)
    : Schedule(std::move(info)),
      tree_(tree),
      chunks_(tree, std::move(chunk_of), this->info().blocks / tree->size()),
      where_(where) {}

int TreeScatter::step_count(int rank) const {
  const int v = where_.node_of(rank);
  return v < 0 ? 0 : tree_->last_step(v) + 1;
}

void TreeScatter::build_step(int rank, int step, Step& out) const {
  const int v = where_.node_of(rank);
  if (step == tree_->recv_step(v)) {
    out.ops.push_back(Operation::recv(where_.rank_of(tree_->parent(v)),
                                      chunks_.blocks_of_subtree(v), Combine::copy));
    return;
  }
  if (const int child = tree_->child_at(v, step); child >= 0)
    out.ops.push_back(Operation::send(where_.rank_of(child), chunks_.blocks_of_subtree(child)));
}

TreeGather::TreeGather(ScheduleInfo info, TreePtr tree, std::vector<int> chunk_of,
                       Participants where)
    : Schedule(std::move(info)),
      tree_(tree),
      chunks_(tree, std::move(chunk_of), this->info().blocks / tree->size()),
      where_(where) {}

int TreeGather::step_count(int rank) const {
  const int v = where_.node_of(rank);
  if (v < 0) return 0;
  return tree_->steps() - tree_->recv_step(v) - (v == tree_->root() ? 1 : 0);
}

void TreeGather::build_step(int rank, int step, Step& out) const {
  const int v = where_.node_of(rank);
  const int forward_step = reverse_step(*tree_, step);
  if (const int child = tree_->child_at(v, forward_step); child >= 0) {
    out.ops.push_back(
        Operation::recv(where_.rank_of(child), chunks_.blocks_of_subtree(child), Combine::copy));
  } else if (v != tree_->root() && forward_step == tree_->recv_step(v)) {
    out.ops.push_back(
        Operation::send(where_.rank_of(tree_->parent(v)), chunks_.blocks_of_subtree(v)));
  }
}

FoldStep::FoldStep(ScheduleInfo info, Participants where, Direction direction)
    : Schedule(std::move(info)),
      where_(where),
      direction_(direction),
      all_(every_block(this->info())) {}

int FoldStep::step_count(int rank) const { return where_.fold_partner(rank) >= 0 ? 1 : 0; }

void FoldStep::build_step(int rank, int, Step& out) const {
  const int partner = where_.fold_partner(rank);
  const bool folded = where_.node_of(rank) < 0;
  if (folded == (direction_ == Direction::in)) {
    out.ops.push_back(Operation::send(partner, all_));
  } else {
    // The representative stands for the lower rank of its pair: x_2i ∘ x_2i+1.
    const Combine combine = direction_ == Direction::in ? Combine::reduce : Combine::copy;
    out.ops.push_back(Operation::recv(partner, all_, combine, 0, OperandOrder::local_first));
  }
}

}  // namespace topocoll::algorithms
