#pragma once
// Ring patterns lifted to D-dimensional tori (trivance.txt section 5): one collective per
// dimension on 1/D of the vector. Collective c runs the ring pattern of every dimension, one
// step at a time; at step t it works on the first dimension with steps left, in cyclic order
// from (c + t) mod D, so on a square torus the collectives use distinct dimensions in every
// step (Fig. 5). A ring is the torus of one dimension.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/ternary/trivance_patterns.hpp"
#include "core/registry.hpp"

namespace topocoll::algorithms {

// What both ternary families need: both directions of every dimension in every step (2 ports
// on a ring, 2D on a torus), and a commutative operator, since partial sums gather ranks around
// a block's owner in ring order, wrapping around.
[[nodiscard]] Requirements ternary_requirements();

using RingPatternFactory = std::function<std::shared_ptr<const RingPattern>(int n)>;
using LatencyRingFactory = std::function<std::shared_ptr<const LatencyRing>(int n)>;

// Reduce-scatter, allgather (its time reverse) or allreduce (both) with 2 ports per collective.
// Reduce-scatter and allgather keep MPI's chunk layout (rank r's chunk is split among the D
// collectives); allreduce gives collective c the contiguous slice c.
[[nodiscard]] SchedulePtr torus_bandwidth_schedule(const ScheduleRequest& request,
                                                   const std::string& name,
                                                   const RingPatternFactory& pattern);

// Allreduce moving each collective's whole slice (B = D blocks) in every step.
[[nodiscard]] SchedulePtr torus_latency_schedule(const ScheduleRequest& request,
                                                 const std::string& name,
                                                 const LatencyRingFactory& ring);

}  // namespace topocoll::algorithms
