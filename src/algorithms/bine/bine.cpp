// Bine butterflies (bine-trees-sc25.txt sections 3, 4.3-4.4, Appendices A, C, D): the
// latency-optimal allreduce (recursive doubling on Bine butterflies) and the bandwidth-optimal
// reduce-scatter (distance doubling) + allgather (distance halving), with the four ways of
// section 4.3.1 to deal with non-contiguous block sets, on rings and on tori of even
// dimensions. Any even P is served natively (Appendix C, via the pruned trees of
// bine_butterfly.hpp); odd P folds onto P - 1 (fold.hpp).
//
// Block strategies (registry suffixes), for the reduce-scatter (the allgather mirrors them):
//   bine-bw         "send": run the butterfly on positions as if the data were permuted by
//                   sigma (nu of section 4.3.1); one range per send when P is a power of two.
//                   Reduce-scatter adds one exchange step at the end, allgather one at the
//                   start; allreduce needs neither (the allgather undoes the reduce-scatter).
//   bine-bw-block   block by block: natural positions; every maximal run of blocks is a
//                   separate message.
//   bine-bw-permute a local permutation by sigma first (allgather: last), then contiguous sends.
//   bine-bw-two     two transmissions: distance-halving reduce-scatter and distance-doubling
//                   allgather, whose block sets are circular ranges (at most two messages).
//   bine-bw-send-wait  bine-bw whose ranks idle in the allgather's exchange step wait there for
//                   the rank they send to next (not the paper's; see ExchangeStep).
// The torus variants (Appendix D) run 1, D or 2D lanes (ports) on slices of the vector: lane j
// starts its reduce-scatter at dimension j mod D and lanes j >= D are mirrored.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/bine/bine_butterfly.hpp"
#include "algorithms/bine/bine_latency.hpp"
#include "algorithms/common/compose.hpp"
#include "algorithms/common/fold.hpp"
#include "algorithms/common/side_fold.hpp"
#include "algorithms/families.hpp"
#include "core/rank_math.hpp"

namespace topocoll::algorithms {
namespace {

using bine::AllgatherOrder;
using bine::BineGrid;
using GridPtr = std::shared_ptr<const BineGrid>;

enum class Strategy { send, send_wait, block, permute, two };
enum class Phase { reduce_scatter, allgather };
enum class Labels { natural, sigma };

ScheduleInfo make_info(Collective collective, const std::string& name, int ranks,
                       const std::vector<int>& dims) {
  ScheduleInfo info;
  info.collective = collective;
  info.algorithm = name;
  info.ranks = ranks;
  info.blocks = ranks;
  info.ports = 1;
  info.dims = dims;
  return info;
}

// Where real block b sits in sigma space: the lane's label of b, renumbered by sigma.
int sigma_position(const BineGrid& grid, int block) { return grid.sigma(grid.inner(block)); }

// One phase of the bandwidth-optimal algorithm (section 4.3). The allgather is the union of the
// pruned broadcast trees of every block; the reduce-scatter runs it backwards, each rank
// sending the partial sum of a block to its parent in that block's tree.
class BandwidthPhase final : public Schedule {
 public:
  BandwidthPhase(ScheduleInfo info, GridPtr grid, Phase phase, Labels labels)
      : Schedule(std::move(info)), grid_(std::move(grid)), phase_(phase), labels_(labels) {}

  [[nodiscard]] int step_count(int) const override { return grid_->steps(); }

  // In sigma space block b's data sits at b's sigma position.
  [[nodiscard]] std::vector<int> block_ranks() const override {
    if (labels_ != Labels::sigma) return {};
    std::vector<int> out(static_cast<std::size_t>(ranks()));
    for (int b = 0; b < ranks(); ++b) out[static_cast<std::size_t>(sigma_position(*grid_, b))] = b;
    return out;
  }

  void build_step(int rank, int step, Step& out) const override {
    const int t = phase_ == Phase::allgather ? step : grid_->steps() - 1 - step;
    const int peer = grid_->allgather_peer(rank, t);
    BlockSet mine, theirs;  // what rank and peer receive at allgather step t
    received(rank, t, mine);
    received(peer, t, theirs);
    if (phase_ == Phase::allgather) {
      out.ops.push_back(Operation::send(peer, std::move(theirs)));
      out.ops.push_back(Operation::recv(peer, std::move(mine), Combine::copy));
    } else {
      out.ops.push_back(Operation::send(peer, std::move(mine)));
      out.ops.push_back(Operation::recv(peer, std::move(theirs), Combine::reduce));
    }
  }

 private:
  void received(int rank, int t, BlockSet& out) const {
    if (labels_ == Labels::sigma)
      grid_->received_sigma(rank, t, out);
    else
      grid_->received(rank, t, out);
  }

  GridPtr grid_;
  Phase phase_;
  Labels labels_;
};

// One step of local copies for the permute strategy (section 4.3.1).
enum class Permutation {
  all_to_sigma,    // every block b moves to its sigma position (before a reduce-scatter)
  all_from_sigma,  // and back (after an allgather)
  own_to_sigma,    // only rank r's chunk (before an allgather)
  own_from_sigma,  // the reduced chunk back to its place (after a reduce-scatter)
};

class PermutationStep final : public Schedule {
 public:
  PermutationStep(ScheduleInfo info, GridPtr grid, Permutation kind)
      : Schedule(std::move(info)), grid_(std::move(grid)), kind_(kind) {
    if (kind_ == Permutation::all_to_sigma || kind_ == Permutation::all_from_sigma) build_chains();
  }

  [[nodiscard]] int step_count(int) const override { return 1; }

  void build_step(int rank, int, Step& out) const override {
    if (kind_ == Permutation::all_to_sigma || kind_ == Permutation::all_from_sigma) {
      out.ops = all_;
      return;
    }
    const int position = sigma_position(*grid_, rank);
    if (position == rank) return;
    auto natural = BlockSet::single(static_cast<BlockIndex>(rank));
    auto moved = BlockSet::single(static_cast<BlockIndex>(position));
    out.ops.push_back(kind_ == Permutation::own_to_sigma
                          ? Operation::local_copy(std::move(natural), std::move(moved))
                          : Operation::local_copy(std::move(moved), std::move(natural)));
  }

 private:
  // A copy maps its i-th source block to its i-th destination block, both sorted, so one copy
  // carries a chain of blocks whose positions increase with them. Greedy chains (each block
  // joins the chain with the highest end below its position) need the fewest copies; the
  // rank-independent copies are built once.
  void build_chains() {
    const int p = grid_->ranks();
    std::vector<std::pair<BlockSet, BlockSet>> chains;  // (natural, position)
    // (last position, chain), by decreasing position. A block replaces the end of the chain
    // it joins, which stays between its neighbours (positions are distinct), and a new chain
    // starts below every end: the order holds without a search tree.
    std::vector<std::pair<int, std::size_t>> ends;
    for (int b = 0; b < p; ++b) {
      const int position = sigma_position(*grid_, b);
      if (position == b) continue;
      auto it = std::partition_point(ends.begin(), ends.end(),
                                     [&](const auto& end) { return end.first > position; });
      std::size_t c;
      if (it == ends.end()) {
        c = chains.size();
        chains.emplace_back();
        ends.emplace_back(position, c);
      } else {
        c = it->second;
        it->first = position;
      }
      chains[c].first.add(static_cast<BlockIndex>(b));
      chains[c].second.add(static_cast<BlockIndex>(position));
    }
    const bool forward = kind_ == Permutation::all_to_sigma;
    for (auto& [natural, moved] : chains) {
      all_.push_back(forward ? Operation::local_copy(std::move(natural), std::move(moved))
                             : Operation::local_copy(std::move(moved), std::move(natural)));
    }
  }

  GridPtr grid_;
  Permutation kind_;
  std::vector<Operation> all_;
};

// The extra communication step of the send strategy (section 4.3.1): after a reduce-scatter in
// sigma space rank r holds block h(r) = sigma(inner(r)), which it hands to its owner h(r);
// before an allgather every rank fetches the block it stands for in sigma space.
//
// A rank with h(r) = r (rank 0 always) has nothing to do in the allgather's exchange step and
// starts the butterfly at once; where sends are injected eagerly its first message then shares
// its peer's link with the peer's exchange, the peer starts late, and the lag spreads over the
// butterfly, whose largest steps come last (docs/efficiency.md, "Found defects": 418.6 against
// 341.1 us on 32 ranks of a non-blocking fat tree). With `wait`, such a rank instead receives a
// zero-byte message from its first butterfly peer, which sends it in a step of its own after
// its exchange, as an MPI rendezvous would hold the data: not the paper's schedule.
class ExchangeStep final : public Schedule {
 public:
  ExchangeStep(ScheduleInfo info, GridPtr grid, Phase phase, bool wait)
      : Schedule(std::move(info)), grid_(std::move(grid)), phase_(phase), wait_(wait) {}

  [[nodiscard]] int step_count(int rank) const override { return signals_idle_peer(rank) ? 2 : 1; }

  void build_step(int rank, int step, Step& out) const override {
    if (step == 1) {  // the signal to the idle peer, once this rank's exchange is done
      out.ops.push_back(Operation::send(grid_->allgather_peer(rank, 0), BlockSet{}));
      return;
    }
    const int held = sigma_position(*grid_, rank);                // h(r)
    const int holder = grid_->inner(grid_->sigma_inverse(rank));  // h^-1(r)
    if (waits(rank)) {
      out.ops.push_back(Operation::recv(grid_->allgather_peer(rank, 0), BlockSet{}, Combine::copy));
      return;
    }
    if (phase_ == Phase::reduce_scatter) {
      if (held != rank) out.ops.push_back(Operation::send(held, single(held)));
      if (holder != rank) out.ops.push_back(Operation::recv(holder, single(rank), Combine::copy));
    } else {
      if (holder != rank) out.ops.push_back(Operation::send(holder, single(rank)));
      if (held != rank) out.ops.push_back(Operation::recv(held, single(held), Combine::copy));
    }
  }

 private:
  static BlockSet single(int block) { return BlockSet::single(static_cast<BlockIndex>(block)); }

  [[nodiscard]] bool idle(int rank) const { return sigma_position(*grid_, rank) == rank; }
  // An idle rank whose first peer takes part in the exchange (both idle only at P = 2).
  [[nodiscard]] bool waits(int rank) const {
    return wait_ && phase_ == Phase::allgather && idle(rank) &&
           !idle(grid_->allgather_peer(rank, 0));
  }
  [[nodiscard]] bool signals_idle_peer(int rank) const {
    return wait_ && phase_ == Phase::allgather && !idle(rank) &&
           waits(grid_->allgather_peer(rank, 0));
  }

  GridPtr grid_;
  Phase phase_;
  bool wait_;
};

struct LaneSpec {
  std::vector<int> dims;
  Strategy strategy = Strategy::send;
  int start_dim = 0;
  bool mirrored = false;
};

GridPtr make_grid(const LaneSpec& lane) {
  const auto order = lane.strategy == Strategy::two ? AllgatherOrder::distance_doubling
                                                    : AllgatherOrder::distance_halving;
  return std::make_shared<const BineGrid>(lane.dims, order, lane.start_dim, lane.mirrored);
}

// One lane of the bandwidth-optimal algorithm for `collective`, B = P blocks.
SchedulePtr bandwidth_lane(Collective collective, const std::string& name, const LaneSpec& lane) {
  const GridPtr grid = make_grid(lane);
  ScheduleInfo info = make_info(collective, name, grid->ranks(), lane.dims);
  info.keeps_positions = lane.strategy != Strategy::permute;
  const bool sends = lane.strategy == Strategy::send || lane.strategy == Strategy::send_wait;
  const Labels labels =
      sends || lane.strategy == Strategy::permute ? Labels::sigma : Labels::natural;
  auto as = [&](Collective c) {
    ScheduleInfo i = info;
    i.collective = c;
    return i;
  };
  auto phase = [&](Phase ph) {
    return std::make_unique<BandwidthPhase>(
        as(ph == Phase::allgather ? Collective::allgather : Collective::reduce_scatter), grid, ph,
        labels);
  };
  auto permute = [&](Permutation kind) {
    return std::make_unique<PermutationStep>(info, grid, kind);
  };
  auto exchange = [&](Phase ph) {
    return std::make_unique<ExchangeStep>(info, grid, ph, lane.strategy == Strategy::send_wait);
  };

  std::vector<SchedulePtr> phases;
  const bool rs = collective != Collective::allgather;
  const bool ag = collective != Collective::reduce_scatter;
  if (lane.strategy == Strategy::permute)
    phases.push_back(permute(rs ? Permutation::all_to_sigma : Permutation::own_to_sigma));
  if (sends && !rs) phases.push_back(exchange(Phase::allgather));
  if (rs) phases.push_back(phase(Phase::reduce_scatter));
  if (ag) phases.push_back(phase(Phase::allgather));
  if (sends && !ag) phases.push_back(exchange(Phase::reduce_scatter));
  if (lane.strategy == Strategy::permute)
    phases.push_back(permute(ag ? Permutation::all_from_sigma : Permutation::own_from_sigma));
  if (phases.size() == 1) return std::move(phases.front());
  return std::make_unique<PhaseSequence>(info, std::move(phases));
}

// The lanes of a request: ports = 1, D (one per start dimension) or 2D (and their mirrors).
std::vector<LaneSpec> lanes_for(const ScheduleRequest& request, Strategy strategy) {
  const int dims = static_cast<int>(request.dims.size());
  std::vector<LaneSpec> lanes;
  for (int j = 0; j < request.ports; ++j)
    lanes.push_back({request.dims, strategy, j % dims, j >= dims});
  return lanes;
}

// Combines one schedule per lane on disjoint slices of the vector (Appendix D.4).
SchedulePtr combine_lanes(const ScheduleRequest& request, std::vector<SchedulePtr> lanes) {
  if (lanes.size() == 1) return std::move(lanes.front());
  const ScheduleInfo lane = lanes.front()->info();
  // Allreduce gives each lane a contiguous slice; the chunked collectives split every rank's
  // chunk among the lanes.
  const int chunk = request.collective == Collective::allreduce ? lane.blocks : 1;
  const int count = static_cast<int>(lanes.size());
  return std::make_unique<LaneSet>(lanes_info(lane, count), std::move(lanes),
                                   LaneLayout{count, chunk});
}

SchedulePtr build_bandwidth(const ScheduleRequest& request, const std::string& name,
                            Strategy strategy) {
  std::vector<SchedulePtr> lanes;
  for (const LaneSpec& lane : lanes_for(request, strategy))
    lanes.push_back(bandwidth_lane(request.collective, name, lane));
  return combine_lanes(request, std::move(lanes));
}

SchedulePtr build_latency(const ScheduleRequest& request, const std::string& name) {
  std::vector<SchedulePtr> lanes;
  for (const LaneSpec& lane : lanes_for(request, Strategy::send)) {
    auto grid = make_grid(lane);
    ScheduleInfo info = make_info(Collective::allreduce, name, grid->ranks(), lane.dims);
    lanes.push_back(bine::latency_optimal(std::move(info), std::move(grid)));
  }
  return combine_lanes(request, std::move(lanes));
}

// Even P natively; odd P by the standard fold onto P - 1 (Appendix C, first paragraphs).
ScheduleBuilder on_any_ring(ScheduleBuilder native) {
  return [native](const ScheduleRequest& request) {
    if (request.ranks % 2 == 0) return native(request);
    return fold(request, request.ranks - 1, native);
  };
}

struct Variant {
  const char* suffix;
  Strategy strategy;
  const char* summary;
};

// Slices of bine-bw-torus-fold, each leaving out a different line (side_fold.hpp).
constexpr int kFoldParts = 8;

constexpr Variant kVariants[] = {
    {"", Strategy::send,
     "distance-doubling reduce-scatter + distance-halving allgather, sends as if permuted "
     "(one range per send at P = 2^k); any even P natively, odd P folded"},
    {"-block", Strategy::block,
     "bine-bw sending block by block in natural positions (one message per run of blocks)"},
    {"-permute", Strategy::permute,
     "bine-bw with a local permutation first (allgather: last), then contiguous sends"},
    {"-send", Strategy::send, "bine-bw (the send strategy is its default), under its own name"},
    {"-send-wait", Strategy::send_wait,
     "bine-bw whose ranks idle in the allgather's exchange step wait for their first peer "
     "(a zero-byte message; not the paper's): no eager start ahead of the others"},
    {"-two", Strategy::two,
     "bine-bw with two transmissions: distance-halving reduce-scatter, circular ranges (<= 2 "
     "messages per send)"},
};

AlgorithmInfo base(const std::string& name, const char* variant, const char* paper,
                   const std::string& summary) {
  AlgorithmInfo info;
  info.name = name;
  info.family = "bine";
  info.variant = variant;
  info.paper = paper;
  info.summary = summary;
  // The pruned trees combine partial sums in tree order, not rank order.
  info.requirements.commutative_op = true;
  return info;
}

}  // namespace

void register_bine(Registry& registry) {
  const std::vector<Collective> chunked = {Collective::allreduce, Collective::reduce_scatter,
                                           Collective::allgather};
  {
    AlgorithmInfo info =
        base("bine-lat", "latency-optimal", "bine-trees-sc25.txt sections 3.1, 4.4, Appendix C",
             "recursive doubling on a Bine butterfly, ceil(log2 P) steps; any even P natively "
             "(pruned trees), odd P folded");
    info.collectives = {Collective::allreduce};
    info.build = on_any_ring([](const ScheduleRequest& r) { return build_latency(r, "bine-lat"); });
    registry.add(std::move(info));
  }
  for (const Variant& v : kVariants) {
    const std::string name = std::string("bine-bw") + v.suffix;
    AlgorithmInfo info =
        base(name, "bandwidth-optimal",
             "bine-trees-sc25.txt sections 3, 4.3, 4.3.1, 4.4, Appendices A, C", v.summary);
    info.collectives = chunked;
    const Strategy strategy = v.strategy;
    info.build = on_any_ring(
        [name, strategy](const ScheduleRequest& r) { return build_bandwidth(r, name, strategy); });
    registry.add(std::move(info));
  }
  // Torus variants: the butterfly dimension by dimension (Appendix D), lanes on slices of the
  // vector; D.3 pairs ranks along every dimension, so every side must be even.
  struct TorusVariant {
    Description text;
    bool latency;
    Strategy strategy = Strategy::send;
  };
  const TorusVariant torus_variants[] = {
      {{"bine-lat-torus", "latency-optimal, torus-optimized",
        "bine-trees-sc25.txt Appendix D (D.1, D.3, D.4)",
        "bine-lat dimension by dimension on a torus of even sizes; ports 1, D or 2D lanes on "
        "slices of the vector (default 2D: D start dimensions, plain and mirrored)"},
       true},
      {{"bine-bw-torus", "bandwidth-optimal, torus-optimized",
        "bine-trees-sc25.txt Appendix D (D.1-D.4), section 4.3.1",
        "bine-bw dimension by dimension on a torus of even sizes (send strategy); ports 1, D or "
        "2D lanes on slices of the vector (default 2D)"},
       false},
      // The send strategy's allgather starts with an exchange step whose messages differ in
      // length from rank to rank and leave some ranks idle; in a model that injects sends
      // eagerly the ranks then drift apart for the whole butterfly (docs/efficiency.md, "Found
      // defects"). A local permutation instead (section 4.3.1, "Permute") starts every rank
      // on the butterfly at once.
      {{"bine-bw-torus-permute", "bandwidth-optimal, torus-optimized, permute strategy",
        "bine-trees-sc25.txt Appendix D (D.1-D.4), section 4.3.1 (Permute)",
        "bine-bw-torus with a local permutation first (allgather: last) instead of the send "
        "strategy's exchange step; ports 1, D or 2D lanes (default 2D)"},
       false,
       Strategy::permute},
  };
  for (const TorusVariant& v : torus_variants) {
    AlgorithmInfo info = base(v.text.name, v.text.variant, v.text.paper, v.text.summary);
    info.collectives = v.latency ? std::vector<Collective>{Collective::allreduce} : chunked;
    info.requirements.dims = DimsRule::any_torus;
    info.requirements.ranks = RankRule::even;
    info.requirements.sides = SideRule::even;
    info.requirements.ports.per_dimension = true;
    info.requirements.ports.two_per_dimension = true;
    info.requirements.ports.default_ports = PortsRule::Default::two_per_dimension;
    info.build = [name = info.name, latency = v.latency,
                  strategy = v.strategy](const ScheduleRequest& r) {
      return latency ? build_latency(r, name) : build_bandwidth(r, name, strategy);
    };
    registry.add(std::move(info));
  }
  AlgorithmInfo fold =
      base("bine-bw-torus-fold", "bandwidth-optimal, torus-optimized, odd sides folded",
           "bine-trees-sc25.txt Appendix D; odd sides: not the paper's (side_fold.hpp)",
           "bine-bw-torus with every odd side cut by one; the left-out line's ranks fold half the "
           "vector into each neighbour, rotated over 8 slices");
  fold.collectives = {Collective::allreduce};
  fold.requirements.dims = DimsRule::any_torus;
  fold.requirements.sides = SideRule::some_odd;
  // A guest hands its halves to two hosts at once: both directions of every side.
  fold.requirements.ports.one = false;
  fold.requirements.ports.two_per_dimension = true;
  fold.requirements.ports.default_ports = PortsRule::Default::two_per_dimension;
  fold.build = [](const ScheduleRequest& r) {
    return spread_side_fold(r, "bine-bw-torus-fold", kFoldParts, cut_to_even,
                            [](const ScheduleRequest& inner) {
                              return build_bandwidth(inner, "bine-bw-torus", Strategy::send);
                            });
  };
  registry.add(std::move(fold));
}

}  // namespace topocoll::algorithms
