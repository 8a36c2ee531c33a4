// All-to-all broadcast (allgather) and all-to-all reduction (reduce-scatter) on a binary d-cube
// along Hamiltonian cycles (cm200-all-to-all-tr0293.txt section 4), with the reduce-and-spread
// butterfly of section 5 (Fig. 21) as the baseline. Reduce-scatter is the allgather's data
// motion reversed (section 4.2.2); allreduce is reduce-scatter followed by allgather, except for
// reduce-and-spread, whose Fig. 21 butterfly is itself an allreduce.
//
// Node labels (section 3): the `-gray` names place rank r on node G(r), the CM-200 default, so
// the single cycle is the plain rank ring; the plain names place rank r on node r.
#include <memory>

#include "algorithms/common/compose.hpp"
#include "algorithms/families.hpp"
#include "algorithms/hypercube/hypercube_butterfly.hpp"
#include "algorithms/hypercube/hypercube_common.hpp"
#include "core/rank_math.hpp"

namespace topocoll::algorithms {
namespace {

using hypercube::across;
using hypercube::gray;
using hypercube::gray_inverse;
using hypercube::Labels;

// Allgather along the Gray-code cycle G(0), G(1), ..., G(P-1) (section 4.1, Fig. 5): every
// node passes on, `direction` positions along the cycle, what it received in the step before.
class CycleAllgather final : public Schedule {
 public:
  CycleAllgather(ScheduleInfo info, int direction)
      : Schedule(std::move(info)), direction_(direction) {}
  [[nodiscard]] int step_count(int) const override { return ranks() - 1; }

  void build_step(int node, int step, Step& out) const override {
    const int p = ranks();
    const int pos = static_cast<int>(gray_inverse(static_cast<unsigned>(node)));
    auto at = [&](long long position) { return static_cast<int>(gray(mod(position, p))); };
    const auto sent = static_cast<BlockIndex>(at(pos - direction_ * step));
    const auto received = static_cast<BlockIndex>(at(pos - direction_ * (step + 1)));
    out.ops.push_back(Operation::send(at(pos + direction_), BlockSet::single(sent)));
    out.ops.push_back(
        Operation::recv(at(pos - direction_), BlockSet::single(received), Combine::copy));
  }

 private:
  int direction_;
};

// Allgather along d Hamiltonian cycles (section 4.2.1, Figs. 8 and 10): part i of every chunk
// (block n*d + i) follows exchange sequence i, the transition sequence shifted by i mod d, so
// the d parts use the d dimensions in every step. After u steps part i of chunk n has visited
// nodes n ^ sh^i(G(0)), ..., n ^ sh^i(G(u)); a node forwards what it received last.
class DCyclesAllgather final : public Schedule {
 public:
  DCyclesAllgather(ScheduleInfo info, int d) : Schedule(std::move(info)), d_(d) {}
  [[nodiscard]] int step_count(int) const override { return ranks() - 1; }

  void build_step(int node, int step, Step& out) const override {
    const auto u = static_cast<unsigned>(step);
    for (int i = 0; i < d_; ++i) {
      const int dim = (hypercube::transition(u) + i) % d_;
      const int peer = across(node, dim);
      const unsigned sent = static_cast<unsigned>(node) ^ hypercube::rotate_left(gray(u), i, d_);
      const unsigned got = static_cast<unsigned>(node) ^ hypercube::rotate_left(gray(u + 1), i, d_);
      out.ops.push_back(Operation::send(peer, BlockSet::single(sent * d_ + i), dim));
      out.ops.push_back(Operation::recv(peer, BlockSet::single(got * d_ + i), Combine::copy, dim));
    }
  }

 private:
  int d_;
};

enum class Method { cycle, d_cycles, reduce_and_spread };

struct Variant {
  std::string name;
  Method method;
  Labels labels;
};

// The node-space allgather of a Hamiltonian method for the requested port count.
SchedulePtr node_allgather(const ScheduleRequest& request, const Variant& v, int d) {
  const int p = request.ranks;
  auto info = [&](int blocks, int ports) {
    return hypercube::family_info(request, v.name, Collective::allgather, blocks, ports);
  };
  if (v.method == Method::d_cycles) return std::make_unique<DCyclesAllgather>(info(p * d, d), d);
  if (request.ports == 1) return std::make_unique<CycleAllgather>(info(p, 1), +1);
  // Two ports: the cycle in both directions, each on half of every chunk.
  std::vector<SchedulePtr> lanes;
  lanes.push_back(std::make_unique<CycleAllgather>(info(p, 1), +1));
  lanes.push_back(std::make_unique<CycleAllgather>(info(p, 1), -1));
  return std::make_unique<LaneSet>(lanes_info(lanes.front()->info(), 2), std::move(lanes),
                                   LaneLayout{2, 1});
}

ScheduleInfo as(const ScheduleInfo& info, Collective collective) {
  ScheduleInfo out = info;
  out.collective = collective;
  return out;
}

SchedulePtr hamiltonian_node_schedule(const ScheduleRequest& request, const Variant& v, int d) {
  auto allgather = [&] { return node_allgather(request, v, d); };
  auto reduce_scatter = [&] {
    SchedulePtr ag = allgather();
    ScheduleInfo info = as(ag->info(), Collective::reduce_scatter);
    return std::make_unique<hypercube::Reversed>(info, std::move(ag), Combine::reduce);
  };
  switch (request.collective) {
    case Collective::allgather: return allgather();
    case Collective::reduce_scatter: return reduce_scatter();
    default: break;
  }
  std::vector<SchedulePtr> phases;
  phases.push_back(reduce_scatter());
  phases.push_back(allgather());
  ScheduleInfo info = as(phases.back()->info(), Collective::allreduce);
  return std::make_unique<PhaseSequence>(info, std::move(phases));
}

// Reduce-and-spread: Fig. 21 for allreduce (B = d, one slice per dimension) and for
// reduce-scatter (B = P, the CM-200 way: reduce everything everywhere, keep your chunk);
// the spread alone (alternative 4) for allgather.
SchedulePtr butterfly_node_schedule(const ScheduleRequest& request, const Variant& v, int d) {
  const int p = request.ranks;
  const Collective c = request.collective;
  if (c == Collective::allgather) {
    auto info = hypercube::family_info(request, v.name, c, p * d, d);
    return std::make_unique<hypercube::RotatedSpread>(info, d);
  }
  const int blocks = c == Collective::allreduce ? d : p;
  auto info = hypercube::family_info(request, v.name, c, blocks, d);
  return std::make_unique<hypercube::ReduceAndSpread>(info, d);
}

SchedulePtr build(const ScheduleRequest& request, const Variant& v) {
  const int d = hypercube::cube_dimension(request, v.name);
  if (v.method == Method::reduce_and_spread) {
    // Only the spread moves chunks; the reductions treat every block alike.
    const bool chunks = request.collective == Collective::allgather;
    return hypercube::finish(butterfly_node_schedule(request, v, d), d, request.ports, v.labels,
                             chunks);
  }
  return hypercube::finish(hamiltonian_node_schedule(request, v, d), d, request.ports, v.labels,
                           true);
}

AlgorithmInfo entry(const Variant& v, std::string variant, std::string paper, std::string summary) {
  AlgorithmInfo info;
  info.name = v.name;
  info.family = "hypercube";
  info.variant = std::move(variant) +
                 (v.labels == Labels::gray ? ", Gray-code node labels" : ", binary node labels");
  info.paper = "cm200-all-to-all-tr0293.txt " + std::move(paper);
  info.summary = std::move(summary) + (v.labels == Labels::gray ? " (rank r on node G(r))" : "");
  info.collectives = {Collective::allreduce, Collective::reduce_scatter, Collective::allgather};
  info.requirements.ranks = RankRule::power_of_two;
  info.requirements.dims = DimsRule::any_torus;
  info.requirements.sides = SideRule::binary_cube;
  // Partial sums travel along cycles and subcubes, not in rank order.
  info.requirements.commutative_op = true;
  info.build = [v](const ScheduleRequest& request) { return build(request, v); };
  return info;
}

}  // namespace

void register_hamiltonian(Registry& registry) {
  struct Entry {
    const char* name;
    Method method;
    const char* variant;
    const char* section;
    const char* summary;
    bool two_ports;  // ports=2: both directions of one cycle; otherwise ports=d
  };
  const Entry entries[] = {
      {"hamiltonian-cycle", Method::cycle, "one Hamiltonian cycle", "sections 3, 4.1",
       "shifts along the Gray-code cycle of the cube, P-1 steps per phase; ports=2 runs both "
       "directions",
       true},
      {"hamiltonian-d-cycles", Method::d_cycles, "d Hamiltonian cycles", "sections 4.2.1-4.2.3",
       "d rotated exchange sequences, every channel busy in every step, P-1 steps per phase; "
       "ports=1 takes the dimensions in turn",
       false},
      {"reduce-and-spread", Method::reduce_and_spread,
       "butterfly emulation with d rotated binomial trees", "section 5, Fig. 21",
       "d-step butterfly on d slices at once; reduce-scatter keeps its chunk of the allreduce, "
       "allgather is the spread alone; ports=1 takes the dimensions in turn",
       false},
  };
  for (Labels labels : {Labels::binary, Labels::gray}) {
    const std::string suffix = labels == Labels::gray ? "-gray" : "";
    for (const Entry& e : entries) {
      AlgorithmInfo info =
          entry({e.name + suffix, e.method, labels}, e.variant, e.section, e.summary);
      // Reduce-and-spread (the butterfly) is what section 6 (Tables 13-15) compares the cycles
      // against.
      info.baseline = e.method == Method::reduce_and_spread;
      if (e.two_ports) {
        info.requirements.ports.two = true;
      } else {
        info.requirements.ports.per_dimension = true;
        info.requirements.ports.default_ports = PortsRule::Default::per_dimension;
      }
      registry.add(std::move(info));
    }
  }
}

}  // namespace topocoll::algorithms
