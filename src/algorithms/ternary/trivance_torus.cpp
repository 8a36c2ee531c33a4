#include "algorithms/ternary/trivance_torus.hpp"

#include <algorithm>
#include <utility>

#include "algorithms/common/compose.hpp"
#include "core/rank_math.hpp"

namespace topocoll::algorithms {

Requirements ternary_requirements() {
  Requirements req;
  req.dims = DimsRule::any_torus;
  req.ports.one = false;
  req.ports.two_per_dimension = true;
  req.ports.default_ports = PortsRule::Default::two_per_dimension;
  req.commutative_op = true;
  return req;
}
namespace {

// Rank coordinates on a torus; dimension 0 varies fastest.
class TorusShape {
 public:
  explicit TorusShape(std::vector<int> dims) : dims_(std::move(dims)), strides_(dims_.size()) {
    long long stride = 1;
    for (std::size_t e = 0; e < dims_.size(); ++e) {
      strides_[e] = stride;
      stride *= dims_[e];
    }
  }
  [[nodiscard]] int dimensions() const { return static_cast<int>(dims_.size()); }
  [[nodiscard]] int size(int e) const { return dims_[e]; }
  [[nodiscard]] long long stride(int e) const { return strides_[e]; }
  [[nodiscard]] int coord(int rank, int e) const {
    return static_cast<int>((rank / strides_[e]) % dims_[e]);
  }
  [[nodiscard]] int with_coord(int rank, int e, int x) const {
    return static_cast<int>(rank + (x - coord(rank, e)) * strides_[e]);
  }
  [[nodiscard]] int moved(int rank, int e, long long by) const {
    return with_coord(rank, e, mod(coord(rank, e) + by, dims_[e]));
  }

 private:
  std::vector<int> dims_;
  std::vector<long long> strides_;
};

struct Visit {
  int dim;
  int k;  // the step of that dimension's ring pattern
};

// The steps of one collective: which dimension each works on, and how many steps every
// dimension had done before it.
struct Walk {
  std::vector<Visit> visits;
  std::vector<std::vector<int>> done_before;
};

// Section 5, Fig. 5: collective c starts on dimension c and moves to the next dimension every
// step, skipping the dimensions whose pattern has no steps left. A dimension marked `sticky`
// keeps partial sums in scratch slots between its steps; another dimension's step would change
// the vector those sums were taken from, so a sticky dimension runs to its end once started.
Walk walk_of(const std::vector<int>& lengths, int lane, const std::vector<bool>& sticky = {}) {
  const int d = static_cast<int>(lengths.size());
  int total = 0;
  for (int len : lengths) total += len;
  Walk walk;
  std::vector<int> done(static_cast<std::size_t>(d), 0);
  for (int t = 0; t < total; ++t) {
    const int prev = walk.visits.empty() ? -1 : walk.visits.back().dim;
    const bool hold = prev >= 0 && !sticky.empty() && sticky[prev] && done[prev] < lengths[prev];
    for (int i = 0; i < d; ++i) {
      const int e = hold ? prev : (lane + t + i) % d;
      if (done[e] == lengths[e]) continue;
      walk.done_before.push_back(done);
      walk.visits.push_back({e, done[e]++});
      break;
    }
  }
  return walk;
}

// How a lane numbers its blocks: the dimensions from the slowest to the fastest varying, and
// each dimension's stride in the block index.
struct BlockOrder {
  std::vector<int> slow_to_fast;
  std::vector<long long> strides;
};

// MPI's order (rank order, dimension 0 fastest) when `first` < 0; otherwise dimension `first`
// slowest, then the ones after it cyclically. A lane's first step then sends whole runs of the
// dimensions it has not touched yet, and its later steps stay contiguous for longer.
BlockOrder block_order(const std::vector<int>& dims, int first) {
  const int d = static_cast<int>(dims.size());
  BlockOrder order;
  for (int i = 0; i < d; ++i) order.slow_to_fast.push_back(first < 0 ? d - 1 - i : (first + i) % d);
  order.strides.assign(static_cast<std::size_t>(d), 0);
  long long stride = 1;
  for (int i = d - 1; i >= 0; --i) {
    order.strides[order.slow_to_fast[i]] = stride;
    stride *= dims[order.slow_to_fast[i]];
  }
  return order;
}

// Appends, in increasing order, the block index of every coordinate tuple of the product of
// `lists` (each sorted ranges of positions), from the i-th slowest dimension on.
void add_product(const std::vector<std::vector<BlockRange>>& lists, const BlockOrder& order,
                 std::size_t i, long long base, BlockSet& out) {
  const int e = order.slow_to_fast[i];
  if (i + 1 == order.slow_to_fast.size()) {
    for (const BlockRange& r : lists[e])
      out.add(static_cast<BlockIndex>(base + r.begin), static_cast<BlockIndex>(base + r.end));
    return;
  }
  for (const BlockRange& r : lists[e])
    for (BlockIndex x = r.begin; x < r.end; ++x)
      add_product(lists, order, i + 1, base + x * order.strides[e], out);
}

// One collective's reduce-scatter over the whole torus, or its time reverse, the allgather.
// Before a step on dimension e a rank holds the blocks whose coordinate in every dimension is
// one its ring pattern still holds there; it sends the product of those sets with the
// pattern's send set in dimension e. Coordinates sit in each dimension at their layout position.
class ProductPhase final : public Schedule {
 public:
  ProductPhase(ScheduleInfo info, TorusShape shape,
               std::vector<std::shared_ptr<const RingPattern>> patterns,
               std::vector<std::shared_ptr<const RingLayout>> layouts, BlockOrder order, Walk walk,
               bool reverse)
      : Schedule(std::move(info)),
        shape_(std::move(shape)),
        order_(std::move(order)),
        patterns_(std::move(patterns)),
        layouts_(std::move(layouts)),
        walk_(std::move(walk)),
        reverse_(reverse) {}

  [[nodiscard]] int step_count(int) const override { return static_cast<int>(walk_.visits.size()); }

  // Block b holds, in every dimension, the coordinate at that dimension's layout position.
  [[nodiscard]] std::vector<int> block_ranks() const override {
    std::vector<std::vector<int>> at;
    for (const auto& layout : layouts_) at.push_back(layout->coordinates());
    std::vector<int> out(static_cast<std::size_t>(ranks()));
    bool rank_order = true;
    for (int b = 0; b < ranks(); ++b) {
      int rank = 0;
      for (int e = 0; e < shape_.dimensions(); ++e) {
        const auto position = static_cast<std::size_t>((b / order_.strides[e]) % shape_.size(e));
        rank = shape_.with_coord(rank, e, at[e][position]);
      }
      out[static_cast<std::size_t>(b)] = rank;
      rank_order = rank_order && rank == b;
    }
    return rank_order ? std::vector<int>{} : out;
  }

  void build_step(int rank, int step, Step& out) const override {
    const int t = reverse_ ? step_count(rank) - 1 - step : step;
    const Visit v = walk_.visits[t];
    std::vector<std::vector<BlockRange>> lists(static_cast<std::size_t>(shape_.dimensions()));
    std::vector<Progression> pieces;
    for (int e = 0; e < shape_.dimensions(); ++e) {
      if (e == v.dim) continue;
      patterns_[e]->held(shape_.coord(rank, e), walk_.done_before[t][e], pieces);
      layouts_[e]->positions(pieces, lists[e]);
    }
    const RingPattern& pattern = *patterns_[v.dim];
    const RingLayout& layout = *layouts_[v.dim];
    const int q = shape_.coord(rank, v.dim);
    for (int port = 0; port < 2; ++port) {
      const long long offset = pattern.offset(v.k, port);
      pattern.sends(q, v.k, port, pieces);
      layout.positions(pieces, lists[v.dim]);
      add(shape_.moved(rank, v.dim, offset), lists, port, true, out);
      pattern.sends(mod(q - offset, shape_.size(v.dim)), v.k, port, pieces);
      layout.positions(pieces, lists[v.dim]);
      add(shape_.moved(rank, v.dim, -offset), lists, port, false, out);
    }
  }

 private:
  // `outgoing` is the direction in the reduce-scatter; the allgather reverses every message.
  void add(int peer, const std::vector<std::vector<BlockRange>>& lists, int port, bool outgoing,
           Step& out) const {
    for (const auto& list : lists)
      if (list.empty()) return;
    BlockSet blocks;
    add_product(lists, order_, 0, 0, blocks);
    if (outgoing != reverse_) {
      out.ops.push_back(Operation::send(peer, std::move(blocks), port));
    } else {
      const Combine combine = reverse_ ? Combine::copy : Combine::reduce;
      out.ops.push_back(Operation::recv(peer, std::move(blocks), combine, port));
    }
  }

  TorusShape shape_;
  BlockOrder order_;
  std::vector<std::shared_ptr<const RingPattern>> patterns_;
  std::vector<std::shared_ptr<const RingLayout>> layouts_;
  Walk walk_;
  bool reverse_;
};

// One collective's whole-slice allreduce: the ring pattern of the step's dimension, applied on
// every line of that dimension. Steps on different dimensions commute, so any walk works.
class ProductLatency final : public Schedule {
 public:
  ProductLatency(ScheduleInfo info, TorusShape shape,
                 std::vector<std::shared_ptr<const LatencyRing>> rings, Walk walk)
      : Schedule(std::move(info)),
        shape_(std::move(shape)),
        rings_(std::move(rings)),
        walk_(std::move(walk)) {}

  [[nodiscard]] int step_count(int) const override { return static_cast<int>(walk_.visits.size()); }

  void build_step(int rank, int step, Step& out) const override {
    const Visit v = walk_.visits[step];
    std::vector<LatencyOp> ops;
    rings_[v.dim]->ops(shape_.coord(rank, v.dim), v.k, ops);
    for (const LatencyOp& op : ops) {
      const BlockSet slot = BlockSet::single(op.slot);
      if (op.kind == OpKind::copy) {
        const BlockSet source = BlockSet::single(op.source);
        out.ops.push_back(op.after_receives
                              ? Operation::local_after_receives(source, slot, op.combine)
                              : Operation::local_copy(source, slot, op.combine));
        continue;
      }
      const int peer = shape_.with_coord(rank, v.dim, op.peer);
      if (op.kind == OpKind::send) {
        out.ops.push_back(Operation::send(peer, slot, op.port));
      } else {
        out.ops.push_back(Operation::recv(peer, slot, op.combine, op.port));
      }
    }
  }

 private:
  TorusShape shape_;
  std::vector<std::shared_ptr<const LatencyRing>> rings_;
  Walk walk_;
};

ScheduleInfo lane_info(const ScheduleRequest& request, const std::string& name, Collective c,
                       int blocks) {
  return info_for(request, name, c, blocks, 2);
}

SchedulePtr combine_lanes(std::vector<SchedulePtr> lanes, int chunk) {
  if (lanes.size() == 1) return std::move(lanes.front());
  const int count = static_cast<int>(lanes.size());
  ScheduleInfo info = lanes_info(lanes.front()->info(), count);
  return std::make_unique<LaneSet>(std::move(info), std::move(lanes), LaneLayout{count, chunk});
}

template <class Factory>
auto per_dimension(const std::vector<int>& dims, const Factory& factory,
                   std::vector<int>& lengths) {
  std::vector<decltype(factory(0))> rings;
  lengths.clear();
  for (int size : dims) {
    rings.push_back(factory(size));
    lengths.push_back(rings.back()->steps());
  }
  return rings;
}

}  // namespace

SchedulePtr torus_bandwidth_schedule(const ScheduleRequest& request, const std::string& name,
                                     const RingPatternFactory& pattern) {
  const TorusShape shape(request.dims);
  std::vector<int> lengths;
  const auto patterns = per_dimension(request.dims, pattern, lengths);
  const Collective c = request.collective;
  const int p = request.ranks;
  // Reduce-scatter and allgather keep MPI's layout; allreduce places its blocks freely.
  std::vector<std::shared_ptr<const RingLayout>> layouts;
  for (int size : request.dims) {
    const int t = c == Collective::allreduce ? RingLayout::balanced_digits(size) : 0;
    layouts.push_back(std::make_shared<RingLayout>(size, t));
  }
  std::vector<SchedulePtr> lanes;
  for (int lane = 0; lane < shape.dimensions(); ++lane) {
    const Walk walk = walk_of(lengths, lane);
    auto phase = [&](Collective as, bool reverse) -> SchedulePtr {
      const BlockOrder order = block_order(request.dims, c == Collective::allreduce ? lane : -1);
      return std::make_unique<ProductPhase>(lane_info(request, name, as, p), shape, patterns,
                                            layouts, order, walk, reverse);
    };
    if (c == Collective::reduce_scatter) {
      lanes.push_back(phase(c, false));
    } else if (c == Collective::allgather) {
      lanes.push_back(phase(c, true));
    } else {
      std::vector<SchedulePtr> phases;
      phases.push_back(phase(Collective::reduce_scatter, false));
      phases.push_back(phase(Collective::allgather, true));
      lanes.push_back(
          std::make_unique<PhaseSequence>(lane_info(request, name, c, p), std::move(phases)));
    }
  }
  return combine_lanes(std::move(lanes), c == Collective::allreduce ? p : 1);
}

SchedulePtr torus_latency_schedule(const ScheduleRequest& request, const std::string& name,
                                   const LatencyRingFactory& ring) {
  const TorusShape shape(request.dims);
  std::vector<int> lengths;
  const auto rings = per_dimension(request.dims, ring, lengths);
  // Dimensions share the scratch slots: a sticky one finishes before the next starts, and every
  // partial sum starts with a copy.
  ScheduleInfo info = lane_info(request, name, Collective::allreduce, 1);
  std::vector<bool> sticky;
  for (const auto& r : rings) {
    sticky.push_back(r->slots() > 1);
    info.slots = std::max(info.slots, r->slots());
  }
  info.keeps_positions = info.slots <= 1;
  std::vector<SchedulePtr> lanes;
  for (int lane = 0; lane < shape.dimensions(); ++lane) {
    lanes.push_back(
        std::make_unique<ProductLatency>(info, shape, rings, walk_of(lengths, lane, sticky)));
  }
  return combine_lanes(std::move(lanes), 1);
}

}  // namespace topocoll::algorithms
