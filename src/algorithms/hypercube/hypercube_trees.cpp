#include "algorithms/hypercube/hypercube_trees.hpp"

#include <algorithm>
#include <bit>

#include "algorithms/hypercube/hypercube_common.hpp"

namespace topocoll::algorithms::hypercube {

EdgeDisjointTreesBroadcast::EdgeDisjointTreesBroadcast(ScheduleInfo info, int d, int packets)
    : Schedule(std::move(info)),
      d_(d),
      packets_(packets),
      last_level_(d > 1 ? d : 0),
      payload_(this->info().blocks) {}

int EdgeDisjointTreesBroadcast::step_count(int rank) const {
  // Every node but the root acts on the last level of some tree.
  return (rank ^ info().root) == 0 ? packets_ : span();
}

BlockSet EdgeDisjointTreesBroadcast::packet(int tree, int index, BlockIndex first_block) const {
  const BlockSet whole = slice(payload_, d_, tree);
  if (whole.empty()) return {};
  const BlockRange r = whole.ranges().front();
  const BlockSet part = slice(static_cast<int>(r.size()), packets_, index);
  if (part.empty()) return {};
  const BlockRange p = part.ranges().front();
  const BlockIndex base = first_block + r.begin;
  return BlockSet::range(base + p.begin, base + p.end);
}

void EdgeDisjointTreesBroadcast::tree_ops(unsigned relative, int rank, int k, int step,
                                          BlockIndex first_block, Step& out) const {
  // Packet p crosses the edges of level l in step p + l.
  auto at_level = [&](int level, int dim, bool send) {
    const int p = step - level;
    if (p < 0 || p >= packets_) return;
    BlockSet blocks = packet(k, p, first_block);
    if (blocks.empty()) return;
    const int peer = across(rank, dim);
    out.ops.push_back(send ? Operation::send(peer, std::move(blocks), dim)
                           : Operation::recv(peer, std::move(blocks), Combine::copy, dim));
  };
  const unsigned ek = 1u << k;
  if (relative == 0) return at_level(0, k, true);
  if ((relative & ek) == 0) return at_level(last_level_, k, false);
  // In the half with bit k set: a binomial tree from e_k over dimensions k+1, k+2, ...; the
  // level a node joins at is the rotated position of its last such dimension.
  const unsigned below = rotate_left(relative ^ ek, d_ - k, d_);
  const int joined = below == 0 ? 0 : std::bit_width(below) - 1;
  at_level(joined, (joined + k) % d_, false);
  const int first = std::max(joined + 1, step - packets_ + 1);
  const int last = std::min(d_ - 1, step);
  for (int level = first; level <= last; ++level) at_level(level, (level + k) % d_, true);
  if (below != 0) at_level(last_level_, k, true);
}

void EdgeDisjointTreesBroadcast::build_step(int rank, int step, Step& out) const {
  const auto relative = static_cast<unsigned>(rank ^ info().root);
  for (int k = 0; k < d_; ++k) tree_ops(relative, rank, k, step, 0, out);
}

void RotatedTreesBroadcast::build_step(int rank, int step, Step& out) const {
  const auto relative = static_cast<unsigned>(rank ^ info().root);
  for (int k = 0; k < d_; ++k) {
    BlockSet blocks = slice(info().blocks, d_, k);
    if (blocks.empty()) continue;
    const int dim = (k + step) % d_;
    const unsigned reached = rotated_dims(k, step, d_);  // the subcube holding slice k
    const int peer = across(rank, dim);
    if ((relative & ~reached) == 0) {
      out.ops.push_back(Operation::send(peer, std::move(blocks), dim));
    } else if (((relative ^ (1u << dim)) & ~reached) == 0) {
      out.ops.push_back(Operation::recv(peer, std::move(blocks), Combine::copy, dim));
    }
  }
}

void RotatedTreesScatter::build_step(int rank, int step, Step& out) const {
  const auto relative = static_cast<unsigned>(rank ^ info().root);
  for (int k = 0; k < d_; ++k) {
    const int dim = (k + step) % d_;
    const unsigned reached = rotated_dims(k, step, d_);
    // The dimensions still to come: the subcube behind the edge of this step.
    const unsigned behind = rotated_dims(k + step + 1, d_ - 1 - step, d_);
    const int peer = across(rank, dim);
    const bool sends = (relative & ~reached) == 0;
    if (!sends && ((relative ^ (1u << dim)) & ~reached) != 0) continue;
    BlockSet blocks;
    for_each_in_subcube(static_cast<unsigned>(sends ? peer : rank), behind,
                        [&](unsigned node) { blocks.add(node * d_ + k); });
    out.ops.push_back(sends ? Operation::send(peer, std::move(blocks), dim)
                            : Operation::recv(peer, std::move(blocks), Combine::copy, dim));
  }
}

namespace {

ScheduleInfo one_chunk(const ScheduleInfo& info) {
  ScheduleInfo out = info;
  out.collective = Collective::bcast;
  out.blocks = info.blocks_per_chunk();
  out.root = 0;
  return out;
}

}  // namespace

SequentialBroadcasts::SequentialBroadcasts(ScheduleInfo info, int d, int packets)
    : Schedule(info), one_(one_chunk(info), d, packets) {}

int SequentialBroadcasts::step_count(int rank) const {
  // The last broadcast's root finishes early.
  return (ranks() - 1) * one_.span() + (rank == ranks() - 1 ? one_.packets_ : one_.span());
}

void SequentialBroadcasts::build_step(int rank, int step, Step& out) const {
  const int root = step / one_.span();
  const auto first_block = static_cast<BlockIndex>(root * one_.payload_);
  for (int k = 0; k < one_.d_; ++k)
    one_.tree_ops(static_cast<unsigned>(rank ^ root), rank, k, step % one_.span(), first_block,
                  out);
}

}  // namespace topocoll::algorithms::hypercube
