#include "algorithms/common/fold.hpp"

#include <stdexcept>
#include <string>

#include "core/rank_math.hpp"

namespace topocoll::algorithms {
namespace {

bool is_chunked(Collective c) {
  return c == Collective::reduce_scatter || c == Collective::allgather;
}

bool is_foldable(Collective c) { return c == Collective::allreduce || is_chunked(c); }

void check_sizes(int ranks, int inner_ranks) {
  if (inner_ranks < 1 || inner_ranks >= ranks || ranks > 2 * inner_ranks) {
    throw std::logic_error("fold: needs P' < P <= 2 P' (got P = " + std::to_string(ranks) +
                           ", P' = " + std::to_string(inner_ranks) + ")");
  }
}

int chunk_size(const ScheduleInfo& inner) {
  if (!is_chunked(inner.collective)) return 0;
  if (inner.blocks % inner.ranks != 0 || inner.blocks == 0)
    throw std::logic_error("fold: the inner chunked schedule must have P' * S blocks");
  if (inner.total_slots() != inner.user_slots())
    throw std::logic_error("fold: a chunked inner schedule must not use scratch slots");
  return inner.blocks / inner.ranks;
}

ScheduleInfo folded_info(const Schedule& inner, int ranks) {
  const ScheduleInfo& in = inner.info();
  if (!is_foldable(in.collective)) {
    throw std::logic_error("fold: supports allreduce, reduce-scatter and allgather, not " +
                           std::string(collective_name(in.collective)));
  }
  check_sizes(ranks, in.ranks);
  ScheduleInfo info = in;
  info.ranks = ranks;
  info.dims = {ranks};
  const int s = chunk_size(in);
  if (s > 0) {
    info.blocks = ranks * s;
    info.slots = 0;
  }
  return info;
}

}  // namespace

FoldLayout::FoldLayout(int ranks, int inner_ranks, int blocks_per_chunk)
    : ranks_(ranks), inner_ranks_(inner_ranks), chunk_(blocks_per_chunk) {
  check_sizes(ranks, inner_ranks);
}

int FoldLayout::inner_of(int outer) const {
  if (outer >= 2 * pairs()) return outer - pairs();
  return outer % 2 == 0 ? outer / 2 : -1;
}

int FoldLayout::partner(int outer) const {
  if (outer >= 2 * pairs()) return -1;
  return outer % 2 == 0 ? outer + 1 : outer - 1;
}

// Part of inner chunk c, offsets [begin, end): the same offsets in each chunk of group(c).
void FoldLayout::add_partial(int c, BlockIndex begin, BlockIndex end, BlockSet& out) const {
  const auto s = static_cast<BlockIndex>(chunk_);
  for (int g = group_begin(c); g < group_begin(c + 1); ++g)
    out.add(static_cast<BlockIndex>(g) * s + begin, static_cast<BlockIndex>(g) * s + end);
}

BlockSet FoldLayout::outer_blocks(const BlockSet& inner) const {
  if (chunk_ == 0) return inner;
  const auto s = static_cast<BlockIndex>(chunk_);
  const auto outer = [&](int c) { return static_cast<BlockIndex>(group_begin(c)) * s; };
  BlockSet out;
  bool partial = false;
  for (const auto& r : inner.ranges()) {
    // A range is a partial head chunk, whole chunks (one contiguous outer range, since the
    // groups are contiguous and in order), and a partial tail chunk.
    const auto c0 = static_cast<int>(r.begin / s);
    const auto c1 = static_cast<int>(r.end / s);
    const BlockIndex head = r.begin - static_cast<BlockIndex>(c0) * s;
    const BlockIndex tail = r.end - static_cast<BlockIndex>(c1) * s;
    if (c0 == c1) {
      add_partial(c0, head, tail, out);
      partial = true;
      continue;
    }
    const int whole = head == 0 ? c0 : c0 + 1;
    if (head != 0) add_partial(c0, head, s, out);
    out.add(outer(whole), outer(c1));
    if (tail != 0) add_partial(c1, 0, tail, out);
    partial = partial || head != 0 || tail != 0;
  }
  // Partial chunks of a pair map to two ranges S apart, which may interleave with the next.
  if (partial) out.normalize();
  return out;
}

FoldSchedule::FoldSchedule(SchedulePtr inner, int ranks)
    : Schedule(folded_info(*inner, ranks)),
      inner_(std::move(inner)),
      layout_(ranks, inner_->ranks(), chunk_size(inner_->info())) {}

int FoldSchedule::step_count(int rank) const {
  const int inner_rank = layout_.inner_of(rank);
  if (inner_rank < 0) return 2;
  const int n = inner_->step_count(inner_rank);
  return layout_.partner(rank) < 0 ? n : n + 2;
}

void FoldSchedule::build_step(int rank, int step, Step& out) const {
  const int inner_rank = layout_.inner_of(rank);
  const bool paired = layout_.partner(rank) >= 0;
  if (!paired) return build_inner(inner_rank, step, out);
  const int last = step_count(rank) - 1;
  if (step == 0) return build_fold_in(rank, out);
  if (step == last) return build_fold_out(rank, out);
  build_inner(inner_rank, step - 1, out);
}

// The upper rank of a pair hands its data to the lower one, which reduces it as the right
// operand (x_2i ∘ x_2i+1) or, for allgather, stores the chunk.
void FoldSchedule::build_fold_in(int rank, Step& out) const {
  const ScheduleInfo& in = info();
  const bool upper = layout_.inner_of(rank) < 0;
  const int upper_rank = upper ? rank : rank + 1;
  const BlockSet blocks = in.collective == Collective::allgather
                              ? in.chunk_of(upper_rank)
                              : BlockSet::range(0, static_cast<BlockIndex>(in.blocks));
  if (upper) {
    out.ops.push_back(Operation::send(rank - 1, blocks));
    return;
  }
  const Combine combine = in.collective == Collective::allgather ? Combine::copy : Combine::reduce;
  out.ops.push_back(Operation::recv(rank + 1, blocks, combine, 0, OperandOrder::local_first));
}

// The lower rank of a pair hands back what the upper one must end with.
void FoldSchedule::build_fold_out(int rank, Step& out) const {
  const ScheduleInfo& in = info();
  const bool upper = layout_.inner_of(rank) < 0;
  const int upper_rank = upper ? rank : rank + 1;
  const auto all = static_cast<BlockIndex>(in.blocks);
  BlockSet blocks;
  if (in.collective == Collective::reduce_scatter) {
    blocks = in.chunk_of(upper_rank);
  } else if (in.collective == Collective::allgather) {
    const BlockSet own = in.chunk_of(upper_rank);
    blocks.add(0, own.ranges().front().begin);
    blocks.add(own.ranges().front().end, all);
  } else {
    blocks = BlockSet::range(0, all);
  }
  if (upper) {
    out.ops.push_back(Operation::recv(rank - 1, blocks, Combine::copy));
  } else {
    out.ops.push_back(Operation::send(rank + 1, blocks));
  }
}

void FoldSchedule::build_inner(int inner_rank, int step, Step& out) const {
  const std::size_t first = out.ops.size();
  inner_->build_step(inner_rank, step, out);
  for (std::size_t i = first; i < out.ops.size(); ++i) {
    Operation& op = out.ops[i];
    if (op.kind != OpKind::copy) op.peer = layout_.outer_of(op.peer);
    op.blocks = layout_.outer_blocks(op.blocks);
    if (op.kind != OpKind::copy) continue;
    op.source = layout_.outer_blocks(op.source);
    if (op.source.block_count() != op.blocks.block_count()) {
      throw std::logic_error(
          "fold: a local copy between inner blocks that stand for different numbers of outer "
          "blocks");
    }
  }
}

SchedulePtr fold(const ScheduleRequest& request, int inner_ranks, const ScheduleBuilder& build) {
  const int p = request.ranks;
  if (!is_foldable(request.collective)) {
    throw UnsupportedRequest("folding serves allreduce, reduce-scatter and allgather, not " +
                             std::string(collective_name(request.collective)));
  }
  if (request.dims.size() > 1) {
    throw UnsupportedRequest(
        "folding runs on a ring (1D) only; accepted: --dims omitted or a "
        "single size");
  }
  if (inner_ranks < (p + 1) / 2 || inner_ranks > p) {
    throw UnsupportedRequest(
        "cannot fold " + std::to_string(p) + " ranks onto " + std::to_string(inner_ranks) +
        "; accepted: " + std::to_string((p + 1) / 2) + ".." + std::to_string(p));
  }
  if (inner_ranks == p) return build(request);
  ScheduleRequest inner = request;
  inner.ranks = inner_ranks;
  inner.dims = {inner_ranks};
  return std::make_unique<FoldSchedule>(build(inner), p);
}

SchedulePtr fold_to_power_of_two(const ScheduleRequest& request, const ScheduleBuilder& build) {
  return fold(request, static_cast<int>(floor_power(request.ranks, 2)), build);
}

}  // namespace topocoll::algorithms
