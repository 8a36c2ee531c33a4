#include "algorithms/hierarchical/part_layout.hpp"

#include <algorithm>
#include <stdexcept>

namespace topocoll::algorithms::hierarchical {

PartLayout::PartLayout(LayoutKind kind, std::shared_ptr<const NodeMap> nodes, int inner_blocks,
                       int inner_slots, int per_chunk)
    : kind_(kind),
      nodes_(std::move(nodes)),
      inner_blocks_(inner_blocks),
      inner_slots_(std::max(inner_slots, inner_blocks)),
      per_chunk_(std::max(1, per_chunk)),
      blocks_(kind == LayoutKind::whole ? inner_blocks : inner_blocks * nodes_->per_node()) {
  if (kind_ == LayoutKind::node_chunks && !nodes_->nodes_are_rank_runs())
    throw std::logic_error("PartLayout: node chunks need nodes that are runs of ranks");
}

int PartLayout::scratch_width() const {
  return kind_ == LayoutKind::node_chunks ? nodes_->per_node() : 1;
}

int PartLayout::slots() const {
  if (inner_slots_ == inner_blocks_) return 0;
  return blocks_ + (inner_slots_ - inner_blocks_) * scratch_width();
}

void PartLayout::map_user_piece(int local, BlockIndex begin, BlockIndex end, BlockSet& out) const {
  const auto s = static_cast<BlockIndex>(per_chunk_);
  switch (kind_) {
    case LayoutKind::whole: out.add(begin, end); return;
    case LayoutKind::slice: {
      const auto offset = static_cast<BlockIndex>(local) * static_cast<BlockIndex>(inner_blocks_);
      out.add(offset + begin, offset + end);
      return;
    }
    case LayoutKind::rank_chunks: {
      // The piece lies inside inner chunk c (the caller splits at chunk boundaries).
      const auto c = static_cast<int>(begin / s);
      const auto base = static_cast<BlockIndex>(nodes_->rank_of(c, local)) * s;
      out.add(base + begin % s, base + begin % s + (end - begin));
      return;
    }
    case LayoutKind::node_chunks: {
      // Nodes are runs of ranks (checked at construction), so inner chunk c, the chunks of
      // node c's ranks, is one run of K * S blocks; each inner block widens to K blocks, which
      // keeps the order of blocks (schedules that move data between positions rely on it).
      const auto k = static_cast<BlockIndex>(nodes_->per_node());
      out.add(begin * k, end * k);
      return;
    }
  }
}

BlockSet PartLayout::map(int local, const BlockSet& inner) const {
  BlockSet out;
  const auto b_in = static_cast<BlockIndex>(inner_blocks_);
  const bool chunked = kind_ == LayoutKind::rank_chunks;
  const auto s = static_cast<BlockIndex>(per_chunk_);
  for (const BlockRange& r : inner.ranges()) {
    if (r.end > b_in) {
      // Scratch: one shared region after the composed vector.
      const BlockIndex lo = std::max(r.begin, b_in) - b_in;
      const BlockIndex hi = r.end - b_in;
      const auto w = static_cast<BlockIndex>(scratch_width());
      const auto base = static_cast<BlockIndex>(blocks_);
      out.add(base + lo * w, base + hi * w);
    }
    const BlockIndex user_end = std::min(r.end, b_in);
    for (BlockIndex b = r.begin; b < user_end;) {
      const BlockIndex end = chunked ? std::min(user_end, (b / s + 1) * s) : user_end;
      map_user_piece(local, b, end, out);
      b = end;
    }
  }
  out.normalize();
  return out;
}

BlockSet PartLayout::part(int local) const {
  return map(local, BlockSet::range(0, static_cast<BlockIndex>(inner_blocks_)));
}

BlockSet PartLayout::chunk_of(int rank) const {
  const auto s = static_cast<BlockIndex>(per_chunk_);
  return BlockSet::range(static_cast<BlockIndex>(rank) * s, static_cast<BlockIndex>(rank + 1) * s);
}

}  // namespace topocoll::algorithms::hierarchical
