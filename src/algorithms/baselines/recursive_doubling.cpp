// Recursive doubling: the latency-optimal allreduce (swing-nsdi24.txt section 2.3.2) and the
// bandwidth-optimal Rabenseifner algorithm, a reduce-scatter followed by an allgather
// (section 2.3.3), on a power-of-two P. Other P fold onto the largest power of two below P
// (section 2.3.2, "Non-power-of-two"; fold.hpp).
//
// recdoub-lat and recdoub-bw keep rank order for non-commutative operators: at step s the peer
// r XOR 2^s holds the partial result of the aligned group of 2^s ranks next to r's group, so the
// lower group's data is the left operand. recdoub-bw-distance-halving (the order of MPICH's
// recursive halving) does not: its groups are strided.
//
// Tori (recdoub-lat, recdoub-bw): on a D-dimensional torus whose sides are powers of two, step s
// works on one dimension, flipping the next bit of that coordinate, so peers stay 2^i hops
// apart on one line (section 2.3.2, Fig. 2). The dimensions take turns from a start dimension,
// skipping the exhausted ones, as Swing's steps do (section 4). This is the ring algorithm run on
// virtual ranks: the coordinates' bits interleaved in step order (TorusLabels).
//
// Ports: 1 (the default; the single-port algorithm of sections 2.3.2-2.3.3 and Table 2) or 2D,
// the multi-port form trivance.txt section 6 evaluates: D plain and D mirrored collectives on
// 1/(2D) of the vector each, plain lane j starting on dimension j, its mirror using coordinate
// -x mod n, as Swing's multi-port form does (swing-nsdi24.txt sections 4 and 4.1, last
// paragraph). Rank order holds on a ring with one port only; tori and mirrors need a commutative
// operator.
#include <memory>
#include <vector>

#include "algorithms/common/compose.hpp"
#include "algorithms/common/fold.hpp"
#include "algorithms/common/relabel.hpp"
#include "algorithms/families.hpp"
#include "algorithms/swing/swing_lanes.hpp"
#include "core/rank_math.hpp"

namespace topocoll::algorithms {
namespace {

OperandOrder order_for(int rank, int peer) {
  return peer < rank ? OperandOrder::received_first : OperandOrder::local_first;
}

ScheduleInfo base_info(const ScheduleRequest& request, Collective collective, const char* name,
                       int blocks) {
  ScheduleRequest ring = request;
  ring.dims.clear();  // recursive doubling sees a ring whatever the request's shape
  return info_for(ring, name, collective, blocks, 1);
}

// Section 2.3.2: log2 P steps; at step s every rank exchanges its whole vector (one block)
// with r XOR 2^s and reduces.
class LatencyOptimal final : public Schedule {
 public:
  explicit LatencyOptimal(ScheduleInfo info)
      : Schedule(std::move(info)), steps_(ceil_log(ranks(), 2)) {}

  [[nodiscard]] int step_count(int) const override { return steps_; }

  void build_step(int rank, int step, Step& out) const override {
    const int peer = rank ^ (1 << step);
    const BlockSet all = BlockSet::range(0, static_cast<BlockIndex>(info().blocks));
    out.ops.push_back(Operation::send(peer, all));
    out.ops.push_back(Operation::recv(peer, all, Combine::reduce, 0, order_for(rank, peer)));
  }

 private:
  int steps_;
};

enum class Phase { reduce_scatter, allgather };

// How the distance of the reduce-scatter evolves; the allgather runs the steps backwards.
enum class Distance {
  // Section 2.3.3 (and Fig. 1): the data halves while the distance doubles, so the big early
  // messages travel 1 hop. Groups stay contiguous, which keeps rank order.
  doubling,
  // The order of Rabenseifner's and MPICH's recursive halving: distance P/2 first. Every window
  // is contiguous in MPI's layout, but groups are strided: commutative operators only.
  halving,
};

// Where a phase keeps its blocks (distance doubling; distance halving is contiguous in MPI's
// layout already).
enum class Layout {
  // Allreduce: rank r ends the reduce-scatter with block bitrev(r), so every window is one
  // contiguous range (one message per step).
  contiguous,
  // Reduce-scatter and allgather: MPI's layout, rank r ends with chunk r; the window of step s
  // is strided (one range per chunk).
  by_rank,
};

// Section 2.3.3: log2 P steps of pairwise exchanges; each reduce-scatter step halves the data.
class Rabenseifner final : public Schedule {
 public:
  Rabenseifner(ScheduleInfo info, Phase phase, Distance distance, Layout layout)
      : Schedule(std::move(info)),
        phase_(phase),
        distance_(distance),
        layout_(layout),
        steps_(ceil_log(ranks(), 2)),
        chunk_(this->info().blocks / ranks()) {}

  [[nodiscard]] int step_count(int) const override { return steps_; }

  void build_step(int rank, int step, Step& out) const override {
    if (phase_ == Phase::reduce_scatter) {
      const int peer = rank ^ (1 << bit(step));
      out.ops.push_back(Operation::send(peer, window(peer, step)));
      out.ops.push_back(
          Operation::recv(peer, window(rank, step), Combine::reduce, 0, order_for(rank, peer)));
      return;
    }
    const int s = steps_ - 1 - step;
    const int peer = rank ^ (1 << bit(s));
    out.ops.push_back(Operation::send(peer, window(rank, s)));
    out.ops.push_back(Operation::recv(peer, window(peer, s), Combine::copy));
  }

 private:
  // The rank bit in which the peers of reduce-scatter step s differ.
  [[nodiscard]] int bit(int s) const {
    return distance_ == Distance::doubling ? s : steps_ - 1 - s;
  }

  // The chunks `rank` reduces after reduce-scatter step s: those whose index agrees with the
  // rank in the bits of steps 0..s (bit-reversed index for the contiguous layout).
  [[nodiscard]] BlockSet window(int rank, int s) const {
    const int count = ranks() >> (s + 1);
    const auto chunk = static_cast<BlockIndex>(chunk_);
    if (distance_ == Distance::halving) {
      const auto first = static_cast<BlockIndex>(rank & ~(count - 1));
      return BlockSet::range(first * chunk, (first + static_cast<BlockIndex>(count)) * chunk);
    }
    if (layout_ == Layout::contiguous) {
      BlockIndex position = 0;
      for (int i = 0; i <= s; ++i) position = 2 * position + ((rank >> i) & 1);
      const BlockIndex size = static_cast<BlockIndex>(count) * chunk;
      return BlockSet::range(position * size, (position + 1) * size);
    }
    const int stride = 2 << s;
    BlockSet out;
    for (int c = rank & (stride - 1); c < ranks(); c += stride)
      out.add(static_cast<BlockIndex>(c) * chunk, static_cast<BlockIndex>(c + 1) * chunk);
    return out;
  }

  Phase phase_;
  Distance distance_;
  Layout layout_;
  int steps_;
  int chunk_;
};

SchedulePtr build_latency_optimal(const ScheduleRequest& request) {
  return std::make_unique<LatencyOptimal>(
      base_info(request, Collective::allreduce, "recdoub-lat", 1));
}

SchedulePtr build_bandwidth_optimal(const ScheduleRequest& request, Distance distance,
                                    const char* name) {
  const Collective c = request.collective;
  auto phase = [&](Phase ph, Collective as, Layout layout) {
    return std::make_unique<Rabenseifner>(base_info(request, as, name, request.ranks), ph, distance,
                                          layout);
  };
  if (c == Collective::reduce_scatter) return phase(Phase::reduce_scatter, c, Layout::by_rank);
  if (c == Collective::allgather) return phase(Phase::allgather, c, Layout::by_rank);
  std::vector<SchedulePtr> phases;
  phases.push_back(phase(Phase::reduce_scatter, Collective::reduce_scatter, Layout::contiguous));
  phases.push_back(phase(Phase::allgather, Collective::allgather, Layout::contiguous));
  return std::make_unique<PhaseSequence>(base_info(request, c, name, request.ranks),
                                         std::move(phases));
}

// Virtual ranks of one torus lane: bit t of the label is bit local(t) of the (mirrored)
// coordinate of the dimension of step t, so the ring schedule's peer label XOR 2^t is the torus
// neighbour 2^local(t) hops away along dim(t).
class TorusLabels final : public RankLabels {
 public:
  TorusLabels(std::vector<int> dims, int start, bool mirrored)
      : dims_(std::move(dims)), mirrored_(mirrored) {
    std::vector<int> steps;
    for (int size : dims_) steps.push_back(ceil_log(size, 2));
    order_ = swing::dimension_order(steps, start);
  }

  [[nodiscard]] int label(int rank) const override {
    std::vector<int> coords(dims_.size());
    for (std::size_t k = 0; k < dims_.size(); ++k) {
      coords[k] = mirror(k, rank % dims_[k]);
      rank /= dims_[k];
    }
    int out = 0;
    for (std::size_t t = 0; t < order_.size(); ++t)
      out |= ((coords[order_[t].dim] >> order_[t].local) & 1) << t;
    return out;
  }

  [[nodiscard]] int rank_of(int label) const override {
    std::vector<int> coords(dims_.size(), 0);
    for (std::size_t t = 0; t < order_.size(); ++t)
      coords[order_[t].dim] |= ((label >> t) & 1) << order_[t].local;
    int rank = 0;
    for (std::size_t k = dims_.size(); k-- > 0;) rank = rank * dims_[k] + mirror(k, coords[k]);
    return rank;
  }

 private:
  [[nodiscard]] int mirror(std::size_t k, int x) const { return mirrored_ ? mod(-x, dims_[k]) : x; }

  std::vector<int> dims_;
  bool mirrored_;
  std::vector<swing::LaneStep> order_;
};

enum class Variant { latency, bandwidth };

// The ring schedule on the request's P virtual ranks (P a power of two).
SchedulePtr ring_schedule(const ScheduleRequest& request, Variant variant) {
  ScheduleRequest ring = request;
  ring.dims = {request.ranks};
  return variant == Variant::latency
             ? build_latency_optimal(ring)
             : build_bandwidth_optimal(ring, Distance::doubling, "recdoub-bw");
}

// 2D lanes (or one when ports = 1), each the ring schedule on its own virtual ranks, on a torus
// (or ring) whose sides are powers of two.
SchedulePtr build_lanes(const ScheduleRequest& request, Variant variant) {
  const int d = static_cast<int>(request.dims.size());
  const int lanes = request.ports == 1 ? 1 : 2 * d;
  // Allreduce blocks are alike on every rank; the chunked collectives keep MPI's layout.
  const bool remap_chunks = request.collective != Collective::allreduce;
  std::vector<SchedulePtr> parts;
  for (int j = 0; j < lanes; ++j) {
    SchedulePtr ring = ring_schedule(request, variant);
    ScheduleInfo info = ring->info();
    info.dims = request.dims;
    auto labels = std::make_shared<const TorusLabels>(request.dims, j % d, j >= d);
    parts.push_back(
        std::make_unique<Relabeled>(std::move(info), std::move(ring), labels, remap_chunks));
  }
  if (lanes == 1) return std::move(parts.front());
  const ScheduleInfo lane = parts.front()->info();
  // Allreduce gives each lane a contiguous slice; the chunked collectives split every rank's
  // chunk among the lanes.
  const int chunk = request.collective == Collective::allreduce ? lane.blocks : 1;
  return std::make_unique<LaneSet>(lanes_info(lane, lanes), std::move(parts),
                                   LaneLayout{lanes, chunk});
}

SchedulePtr build_recursive_doubling(const ScheduleRequest& request, Variant variant) {
  const bool torus = request.dims.size() > 1;
  const std::string name = variant == Variant::latency ? "recdoub-lat" : "recdoub-bw";
  // Requirements::commutative_op_beyond_one_port_ring refused the orders this cannot keep.
  if (!request.commutative && (torus || request.ports > 1))
    throw std::logic_error(name + " built for a non-commutative operator it cannot serve");
  if (torus) return build_lanes(request, variant);
  if (request.ports > 1) {
    return fold_to_power_of_two(
        request, [variant](const ScheduleRequest& inner) { return build_lanes(inner, variant); });
  }
  return fold_to_power_of_two(
      request, [variant](const ScheduleRequest& inner) { return ring_schedule(inner, variant); });
}

Requirements torus_requirements() {
  Requirements r;
  r.dims = DimsRule::any_torus;
  r.sides = SideRule::power_of_two;
  r.commutative_op_beyond_one_port_ring = true;
  r.ports.one = true;
  r.ports.two_per_dimension = true;
  return r;
}

}  // namespace

void register_recursive_doubling(Registry& registry) {
  AlgorithmInfo lat;
  lat.name = "recdoub-lat";
  lat.family = "recursive-doubling";
  lat.baseline = true;
  lat.variant = "latency-optimal";
  lat.paper = "swing-nsdi24.txt section 2.3.2 (Fig. 2); trivance.txt section 6";
  lat.summary =
      "log2 P steps exchanging the whole vector with rank XOR 2^s; other P fold onto a power of 2; "
      "tori with power-of-two sides use one dimension per step; ports 1 or 2D";
  lat.collectives = {Collective::allreduce};
  lat.requirements = torus_requirements();
  lat.build = [](const ScheduleRequest& r) {
    return build_recursive_doubling(r, Variant::latency);
  };
  registry.add(std::move(lat));

  AlgorithmInfo bw;
  bw.name = "recdoub-bw";
  bw.family = "recursive-doubling";
  bw.baseline = true;
  bw.variant = "bandwidth-optimal";
  bw.paper = "swing-nsdi24.txt sections 2.3.2, 2.3.3; trivance.txt section 6";
  bw.summary =
      "Rabenseifner: reduce-scatter halving the data as the distance doubles, then the allgather "
      "backwards; other P fold onto a power of 2; tori with power-of-two sides use one dimension "
      "per step; ports 1 or 2D";
  bw.collectives = {Collective::allreduce, Collective::reduce_scatter, Collective::allgather};
  bw.requirements = torus_requirements();
  bw.build = [](const ScheduleRequest& r) {
    return build_recursive_doubling(r, Variant::bandwidth);
  };
  registry.add(bw);

  // The same data volumes with the distances reversed: contiguous chunks in MPI's layout (one
  // message per step for reduce-scatter and allgather) at the price of far peers first.
  bw.name = "recdoub-bw-distance-halving";
  bw.variant = "bandwidth-optimal, distance-halving reduce-scatter";
  bw.paper = "swing-nsdi24.txt sections 2.3.2, 2.3.3";
  bw.summary =
      "Rabenseifner in MPICH's order: reduce-scatter from distance P/2 down to 1, allgather back "
      "up; contiguous in MPI's layout; commutative operators only";
  bw.requirements = Requirements{};
  bw.requirements.commutative_op = true;
  bw.build = [](const ScheduleRequest& r) {
    return fold_to_power_of_two(r, [](const ScheduleRequest& inner) {
      return build_bandwidth_optimal(inner, Distance::halving, "recdoub-bw-distance-halving");
    });
  };
  registry.add(std::move(bw));
}

}  // namespace topocoll::algorithms
