// Tree-based hypercube baselines of cm200-all-to-all-tr0293.txt section 5:
//  - spanning-trees (alternative 1): broadcast and reduce over d edge-disjoint spanning trees;
//    all-to-all broadcast as one such broadcast per source, one source at a time, and
//    all-to-all reduction as its reversed data motion.
//  - gather-bcast (alternative 3): gather to a dedicated node (the root), then one broadcast
//    of everything over the edge-disjoint trees; reduce-scatter and allreduce are the
//    reduction duals (reduce over the reversed trees, then scatter or broadcast).
//  - rotated-binomial (alternative 4): broadcast, reduce, scatter and gather over d rotated
//    spanning binomial trees. Its all-to-all form is the butterfly registered as
//    reduce-and-spread (hamiltonian.cpp), which the paper names the same algorithm.
// Every schedule uses the d ports of the cube (ports=1 takes the dimensions in turn).
#include <memory>

#include "algorithms/common/compose.hpp"
#include "algorithms/families.hpp"
#include "algorithms/hypercube/hypercube_common.hpp"
#include "algorithms/hypercube/hypercube_trees.hpp"

namespace topocoll::algorithms {
namespace {

using hypercube::EdgeDisjointTreesBroadcast;
using hypercube::Reversed;
using hypercube::RotatedTreesBroadcast;
using hypercube::RotatedTreesScatter;

// Packets per edge-disjoint tree: the pipeline then runs 2d steps of 1/d^2 of the data, within a
// factor two of both the step bound (d + 1) and the bandwidth bound (1/d of the data per port).
int packets_per_tree(int d) { return d; }

struct Shape {
  const ScheduleRequest& request;
  std::string name;
  int d;
  int p() const { return request.ranks; }
  ScheduleInfo info(Collective c, int blocks) const {
    return hypercube::family_info(request, name, c, blocks, d);
  }
};

SchedulePtr edst_broadcast(const Shape& s, Collective c, int blocks) {
  return std::make_unique<EdgeDisjointTreesBroadcast>(s.info(c, blocks), s.d,
                                                      packets_per_tree(s.d));
}

SchedulePtr reversed(SchedulePtr inner, Collective c, Combine combine) {
  ScheduleInfo info = inner->info();
  info.collective = c;
  return std::make_unique<Reversed>(info, std::move(inner), combine);
}

SchedulePtr phases(Collective c, SchedulePtr first, SchedulePtr second) {
  ScheduleInfo info = first->info();
  info.collective = c;
  std::vector<SchedulePtr> list;
  list.push_back(std::move(first));
  list.push_back(std::move(second));
  return std::make_unique<PhaseSequence>(info, std::move(list));
}

SchedulePtr spanning_trees(const Shape& s) {
  const int q = packets_per_tree(s.d);
  const Collective c = s.request.collective;
  if (c == Collective::bcast) return edst_broadcast(s, c, s.d * q);
  if (c == Collective::reduce) return reversed(edst_broadcast(s, c, s.d * q), c, Combine::reduce);
  ScheduleInfo info = s.info(Collective::allgather, s.p() * s.d * q);
  info.root = 0;
  auto allgather = std::make_unique<hypercube::SequentialBroadcasts>(info, s.d, q);
  if (c == Collective::allgather) return allgather;
  return reversed(std::move(allgather), c, Combine::reduce);
}

SchedulePtr gather_bcast(const Shape& s) {
  const Collective c = s.request.collective;
  if (c == Collective::allreduce) {
    const int blocks = s.d * packets_per_tree(s.d);
    return phases(c, reversed(edst_broadcast(s, c, blocks), c, Combine::reduce),
                  edst_broadcast(s, c, blocks));
  }
  const int blocks = s.p() * s.d;  // part k of every chunk follows rotated tree k
  auto scatter = std::make_unique<RotatedTreesScatter>(s.info(Collective::scatter, blocks), s.d);
  if (c == Collective::allgather) {
    return phases(c, reversed(std::move(scatter), Collective::gather, Combine::copy),
                  edst_broadcast(s, Collective::bcast, blocks));
  }
  return phases(c, reversed(edst_broadcast(s, c, blocks), c, Combine::reduce), std::move(scatter));
}

SchedulePtr rotated_binomial(const Shape& s) {
  const Collective c = s.request.collective;
  if (c == Collective::bcast || c == Collective::reduce) {
    auto bcast = std::make_unique<RotatedTreesBroadcast>(s.info(c, s.d), s.d);
    if (c == Collective::bcast) return bcast;
    return reversed(std::move(bcast), c, Combine::reduce);
  }
  auto scatter = std::make_unique<RotatedTreesScatter>(s.info(c, s.p() * s.d), s.d);
  if (c == Collective::scatter) return scatter;
  return reversed(std::move(scatter), c, Combine::copy);
}

using Builder = SchedulePtr (*)(const Shape&);

struct Entry {
  Description text;
  std::vector<Collective> collectives;
  Builder builder;
  RootUse root;
};

AlgorithmInfo info_of(const Entry& e) {
  AlgorithmInfo info = described("hypercube", e.text);
  // Section 5's alternatives to the Hamiltonian cycles: what the paper compares against.
  info.baseline = true;
  info.collectives = e.collectives;
  info.requirements.ranks = RankRule::power_of_two;
  info.requirements.dims = DimsRule::any_torus;
  info.requirements.sides = SideRule::binary_cube;
  info.requirements.ports.per_dimension = true;
  info.requirements.ports.default_ports = PortsRule::Default::per_dimension;
  // Partial sums meet in tree order, not rank order.
  info.requirements.commutative_op = true;
  info.requirements.root = e.root;
  const std::string name = e.text.name;
  const Builder builder = e.builder;
  info.build = [name, builder](const ScheduleRequest& request) {
    const Shape shape{request, name, hypercube::cube_dimension(request, name)};
    return hypercube::finish(builder(shape), shape.d, request.ports, hypercube::Labels::binary,
                             false);
  };
  return info;
}

}  // namespace

void register_hypercube_rooted(Registry& registry) {
  const Entry entries[] = {
      {{"spanning-trees", "d edge-disjoint spanning trees, pipelined",
        "cm200-all-to-all-tr0293.txt section 5 (alternative 1)",
        "broadcast over d edge-disjoint trees of height d+1, d packets per tree; allgather "
        "broadcasts from one rank at a time; reduce and reduce-scatter reverse them"},
       {Collective::bcast, Collective::reduce, Collective::allgather, Collective::reduce_scatter},
       spanning_trees,
       RootUse::rooted_collectives},
      // Every collective of gather-bcast collects at the request's root first.
      {{"gather-bcast", "gather to the root, then broadcast",
        "cm200-all-to-all-tr0293.txt section 5 (alternative 3)",
        "allgather = rotated-binomial gather to the root + edge-disjoint-tree broadcast; "
        "reduce-scatter and allreduce reduce to the root first"},
       {Collective::allgather, Collective::reduce_scatter, Collective::allreduce},
       gather_bcast,
       RootUse::every_collective},
      {{"rotated-binomial", "d rotated spanning binomial trees",
        "cm200-all-to-all-tr0293.txt section 5 (alternative 4)",
        "slice k of the data follows the binomial tree taking dimensions k, k+1, ... (mod d): d "
        "steps, d ports busy"},
       {Collective::bcast, Collective::reduce, Collective::gather, Collective::scatter},
       rotated_binomial,
       RootUse::rooted_collectives},
  };
  for (const Entry& e : entries) registry.add(info_of(e));
}

}  // namespace topocoll::algorithms
