#include "algorithms/swing/swing_lanes.hpp"

#include <numeric>
#include <stdexcept>

#include "algorithms/common/torus_coordinates.hpp"
#include "core/rank_math.hpp"

namespace topocoll::algorithms::swing {
namespace {

std::vector<int> shape_of(const ScheduleInfo& info) {
  return info.dims.empty() ? std::vector<int>{info.ranks} : info.dims;
}

bool is_whole(const BlockSet& set, int size) {
  return set.range_count() == 1 &&
         set.ranges().front() == BlockRange{0, static_cast<BlockIndex>(size)};
}

}  // namespace

std::vector<LaneStep> dimension_order(const std::vector<int>& steps_per_dim, int start) {
  const int d = static_cast<int>(steps_per_dim.size());
  std::vector<int> done(d, 0);
  int remaining = std::accumulate(steps_per_dim.begin(), steps_per_dim.end(), 0);
  std::vector<LaneStep> out;
  for (int k = start % d; remaining > 0; k = (k + 1) % d) {
    if (done[k] == steps_per_dim[k]) continue;
    out.push_back({k, done[k]++});
    --remaining;
  }
  return out;
}

TorusLane::TorusLane(ScheduleInfo info, std::vector<std::shared_ptr<const Line>> lines, int start,
                     Blocks blocks)
    : Schedule(std::move(info)),
      dims_(shape_of(this->info())),
      lines_(std::move(lines)),
      blocks_(blocks) {
  const int d = static_cast<int>(dims_.size());
  if (static_cast<int>(lines_.size()) != d) throw std::logic_error("TorusLane: one line per dim");
  BlockIndex stride = 1;
  std::vector<int> steps(d);
  for (int k = 0; k < d; ++k) {
    strides_.push_back(stride);
    stride *= static_cast<BlockIndex>(dims_[k]);
    steps[k] = lines_[k]->steps();
  }
  order_ = dimension_order(steps, start);
  std::vector<int> done(d, 0);
  for (int t = 0; t < static_cast<int>(order_.size()); ++t) {
    progress_.insert(progress_.end(), done.begin(), done.end());
    const LaneStep s = order_[t];
    ++done[s.dim];
    for (int sub = 0; sub < lines_[s.dim]->width(s.local); ++sub) position_.push_back({t, sub});
  }
}

void TorusLane::build_step(int rank, int step, Step& out) const {
  const Position pos = position_[step];
  const LaneStep s = order_[pos.logical];
  const int d = static_cast<int>(dims_.size());
  const std::vector<int> x = torus_coordinates(rank, dims_);
  std::vector<LineOp> ops;
  lines_[s.dim]->ops(x[s.dim], s.local, pos.sub, ops);
  if (ops.empty()) return;
  // The blocks of the other dimensions this node still holds; a node that holds none of some
  // dimension (the extra node of an odd line, a folded-out node) sits the step out, and so
  // does its peer, which shares that coordinate.
  std::vector<BlockSet> held(d);
  std::vector<const BlockSet*> sets(d);
  for (int j = 0; j < d; ++j) {
    if (j == s.dim) continue;
    held[j] = lines_[j]->held(x[j], progress_[pos.logical * d + j]);
    if (held[j].empty()) return;
    sets[j] = &held[j];
  }
  for (LineOp& op : ops) {
    if (op.coords.empty()) continue;
    BlockSet blocks;
    if (blocks_ == Blocks::whole_vector) {
      blocks = BlockSet::single(0);
    } else if (d == 1) {
      blocks = std::move(op.coords);
    } else {
      sets[s.dim] = &op.coords;
      product(sets, blocks);
    }
    const int peer_rank = rank + (op.peer - x[s.dim]) * static_cast<int>(strides_[s.dim]);
    if (op.kind == OpKind::send) {
      out.ops.push_back(Operation::send(peer_rank, std::move(blocks)));
    } else {
      out.ops.push_back(Operation::recv(peer_rank, std::move(blocks), op.combine));
    }
  }
}

void TorusLane::product(const std::vector<const BlockSet*>& sets, BlockSet& out) const {
  const int d = static_cast<int>(dims_.size());
  // Leading dimensions taken whole fuse with the first partial one into longer ranges.
  int fused = 0;
  while (fused < d && is_whole(*sets[fused], dims_[fused])) ++fused;
  if (fused == d) {
    out.add(0, strides_.back() * static_cast<BlockIndex>(dims_.back()));
    return;
  }
  product_from(sets, fused, d - 1, 0, out);
}

void TorusLane::product_from(const std::vector<const BlockSet*>& sets, int fused, int dim,
                             BlockIndex base, BlockSet& out) const {
  const BlockIndex stride = strides_[dim];
  for (const BlockRange& r : sets[dim]->ranges()) {
    if (dim == fused) {
      out.add(base + r.begin * stride, base + r.end * stride);
      continue;
    }
    for (BlockIndex c = r.begin; c < r.end; ++c)
      product_from(sets, fused, dim - 1, base + c * stride, out);
  }
}

LabelLane::LabelLane(ScheduleInfo info, int start, bool mirrored)
    : Schedule(std::move(info)), dims_(shape_of(this->info())), mirrored_(mirrored) {
  int stride = 1;
  for (int size : dims_) {
    strides_.push_back(stride);
    stride *= size;
    if (size & (size - 1)) throw std::logic_error("LabelLane needs powers of two");
    log_dims_.push_back(ceil_log(size, 2));
    std::vector<std::uint32_t> labels(size);
    for (int x = 0; x < size; ++x) labels[x] = label(x, size, mirrored);
    labels_.push_back(std::move(labels));
  }
  order_ = dimension_order(log_dims_, start);
}

std::uint32_t LabelLane::label_of(const std::vector<int>& coords) const {
  std::uint32_t out = 0;
  for (const LaneStep& s : order_) {
    const std::uint32_t own = labels_[s.dim][coords[s.dim]];
    out = (out << 1) | ((own >> (log_dims_[s.dim] - 1 - s.local)) & 1U);
  }
  return out;
}

std::vector<int> LabelLane::block_ranks() const {
  std::vector<int> out(static_cast<std::size_t>(ranks()));
  for (int r = 0; r < ranks(); ++r) out[label_of(torus_coordinates(r, dims_))] = r;
  return out;
}

void LabelLane::build_step(int rank, int step, Step& out) const {
  const LaneStep s = order_[step];
  std::vector<int> x = torus_coordinates(rank, dims_);
  const int own = x[s.dim];
  const int other = peer(own, s.local, dims_[s.dim], mirrored_);
  const std::uint32_t mine = label_of(x);
  x[s.dim] = other;
  const std::uint32_t theirs = label_of(x);
  // After this step each side holds the labels that share its top step+1 bits.
  const int low = static_cast<int>(order_.size()) - 1 - step;
  auto block_of = [low](std::uint32_t l) {
    const BlockIndex first = (l >> low) << low;
    return BlockSet::range(first, first + (BlockIndex{1} << low));
  };
  const int peer_rank = rank + (other - own) * strides_[s.dim];
  out.ops.push_back(Operation::send(peer_rank, block_of(theirs)));
  out.ops.push_back(Operation::recv(peer_rank, block_of(mine), Combine::reduce));
}

Reversed::Reversed(ScheduleInfo info, SchedulePtr forward)
    : Schedule(std::move(info)), forward_(std::move(forward)) {}

void Reversed::build_step(int rank, int step, Step& out) const {
  forward_->build_step(rank, forward_->step_count(rank) - 1 - step, out);
  for (Operation& op : out.ops) {
    if (op.kind == OpKind::copy)
      throw std::logic_error("Reversed: local copies are not reversible");
    op.kind = op.kind == OpKind::send ? OpKind::recv : OpKind::send;
    op.combine = Combine::copy;
  }
}

}  // namespace topocoll::algorithms::swing
