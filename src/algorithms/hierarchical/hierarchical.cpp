#include "algorithms/hierarchical/hierarchical.hpp"

#include <algorithm>
#include <memory>

#include "algorithms/common/compose.hpp"
#include "algorithms/hierarchical/intra_node.hpp"
#include "algorithms/hierarchical/on_nodes.hpp"

namespace topocoll::algorithms::hierarchical {
namespace {

constexpr const char* kPaper = "bine-trees-sc25.txt section 6.2";

std::vector<CompositionForm> forms() {
  using C = Collective;
  return {
      {"hier",
       kPaper,
       "intra-node reduce-scatter, INNER among the ranks of equal local index on their 1/K of "
       "the vector, intra-node allgather (Bine's hierarchical allreduce)",
       {C::allreduce, C::reduce_scatter, C::allgather, C::bcast, C::reduce}},
      {"leader",
       kPaper,
       "intra-node reduce (or gather) to a leader, INNER among the N leaders on the whole "
       "vector, intra-node broadcast (or scatter)",
       {C::allreduce, C::reduce_scatter, C::allgather, C::bcast, C::reduce, C::gather, C::scatter}},
  };
}

bool is_hier(const std::string& form) { return form == "hier"; }

LayoutKind layout_kind(const std::string& form, Collective c) {
  const bool chunked = is_chunked_per_rank(c);
  if (is_hier(form)) return chunked ? LayoutKind::rank_chunks : LayoutKind::slice;
  return chunked ? LayoutKind::node_chunks : LayoutKind::whole;
}

// The request the inner algorithm gets: the N nodes on a ring, the root's node as its root.
ScheduleRequest inner_request(const ScheduleRequest& request) {
  const int k = request.ranks_per_node;
  ScheduleRequest inner;
  inner.collective = request.collective;
  inner.ranks = request.ranks / k;
  inner.dims = {inner.ranks};
  inner.ports = request.ports;
  inner.root = request.root / k;
  inner.commutative = request.commutative;
  return inner;
}

// The composed schedule's info: its blocks and slots from the layout, ports for the K - 1
// concurrent intra-node exchanges or the inner's, whichever is more.
ScheduleInfo composed_info(const std::string& name, const ScheduleRequest& request,
                           const Schedule* inner, const PartLayout& layout, const NodeMap& nodes) {
  const int inner_ports = inner ? inner->info().ports : 1;
  const int ports = std::max({1, nodes.per_node() - 1, inner_ports});
  ScheduleRequest flat = request;
  flat.dims = {request.ranks};
  ScheduleInfo info = info_for(flat, name, request.collective, layout.blocks(), ports);
  info.slots = layout.slots();
  info.ranks_per_node = nodes.per_node();
  if (inner) {
    info.keeps_positions = inner->info().keeps_positions;
    const auto& placed = inner->info().placement;
    if (!placed.empty()) {
      // Rank (n, l) runs where the inner puts node n, at the same local index.
      info.placement.resize(static_cast<std::size_t>(request.ranks));
      for (int r = 0; r < request.ranks; ++r) {
        info.placement[static_cast<std::size_t>(r)] =
            nodes.rank_of(placed[static_cast<std::size_t>(nodes.node_of(r))], nodes.local_of(r));
      }
    }
  }
  return info;
}

}  // namespace

Phases composition_phases(const std::string& form, const std::string& inner_name,
                          const ScheduleRequest& request) {
  const int k = request.ranks_per_node;
  const int n = request.ranks / k;
  const Collective c = request.collective;
  auto nodes = std::make_shared<const BlockedNodes>(n, k);
  SchedulePtr inner;
  // One node: the inner collective has nothing to do (no registry algorithm runs on 1 rank).
  if (n >= 2) inner = registry().build(inner_name, inner_request(request));
  const int inner_blocks = inner ? inner->info().blocks : 1;
  const int inner_slots = inner ? inner->info().total_slots() : 1;
  const int per_chunk = inner && is_chunked_per_rank(c) ? inner->info().blocks_per_chunk() : 1;
  auto layout = std::make_shared<const PartLayout>(layout_kind(form, c), nodes, inner_blocks,
                                                   inner_slots, per_chunk);
  Phases out;
  out.info = composed_info(form + ":" + inner_name, request, inner.get(), *layout, *nodes);
  const ScheduleInfo& info = out.info;

  const int root = is_rooted(c) ? request.root : 0;
  const int root_node = nodes->node_of(root);
  const int root_local = nodes->local_of(root);
  const auto whole = BlockSet::range(0, static_cast<BlockIndex>(info.blocks));
  const BlocksOf part = [nodes, layout](int rank) { return layout->part(nodes->local_of(rank)); };
  const BlocksOf chunk = [layout](int rank) { return layout->chunk_of(rank); };
  const BlocksOf all = [whole](int) { return whole; };
  const BlocksOf all_but_chunk = [layout, whole](int rank) {
    const BlockRange own = layout->chunk_of(rank).ranges().front();
    BlockSet rest;
    rest.add(0, own.begin);
    rest.add(own.end, whole.ranges().front().end);
    return rest;
  };
  const RankFilter everywhere = every_node();
  const RankFilter on_root_node = [nodes, root_node](int rank) {
    return nodes->node_of(rank) == root_node;
  };
  const RankFilter nobody = [](int) { return false; };
  const RankFilter is_root = [root](int rank) { return rank == root; };
  // The leader of a node: the root's local index for the rooted collectives (so the root is
  // its node's leader and no extra hop is needed), local index 0 otherwise.
  const int leader = is_rooted(c) ? root_local : 0;
  auto on_nodes = [&]() {
    return std::make_unique<OnNodes>(info, std::move(inner), nodes, layout,
                                     is_hier(form) ? -1 : leader);
  };
  auto& p = out.phases;
  if (is_hier(form)) {
    switch (c) {
      case Collective::allreduce:
      case Collective::reduce_scatter:
        p.push_back(reduce_scatter_in_nodes(info, nodes, part));
        p.push_back(on_nodes());
        p.push_back(allgather_in_nodes(info, nodes, part, nobody));
        break;
      case Collective::allgather:
        p.push_back(on_nodes());
        p.push_back(allgather_in_nodes(info, nodes, part, nobody));
        break;
      case Collective::bcast:
        // The root hands each rank of its node that rank's part; each local index then
        // broadcasts its part across the nodes, and every node gathers the parts.
        p.push_back(send_from_leader(info, nodes, root_local, part, on_root_node));
        p.push_back(on_nodes());
        p.push_back(allgather_in_nodes(info, nodes, part, is_root));
        break;
      case Collective::reduce:
        p.push_back(reduce_scatter_in_nodes(info, nodes, part));
        p.push_back(on_nodes());
        p.push_back(gather_to_leader(info, nodes, root_local, part, on_root_node));
        break;
      default: throw UnsupportedRequest("hier: has no form for this collective");
    }
    return out;
  }
  switch (c) {
    case Collective::allreduce:
      p.push_back(reduce_to_leader(info, nodes, leader, all));
      p.push_back(on_nodes());
      p.push_back(send_from_leader(info, nodes, leader, all, everywhere));
      break;
    case Collective::reduce:
      p.push_back(reduce_to_leader(info, nodes, leader, all));
      p.push_back(on_nodes());
      break;
    case Collective::bcast:
      p.push_back(on_nodes());
      p.push_back(send_from_leader(info, nodes, leader, all, everywhere));
      break;
    case Collective::allgather:
      p.push_back(gather_to_leader(info, nodes, leader, chunk, everywhere));
      p.push_back(on_nodes());
      p.push_back(send_from_leader(info, nodes, leader, all_but_chunk, everywhere));
      break;
    case Collective::reduce_scatter:
      p.push_back(reduce_to_leader(info, nodes, leader, all));
      p.push_back(on_nodes());
      p.push_back(send_from_leader(info, nodes, leader, chunk, everywhere));
      break;
    case Collective::gather:
      p.push_back(gather_to_leader(info, nodes, leader, chunk, everywhere));
      p.push_back(on_nodes());
      break;
    case Collective::scatter:
      p.push_back(on_nodes());
      p.push_back(send_from_leader(info, nodes, leader, chunk, everywhere));
      break;
    default: throw UnsupportedRequest("leader: has no form for this collective");
  }
  return out;
}

SchedulePtr in_sequence(Phases phases) {
  return std::make_unique<PhaseSequence>(std::move(phases.info), std::move(phases.phases));
}

namespace {

// The inner's requirements on the node count, after the composed request's own.
std::optional<std::string> node_rejection(const std::string& name, const std::string& inner_name,
                                          const ScheduleRequest& request) {
  const int k = request.ranks_per_node;
  if (k < 1) return "ranks per node must be >= 1 (got " + std::to_string(k) + ")";
  if (request.ranks % k != 0) {
    return name + " needs the ranks to fill whole nodes: P = " + std::to_string(request.ranks) +
           " is not a multiple of " + std::to_string(k) + " ranks per node; accepted: P = N x K";
  }
  const AlgorithmInfo& inner = registry().get(inner_name);
  const ScheduleRequest on_nodes = inner_request(request);
  if (on_nodes.ranks == 1) {
    // Nothing runs between nodes; only the operator rule still applies.
    if (inner.requirements.commutative_op && !request.commutative)
      return name + ": " + inner_name + " reorders operands and needs a commutative operator";
    return std::nullopt;
  }
  if (auto why = Registry::rejection(inner, on_nodes)) {
    return name + " runs " + inner_name + " on " + std::to_string(on_nodes.ranks) + " nodes of " +
           std::to_string(k) + " ranks: " + *why;
  }
  return std::nullopt;
}

std::vector<Collective> shared_collectives(const CompositionForm& form, const AlgorithmInfo& a) {
  std::vector<Collective> out;
  for (Collective c : form.collectives)
    if (a.supports(c)) out.push_back(c);
  return out;
}

AlgorithmInfo composition_info(const CompositionForm& form, const AlgorithmInfo& inner) {
  AlgorithmInfo info;
  info.name = form.name + ":" + inner.name;
  info.family = form.name;
  info.variant = inner.name;
  info.paper = form.paper + "; inner: " + inner.paper;
  info.summary = form.name + " composition of " + inner.name + ": " + form.summary;
  info.baseline = inner.baseline;
  info.collectives = shared_collectives(form, inner);
  // The composed ranks are one ring of P = N x K; the inner's port, operator and root rules
  // read the same on its ring of N nodes, and `further_rejection` checks its rank rules there.
  Requirements& req = info.requirements;
  req.min_ranks = 2;
  req.ports = inner.requirements.ports;
  req.commutative_op = inner.requirements.commutative_op;
  req.commutative_op_beyond_one_port_ring = inner.requirements.commutative_op_beyond_one_port_ring;
  req.root = inner.requirements.root;
  info.composition = AlgorithmInfo::Composition{form.name, inner.name};
  info.further_rejection = [name = info.name, inner_name = inner.name](const ScheduleRequest& r) {
    return node_rejection(name, inner_name, r);
  };
  info.build = [form_name = form.name, inner_name = inner.name](const ScheduleRequest& r) {
    return in_sequence(composition_phases(form_name, inner_name, r));
  };
  return info;
}

}  // namespace

void register_compositions(Registry& registry) {
  const std::vector<AlgorithmInfo> flat = registry.all();
  for (CompositionForm& form : forms()) {
    for (const AlgorithmInfo& inner : flat) {
      if (!shared_collectives(form, inner).empty())
        registry.add_composition(composition_info(form, inner));
    }
    registry.add_composition_form(std::move(form));
  }
}

}  // namespace topocoll::algorithms::hierarchical
