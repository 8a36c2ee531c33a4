#pragma once
// Runs a schedule on a network model and measures it (docs/design.md, "4.1 Engine semantics"). The
// engines consume the lazily generated per-rank steps and never know which algorithm they run.
#include <cstdint>
#include <string>
#include <vector>

#include "core/schedule.hpp"
#include "topology/mapping.hpp"
#include "topology/routing.hpp"
#include "topology/topology.hpp"

namespace topocoll::sim {

enum class Model { analytic, flow, packet, simgrid };

// The packet model's parameters (docs/simulator-packet.md). The defaults: 4 KiB of payload per
// packet (the InfiniBand MTU, also the page size most NICs DMA), no header so that the
// packet and flow models differ only in their dynamics (--header 57B gives Canary's framing),
// and 64 KiB per buffer: more than a link's bandwidth-delay product of the papers' presets
// (50 GB/s x 400 ns = 20 KB plus two packets), so credits never throttle a lone stream.
struct PacketParams {
  std::uint64_t mtu_bytes = 4096;         // payload bytes per packet
  std::uint64_t header_bytes = 0;         // added to every packet on the wire
  std::uint64_t buffer_bytes = 64 << 10;  // per output port and hop class (virtual channel)
};

struct SimConfig {
  Model model = Model::flow;
  std::uint64_t vector_bytes = 0;  // bytes of the user vector (per rank for chunked collectives:
                                   // the MPI count x type size, as BlockPartition counts)
  int element_bytes = 1;           // bytes per element, for the block partition
  bool record_links = false;       // fill SimResult::links
  std::string trace_path;          // Chrome trace-event JSON, empty for none
  // Flow model on a torus or hypercube: simulate one host per orbit of the run's translation
  // symmetry when it has one (translation_symmetry.hpp). Off: every rank (tests compare both).
  bool use_symmetry = true;
  PacketParams packet;  // Model::packet only
  // Flow model on a Dragonfly or Dragonfly+: the fraction of every global link's capacity that
  // other jobs take (flow_network.hpp, "Background load"); 0: the job is alone.
  double global_load = 0;
  // Models a runtime that sends each range of a send's block set as its own message (one
  // overhead and one flow each, no packing). Off: a send is one message, whatever its ranges,
  // as the MPI runtime sends it (one derived datatype), and host costs charge the pack and
  // unpack copies (docs/host-costs.md).
  bool message_per_range = false;
  // The call passes MPI_IN_PLACE. Off: an out-of-place call, whose input the MPI runtime copies
  // outside the schedule (call_copies.hpp), charged at the host's copy rate.
  bool in_place = false;
};

struct LinkUsage {
  int link = 0;
  double bytes = 0;   // the packet model counts wire bytes (payload and headers)
  double busy_s = 0;  // time with at least one flow on the link (packet model: serializing)
};

struct SimResult {
  double time_s = 0;                // completion time of the last rank
  double goodput_gbps = 0;          // vector bytes x 8 / time_s / 1e9 (the papers' goodput)
  std::uint64_t messages = 0;       // point-to-point messages: one per send to another rank
                                    // (one per range under SimConfig::message_per_range)
  std::uint64_t transfers = 0;      // flows simulated (messages x paths)
  double max_link_utilization = 0;  // busy fraction of time_s, over links that carried data
  double mean_link_utilization = 0;
  std::vector<LinkUsage> links;  // when record_links
  std::vector<double> rank_finish_s;
  // Hosts per orbit of the translation symmetry the flow model exploited (1: none); the ranks
  // actually simulated are the ranks / symmetry_group of one orbit copy.
  std::int64_t symmetry_group = 1;
};

// Throws UnsupportedRequest for a request the model cannot serve (more ranks than hosts, ...).
[[nodiscard]] SimResult simulate(const Schedule& schedule, const topo::Topology& topology,
                                 const topo::Router& router, const topo::Mapping& mapping,
                                 const SimConfig& config);

}  // namespace topocoll::sim
