#pragma once
// What a run's timers and limits are derived from: the worst-case round trip of a block (the
// host retransmission timer's minimum), the simulated horizon, and what a run will cost
// (memory, events) before it starts.
#include <cstdint>

#include "sim/innet/innet_config.hpp"
#include "topology/fattree.hpp"

namespace topocoll::sim::innet {

// The longest a block can take from a host's send to its result in a lossless network without
// failures (see bounds.cpp for the terms).
double worst_case_rtt_s(const topo::FatTreeTopology& topology, const InnetConfig& config);

// The host timer's minimum: config.rto_s, or worst_case_rtt_s when it is 0.
double base_rto_s(const topo::FatTreeTopology& topology, const InnetConfig& config);

// The simulated time after which a run stops unfinished: config.max_time_s, or a horizon that
// every algorithm meets unless something goes wrong.
double horizon_s(const topo::FatTreeTopology& topology, const InnetConfig& config);

struct InnetEstimate {
  std::uint64_t memory_bytes = 0;
  std::uint64_t events = 0;
  double seconds = 0;  // at kEventsPerSecond
};

// Events per second of the engine on the shared 2-core development machine: 2.4-2.7 M/s
// measured (docs/innet.md, "Speed"); the low end of a loaded machine, so estimates err long.
inline constexpr double kEventsPerSecond = 1.5e6;
// Longer runs, or runs needing more memory than the machine has, need config.force.
inline constexpr double kTimeLimitSeconds = 600;

InnetEstimate estimate_innet(const topo::FatTreeTopology& topology, const InnetConfig& config);

// UnsupportedRequest naming the estimate when the run is beyond the limits and not forced.
void check_limits(const topo::FatTreeTopology& topology, const InnetConfig& config);

}  // namespace topocoll::sim::innet
