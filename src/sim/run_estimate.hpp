#pragma once
// What a simulation will cost, before it runs (docs/design.md, "4.5 Speed and limits"): the counts
// the models' work and memory grow with, from the schedule's step counts and a sample of its steps
// routed on the topology as the engine routes them (one message per send, or per range under
// SimConfig::message_per_range, one transfer per path, packets of the packet model's mtu). The
// Python front end (python/topocoll/limits.py) turns them into seconds and bytes and refuses runs
// beyond the machine's memory or about ten minutes.
//
// Sampling, by step index, since ranks run their step k at about the same time: every step
// index up to kEstimateStepIndices of them (else that many, evenly spaced, each standing for
// the indices up to the next), and at each index up to kEstimateRanksPerStep ranks (all of
// them for small runs, else drawn with a fixed seed, so the estimate never changes). A step
// index's totals are the mean of its sampled ranks times the ranks that have that step.
#include <cstdint>

#include "core/schedule.hpp"
#include "sim/simulate.hpp"
#include "topology/mapping.hpp"
#include "topology/routing.hpp"
#include "topology/topology.hpp"

namespace topocoll::sim {

inline constexpr int kEstimateStepIndices = 256;
inline constexpr int kEstimateRanksPerStep = 16;
// The route cache holds one entry per (source, destination) pair: kEstimatePeerRanks ranks'
// first kEstimatePeerSteps steps are walked for their distinct peers.
inline constexpr int kEstimatePeerRanks = 8;
inline constexpr std::uint64_t kEstimatePeerSteps = 4096;
// The flow model's symmetry search is run (and cached for the engine) up to this many
// rank-steps plus messages (a few seconds).
inline constexpr double kEstimateSymmetryWork = 1 << 25;

struct RunEstimate {
  std::uint64_t ranks = 0;
  std::uint64_t rank_steps = 0;  // exact: the sum of every rank's step count
  std::uint64_t max_steps = 0;   // exact: the largest step count of a rank
  double messages = 0;           // point-to-point messages (as SimResult::messages counts them)
  double transfers = 0;          // messages x paths (the flows of the flow model)
  double link_crossings = 0;     // transfers x links of their path
  // The flow model keeps the transfers of one send (its ranges on one path, started together)
  // as one group with one rate (flow_network.hpp): groups are sends x paths.
  double groups = 0;
  double group_crossings = 0;  // groups x links of their path
  double packets = 0;          // packet model: per transfer ceil(bytes / mtu), at least 1
  double packet_hops = 0;      // packets x links of their path
  // The flow model's max-min work: over the step indices, group crossings x (1 + the mean
  // number of groups sharing a link in that step), since every change of a step's groups
  // reaches the groups they share links with.
  double flow_work = 0;
  // The flow model's rate updates: over the step indices, the instants at which transfers end
  // (distinct sizes and path lengths) x the links each update reaches (its component).
  double event_work = 0;
  // The same when ranks drift apart (a run without symmetry): every group ends at its own
  // instant.
  double drift_work = 0;
  // The packet model's work: over the step indices, packet hops x (1 + the mean number of
  // transfers sharing a link), since a port scans its busy hop classes for every packet.
  double packet_work = 0;
  double peak_transfers = 0;  // the most transfers of one step index (what is in flight)
  double peak_crossings = 0;  // the most link crossings of one step index
  double peak_groups = 0;     // the most groups of one step index
  double peak_group_crossings = 0;
  std::uint64_t max_hops = 0;
  // The routes the engine caches: distinct (source, destination) pairs, and their paths and
  // links (extrapolated linearly past the steps walked: errs high).
  double route_pairs = 0;
  double route_paths = 0;
  double route_links = 0;  // the longest path sampled (the packet model's hop classes)
  // Flow model on a torus or hypercube: the hosts one simulated host stands for (the engine's
  // translation symmetry, found as the engine finds it), and whether the run qualified for the
  // reduction but has no symmetry, or runs on a Dragonfly, so that its ranks drift apart and
  // every group ends at its own instant.
  std::int64_t symmetry_group = 1;
  bool drifts = false;
  bool symmetry_search = false;  // the engine will search (flow model on a torus or hypercube)
  bool symmetry_known = false;   // and the estimate did (not past kEstimateSymmetrySteps)
  std::uint64_t sampled_steps = 0;
  bool exact = false;  // every rank-step was read
  // Flow model: a time the run cannot beat (time_lower_bound.hpp); 0 for the other models.
  double time_lower_bound_s = 0;
};

// Throws UnsupportedRequest where the engine would (a mapping or vector that does not fit).
// `search`: run the flow model's symmetry search when it is small enough.
[[nodiscard]] RunEstimate estimate_run(const Schedule& schedule, const topo::Topology& topology,
                                       const topo::Router& router, const topo::Mapping& mapping,
                                       const SimConfig& config, bool search = true);

}  // namespace topocoll::sim
