#include "sim/run_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_set>
#include <vector>

#include "core/registry.hpp"
#include "sim/message_bytes.hpp"
#include "sim/time_lower_bound.hpp"
#include "sim/translation_symmetry.hpp"
#include "topology/dragonfly.hpp"

namespace topocoll::sim {

namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

struct Tally {
  double messages = 0, transfers = 0, link_crossings = 0, packets = 0, packet_hops = 0;
  double groups = 0, group_crossings = 0;
  // (bytes, links) of each transfer: transfers that differ in either end at different
  // instants, and each instant changes the rates of the flows sharing their links.
  std::vector<std::pair<double, std::size_t>> ends;
  std::uint64_t max_hops = 0;

  void add(const Tally& t, double scale) {
    messages += t.messages * scale;
    transfers += t.transfers * scale;
    link_crossings += t.link_crossings * scale;
    packets += t.packets * scale;
    packet_hops += t.packet_hops * scale;
    groups += t.groups * scale;
    group_crossings += t.group_crossings * scale;
    max_hops = std::max(max_hops, t.max_hops);
  }
};

// Routes the sends of one rank-step as the engine does (Engine::post_send).
class StepCounter {
 public:
  StepCounter(const Schedule& schedule, const topo::Router& router, std::vector<int> host_of,
              const SimConfig& config)
      : schedule_(schedule),
        router_(router),
        host_of_(std::move(host_of)),
        bytes_(schedule.info(), config),
        mtu_(static_cast<double>(config.packet.mtu_bytes)),
        message_per_range_(config.message_per_range) {}

  // Adds the peers of `rank`'s step `step` that are not in `peers` yet, with their routes.
  void add_peers(int rank, int step, std::unordered_set<int>& peers, double& paths, double& links) {
    step_.clear();
    schedule_.build_step(rank, step, step_);
    for (const Operation& op : step_.ops) {
      if (op.kind != OpKind::send || op.peer == rank || !peers.insert(op.peer).second) continue;
      router_.route_set(host_of_[static_cast<std::size_t>(rank)],
                        host_of_[static_cast<std::size_t>(op.peer)], routes_);
      paths += routes_.size();
      links += static_cast<double>(routes_.links.size());
    }
  }

  [[nodiscard]] bool equal_blocks() const { return bytes_.equal_blocks(); }
  [[nodiscard]] const std::vector<int>& host_of() const { return host_of_; }

  void count(int rank, int step, Tally& tally) {
    step_.clear();
    schedule_.build_step(rank, step, step_);
    for (const Operation& op : step_.ops) {
      if (op.kind != OpKind::send || op.peer == rank) continue;
      router_.route_set(host_of_[static_cast<std::size_t>(rank)],
                        host_of_[static_cast<std::size_t>(op.peer)], routes_);
      tally.groups += routes_.size();
      tally.group_crossings += static_cast<double>(routes_.links.size());
      if (!message_per_range_ || op.blocks.empty()) {
        message(static_cast<double>(bytes_.set(op.blocks)), tally);
        continue;
      }
      for (const auto& r : op.blocks.ranges())
        message(static_cast<double>(bytes_.range(r.begin, r.end)), tally);
    }
  }

 private:
  void message(double bytes, Tally& tally) const {
    tally.messages += 1;
    for (int p = 0; p < routes_.size(); ++p) {
      const auto hops = static_cast<double>(routes_.path(p).size());
      tally.max_hops = std::max<std::uint64_t>(tally.max_hops, routes_.path(p).size());
      const double packets = std::max(1.0, std::ceil(bytes * routes_.shares[p] / mtu_));
      tally.transfers += 1;
      tally.link_crossings += hops;
      tally.ends.emplace_back(bytes * routes_.shares[p], routes_.path(p).size());
      tally.packets += packets;
      tally.packet_hops += packets * hops;
    }
  }

  const Schedule& schedule_;
  const topo::Router& router_;
  std::vector<int> host_of_;
  MessageBytes bytes_;
  double mtu_;
  bool message_per_range_;
  Step step_;
  topo::RouteSet routes_;
};

std::vector<int> placed_hosts(const Schedule& schedule, const topo::Topology& topology,
                              const topo::Mapping& mapping) {
  const int ranks = schedule.ranks();
  if (mapping.host_of.size() != static_cast<std::size_t>(ranks))
    throw UnsupportedRequest("the mapping places " + std::to_string(mapping.host_of.size()) +
                             " ranks but the schedule has " + std::to_string(ranks));
  if (const auto problem = placement_problem(schedule.info()))
    throw UnsupportedRequest("the schedule's placement is invalid: " + *problem);
  std::vector<int> host_of(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    const int host = mapping.host_of[static_cast<std::size_t>(schedule.info().node_of(r))];
    if (host < 0 || host >= topology.host_count())
      throw UnsupportedRequest("rank " + std::to_string(r) + " is mapped to host " +
                               std::to_string(host) + ", outside the topology");
    host_of[static_cast<std::size_t>(r)] = host;
  }
  return host_of;
}

// The step indices sampled, each with the number of indices it stands for.
std::vector<std::pair<std::uint64_t, double>> sampled_indices(std::uint64_t max_steps) {
  std::vector<std::pair<std::uint64_t, double>> out;
  const auto n = static_cast<std::uint64_t>(kEstimateStepIndices);
  if (max_steps <= n) {
    for (std::uint64_t k = 0; k < max_steps; ++k) out.emplace_back(k, 1.0);
    return out;
  }
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t k = i * max_steps / n;
    const std::uint64_t next = (i + 1) * max_steps / n;
    out.emplace_back(k, static_cast<double>(next - k));
  }
  return out;
}

// The distinct instants at which a step's transfers end: the distinct (bytes, links) of the
// sample when they repeat, else a share of the step's transfers as large as the sample's.
double completion_instants(Tally& tally, double scale) {
  const auto sampled = static_cast<double>(tally.ends.size());
  if (sampled == 0) return 0;
  std::sort(tally.ends.begin(), tally.ends.end());
  const auto distinct =
      static_cast<double>(std::unique(tally.ends.begin(), tally.ends.end()) - tally.ends.begin());
  return distinct <= sampled / 2 ? distinct : tally.transfers * scale * distinct / sampled;
}

// The links a change of one group's rate reaches: a group of h links meets about h x s others
// when s groups share a link; past one (percolation) the change spreads to the whole step.
double component(double group_crossings, double groups, double links) {
  if (groups <= 0) return 0;
  const double hops = group_crossings / groups;
  const double sharing = group_crossings / links;
  return hops * sharing > 1 ? group_crossings : hops;
}

// The flow model's translation symmetry, as the engine finds it (Engine::use_symmetry_if_any;
// the search caches its answer, so the engine does not search again). Sets the group and
// whether the run qualified for the search but has no symmetry (its ranks drift apart).
void find_symmetry(const Schedule& schedule, const topo::Topology& topology,
                   const topo::Router& router, const StepCounter& counter, const SimConfig& config,
                   bool search, RunEstimate& e) {
  if (config.model != Model::flow || !config.use_symmetry || !config.trace_path.empty()) return;
  if (!TranslationSymmetry::qualifies(topology, router, counter.equal_blocks())) return;
  e.symmetry_search = true;
  // The search reads every message of every rank-step of a symmetric run: past this many,
  // the engine's own search is the first cost of the run (counted by the caller), and no
  // answer is given.
  if (!search || static_cast<double>(e.rank_steps) + e.messages > kEstimateSymmetryWork) return;
  e.symmetry_known = true;
  const auto symmetry =
      TranslationSymmetry::find(schedule, topology, router, counter.host_of(),
                                counter.equal_blocks(), range_view(config, topology));
  e.symmetry_group = symmetry ? symmetry->group_size() : 1;
  e.drifts = !symmetry;
}

}  // namespace

RunEstimate estimate_run(const Schedule& schedule, const topo::Topology& topology,
                         const topo::Router& router, const topo::Mapping& mapping,
                         const SimConfig& config, bool search) {
  const int ranks = schedule.ranks();
  StepCounter counter(schedule, router, placed_hosts(schedule, topology, mapping), config);
  RunEstimate e;
  if (config.model == Model::flow)
    e.time_lower_bound_s = flow_time_lower_bound(schedule, topology, router, counter.host_of());
  e.ranks = static_cast<std::uint64_t>(ranks);
  std::vector<std::uint64_t> steps(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    steps[static_cast<std::size_t>(r)] =
        static_cast<std::uint64_t>(std::max(schedule.step_count(r), 0));
    e.rank_steps += steps[static_cast<std::size_t>(r)];
    e.max_steps = std::max(e.max_steps, steps[static_cast<std::size_t>(r)]);
  }
  const auto indices = sampled_indices(e.max_steps);
  const bool every_rank = ranks <= kEstimateRanksPerStep;
  e.exact = every_rank && indices.size() == e.max_steps;
  const double links = std::max<double>(1.0, static_cast<double>(topology.links().size()));
  Tally total;
  std::uint64_t state = 0x5eed;
  for (const auto& [k, weight] : indices) {
    Tally tally;
    int sampled = 0;
    int with_step = 0;
    for (int i = 0; i < (every_rank ? ranks : kEstimateRanksPerStep); ++i) {
      const int rank = every_rank ? i : static_cast<int>(splitmix64(state) % e.ranks);
      ++sampled;
      if (steps[static_cast<std::size_t>(rank)] <= k) continue;
      ++with_step;
      counter.count(rank, static_cast<int>(k), tally);
    }
    e.sampled_steps += static_cast<std::uint64_t>(with_step);
    // Ranks having step k, estimated from the sample; the sampled ranks' mean for each.
    const double scale = static_cast<double>(ranks) / sampled;
    const double step_crossings = tally.link_crossings * scale;
    const double sharing = 1 + step_crossings / links;
    const double step_group_crossings = tally.group_crossings * scale;
    e.flow_work += weight * step_group_crossings * (1 + step_group_crossings / links);
    const double step_hops = tally.transfers > 0 ? tally.link_crossings / tally.transfers : 0;
    e.packet_work += weight * tally.packet_hops * scale * (1 + std::min(sharing - 1, step_hops));
    const double reach = component(step_group_crossings, tally.groups * scale, links);
    e.event_work += weight * completion_instants(tally, scale) * reach;
    e.drift_work += weight * tally.groups * scale * reach;
    e.peak_transfers = std::max(e.peak_transfers, tally.transfers * scale);
    e.peak_crossings = std::max(e.peak_crossings, step_crossings);
    e.peak_groups = std::max(e.peak_groups, tally.groups * scale);
    e.peak_group_crossings = std::max(e.peak_group_crossings, step_group_crossings);
    total.add(tally, scale * weight);
  }
  // Distinct peers of a few ranks, walked from their first step.
  const int peer_ranks = std::min(ranks, kEstimatePeerRanks);
  double pairs = 0, paths = 0, route_links = 0;
  for (int i = 0; i < peer_ranks; ++i) {
    const int rank =
        ranks <= kEstimatePeerRanks ? i : static_cast<int>(splitmix64(state) % e.ranks);
    const std::uint64_t all = steps[static_cast<std::size_t>(rank)];
    const std::uint64_t walked = std::min(all, kEstimatePeerSteps);
    std::unordered_set<int> peers;
    double rank_paths = 0, rank_links = 0;
    for (std::uint64_t k = 0; k < walked; ++k)
      counter.add_peers(rank, static_cast<int>(k), peers, rank_paths, rank_links);
    double extend = walked > 0 ? static_cast<double>(all) / static_cast<double>(walked) : 0;
    // A rank has at most ranks - 1 peers, however long its schedule.
    const double found = static_cast<double>(peers.size());
    if (found * extend > ranks - 1) extend = (ranks - 1) / found;
    pairs += found * extend;
    paths += rank_paths * extend;
    route_links += rank_links * extend;
  }
  const double per_rank = peer_ranks > 0 ? static_cast<double>(ranks) / peer_ranks : 0;
  e.route_pairs = pairs * per_rank;
  e.route_paths = paths * per_rank;
  e.route_links = route_links * per_rank;
  e.messages = total.messages;
  e.transfers = total.transfers;
  e.link_crossings = total.link_crossings;
  e.groups = total.groups;
  e.group_crossings = total.group_crossings;
  e.packets = total.packets;
  e.packet_hops = total.packet_hops;
  e.max_hops = total.max_hops;
  find_symmetry(schedule, topology, router, counter, config, search, e);
  // A Dragonfly (or Dragonfly+) has no translations, and its minimal routes split a message
  // over paths through different global links whose rates differ, so its groups end at their
  // own instants as those of a run without symmetry do (docs/simulator.md, "Limits before
  // long runs": LUMI at 512 and 1,024 random ranks, Leonardo at 512 to 2,048). Fat trees are
  // left out: their paths are alike and their runs end together.
  if (config.model == Model::flow && dynamic_cast<const topo::DragonflyTopology*>(&topology))
    e.drifts = true;
  return e;
}

}  // namespace topocoll::sim
