#include "algorithms/hierarchical/intra_node.hpp"

#include <utility>

#include "core/rank_math.hpp"

namespace topocoll::algorithms::hierarchical {
namespace {

// A phase of at most one step per rank, given by the operations it fills in.
class NodeStep final : public Schedule {
 public:
  using Fill = std::function<void(int rank, Step& out)>;
  NodeStep(ScheduleInfo info, Fill fill) : Schedule(std::move(info)), fill_(std::move(fill)) {}
  [[nodiscard]] int step_count(int rank) const override {
    Step probe;
    fill_(rank, probe);
    return probe.empty() ? 0 : 1;
  }
  void build_step(int rank, int, Step& out) const override { fill_(rank, out); }

 private:
  Fill fill_;
};

int port_between(const NodeMap& nodes, int from_local, int to_local) {
  return mod(to_local - from_local - 1, nodes.per_node());
}

// Receives from the other ranks of the node into `blocks`, reducing in rank order: the
// node's ranks after `local` combine on the right (local-first), in increasing order, then
// those before it on the left (received-first), in decreasing order, so the result is
// x_0 ∘ x_1 ∘ ... ∘ x_{K-1} for any associative operator.
void reduce_from_node(const NodeMap& nodes, int rank, const BlockSet& blocks, Step& out) {
  const int n = nodes.node_of(rank);
  const int l = nodes.local_of(rank);
  const int k = nodes.per_node();
  auto receive = [&](int m, OperandOrder order) {
    out.ops.push_back(Operation::recv(nodes.rank_of(n, m), blocks, Combine::reduce,
                                      port_between(nodes, m, l), order));
  };
  for (int m = l + 1; m < k; ++m) receive(m, OperandOrder::local_first);
  for (int m = l - 1; m >= 0; --m) receive(m, OperandOrder::received_first);
}

// Receives a copy of each other rank's blocks of the node (`blocks` of that rank).
void copy_from_node(const NodeMap& nodes, int rank, const BlocksOf& blocks, Step& out) {
  const int n = nodes.node_of(rank);
  const int l = nodes.local_of(rank);
  for (int m = 0; m < nodes.per_node(); ++m) {
    if (m == l) continue;
    const int peer = nodes.rank_of(n, m);
    out.ops.push_back(
        Operation::recv(peer, blocks(peer), Combine::copy, port_between(nodes, m, l)));
  }
}

}  // namespace

RankFilter every_node() {
  return [](int) { return true; };
}

SchedulePtr reduce_scatter_in_nodes(ScheduleInfo info, std::shared_ptr<const NodeMap> nodes,
                                    BlocksOf part) {
  auto fill = [nodes, part](int rank, Step& out) {
    const int n = nodes->node_of(rank);
    const int l = nodes->local_of(rank);
    for (int m = 0; m < nodes->per_node(); ++m) {
      if (m == l) continue;
      const int peer = nodes->rank_of(n, m);
      out.ops.push_back(Operation::send(peer, part(peer), port_between(*nodes, l, m)));
    }
    reduce_from_node(*nodes, rank, part(rank), out);
  };
  return std::make_unique<NodeStep>(std::move(info), fill);
}

SchedulePtr allgather_in_nodes(ScheduleInfo info, std::shared_ptr<const NodeMap> nodes,
                               BlocksOf part, RankFilter complete) {
  auto fill = [nodes, part, complete](int rank, Step& out) {
    const int n = nodes->node_of(rank);
    const int l = nodes->local_of(rank);
    for (int m = 0; m < nodes->per_node(); ++m) {
      const int peer = nodes->rank_of(n, m);
      if (m == l || complete(peer)) continue;
      out.ops.push_back(Operation::send(peer, part(rank), port_between(*nodes, l, m)));
    }
    if (!complete(rank)) copy_from_node(*nodes, rank, part, out);
  };
  return std::make_unique<NodeStep>(std::move(info), fill);
}

SchedulePtr reduce_to_leader(ScheduleInfo info, std::shared_ptr<const NodeMap> nodes, int leader,
                             BlocksOf blocks) {
  auto fill = [nodes, leader, blocks](int rank, Step& out) {
    const int l = nodes->local_of(rank);
    if (l != leader) {
      const int to = nodes->rank_of(nodes->node_of(rank), leader);
      out.ops.push_back(Operation::send(to, blocks(rank), port_between(*nodes, l, leader)));
      return;
    }
    reduce_from_node(*nodes, rank, blocks(rank), out);
  };
  return std::make_unique<NodeStep>(std::move(info), fill);
}

SchedulePtr gather_to_leader(ScheduleInfo info, std::shared_ptr<const NodeMap> nodes, int leader,
                             BlocksOf blocks, RankFilter node_active) {
  auto fill = [nodes, leader, blocks, node_active](int rank, Step& out) {
    if (!node_active(rank)) return;
    const int n = nodes->node_of(rank);
    const int l = nodes->local_of(rank);
    if (l != leader) {
      out.ops.push_back(Operation::send(nodes->rank_of(n, leader), blocks(rank),
                                        port_between(*nodes, l, leader)));
      return;
    }
    copy_from_node(*nodes, rank, blocks, out);
  };
  return std::make_unique<NodeStep>(std::move(info), fill);
}

SchedulePtr send_from_leader(ScheduleInfo info, std::shared_ptr<const NodeMap> nodes, int leader,
                             BlocksOf blocks, RankFilter node_active) {
  auto fill = [nodes, leader, blocks, node_active](int rank, Step& out) {
    if (!node_active(rank)) return;
    const int n = nodes->node_of(rank);
    const int l = nodes->local_of(rank);
    if (l != leader) {
      out.ops.push_back(Operation::recv(nodes->rank_of(n, leader), blocks(rank), Combine::copy,
                                        port_between(*nodes, leader, l)));
      return;
    }
    for (int m = 0; m < nodes->per_node(); ++m) {
      if (m == l) continue;
      const int peer = nodes->rank_of(n, m);
      out.ops.push_back(Operation::send(peer, blocks(peer), port_between(*nodes, l, m)));
    }
  };
  return std::make_unique<NodeStep>(std::move(info), fill);
}

}  // namespace topocoll::algorithms::hierarchical
