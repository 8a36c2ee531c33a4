#pragma once
// Runs a schedule on a network model and measures it (issue 7). The engines consume the
// lazily generated per-rank steps and never know which algorithm they run.
#include <cstdint>
#include <string>
#include <vector>

#include "core/schedule.hpp"
#include "topology/mapping.hpp"
#include "topology/routing.hpp"
#include "topology/topology.hpp"

namespace topocoll::sim {

enum class Model { analytic, flow, simgrid };

struct SimConfig {
  Model model = Model::flow;
  std::uint64_t vector_bytes = 0;  // bytes of the user vector (per rank for chunked collectives:
                                   // the MPI count x type size, as BlockPartition counts)
  int element_bytes = 1;           // bytes per element, for the block partition
  bool record_links = false;       // fill SimResult::links
  std::string trace_path;          // Chrome trace-event JSON, empty for none
};

struct LinkUsage {
  int link = 0;
  double bytes = 0;
  double busy_s = 0;  // time with at least one flow on the link
};

struct SimResult {
  double time_s = 0;                // completion time of the last rank
  double goodput_gbps = 0;          // vector bytes x 8 / time_s / 1e9 (the papers' goodput)
  std::uint64_t messages = 0;       // point-to-point messages (one per range unless packed)
  std::uint64_t transfers = 0;      // flows simulated (messages x paths)
  double max_link_utilization = 0;  // busy fraction of time_s, over links that carried data
  double mean_link_utilization = 0;
  std::vector<LinkUsage> links;  // when record_links
  std::vector<double> rank_finish_s;
};

// Throws UnsupportedRequest for a request the model cannot serve (more ranks than hosts, ...).
[[nodiscard]] SimResult simulate(const Schedule& schedule, const topo::Topology& topology,
                                 const topo::Router& router, const topo::Mapping& mapping,
                                 const SimConfig& config);

}  // namespace topocoll::sim
