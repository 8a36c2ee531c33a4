#pragma once
// A lower bound on the flow model's time of a run, from one rank's lanes alone (docs/simulator.md,
// "Lower bound"). The engine starts each step of a lane alpha after the lane's previous step
// ended (the first alpha after time 0), and a step that sends to another host ends no earlier
// than each of its messages has crossed the latencies of its path (the shortest of its paths:
// a message is split over them). So a lane takes at least the sum over its steps of alpha plus
// the largest of those latencies over the step's sends; the run ends when its
// last rank does, so rank 0's longest lane bounds it. Bandwidth, sharing, reductions and waits
// for other ranks are left out: the bound is close to the time of a latency-bound run and far
// below a bandwidth-bound one. `topocoll.compare(prune=True)` uses it to skip baselines that
// cannot be the best.
#include <span>

#include "core/schedule.hpp"
#include "topology/routing.hpp"
#include "topology/topology.hpp"

namespace topocoll::sim {

// host_of: the host of every rank (the engine's placement).
[[nodiscard]] double flow_time_lower_bound(const Schedule& schedule, const topo::Topology& topology,
                                           const topo::Router& router,
                                           std::span<const int> host_of);

}  // namespace topocoll::sim
