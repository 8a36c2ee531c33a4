#pragma once
// The `simgrid` model (docs/simulator-simgrid.md): the same schedules on SimGrid 3.32, the
// independent check of the flow model. Built only when CMake finds SimGrid (TOPOCOLL_HAVE_SIMGRID).
//
// Network: pure latency plus max-min sharing (network/model:CM02 with TCP-gamma 0, crosstraffic
// 0, weight-S 0, latency and bandwidth factors 1). Every cable whose two directions are links of
// the topology with equal parameters becomes one SPLITDUPLEX link (its UP and DOWN halves are
// our two directed links); a directed link without a partner becomes a SHARED link of its own.
// SimGrid's links get latency 0 and each message enters SimGrid once its path latency (the sum
// of its links' latencies) has passed: CM02 makes a flow's sharing penalty equal to its route
// latency, so with latency on the links a flow's max-min share would shrink with its hop count
// (TCP's RTT unfairness), which the flow model does not do.
// Routing is single-path and ours: for every pair of hosts that communicate, the router's path
// (use `dor`) is given to SimGrid as an explicit route, so SimGrid and the flow model send every
// message over the same links. A router that splits a message over several paths is refused.
//
// Execution mirrors the flow model's rules (src/sim/engine.hpp): one actor per rank runs its
// lazily generated steps; step k is posted alpha after step k-1 completed (step 0 at alpha);
// a send is one message (put_async on the mailbox of (sender, receiver, port); one per range
// under SimConfig::message_per_range); sends are eager (every mailbox has its receiver as permanent
// receiver, so data flows before the receive is posted); a step completes when its messages have
// arrived, then its reductions cost reduce_s_per_byte per reduced byte. Rank r runs on host
// mapping.host_of[placement(r)] (the schedule's placement composed with the user's mapping).
//
// SimGrid keeps global state per process and cannot run a second simulation after the first
// (its engine is a process-wide singleton that cannot be reset), so every call runs the
// simulation in a forked child process and reads the result back through a pipe: repeated calls
// from one process (tests, `topocoll compare`) work, and the caller's memory is untouched.
//
// Reported: time, goodput, messages, transfers (= messages, single-path) and per-rank finish
// times. Per-link figures (--links, utilizations) and traces are the analytic and flow models'
// (a request for a trace is refused). Host costs (topo::HostCosts) are the other models'; a
// request with any is refused.
#include "sim/simulate.hpp"

namespace topocoll::sim {

// Throws UnsupportedRequest for a request the model cannot serve (multi-path routing, a trace,
// a mapping that does not fit), std::runtime_error when the SimGrid process fails.
[[nodiscard]] SimResult simulate_simgrid(const Schedule& schedule, const topo::Topology& topology,
                                         const topo::Router& router, const topo::Mapping& mapping,
                                         const SimConfig& config);

}  // namespace topocoll::sim
