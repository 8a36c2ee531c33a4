#include "sim/innet/bounds.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "core/registry.hpp"
#include "sim/innet/engine.hpp"

namespace topocoll::sim::innet {

namespace {

double slowest_link_bytes_per_s(const topo::Topology& t) {
  double b = t.links().front().bandwidth_bytes_per_s;
  for (const auto& l : t.links()) b = std::min(b, l.bandwidth_bytes_per_s);
  return b;
}

double longest_latency_s(const topo::Topology& t) {
  double l = 0;
  for (const auto& link : t.links()) l = std::max(l, link.latency_s);
  return l;
}

int blocks_of(const InnetConfig& c) {
  const std::uint64_t elements = (c.size_bytes + 3) / 4;
  const auto e = static_cast<std::uint64_t>(c.elements_per_packet);
  return static_cast<int>((elements + e - 1) / e);
}

std::uint64_t mtu_bytes(const InnetConfig& c) {
  return static_cast<std::uint64_t>(4 * c.elements_per_packet + c.header_bytes);
}

std::uint64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 8ULL << 30;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
}

std::string mib(std::uint64_t bytes) {
  std::ostringstream s;
  s << std::fixed;
  s.precision(1);
  if (bytes >= (1ULL << 30)) {
    s << static_cast<double>(bytes) / (1ULL << 30) << " GiB";
  } else {
    s << static_cast<double>(bytes) / (1ULL << 20) << " MiB";
  }
  return s.str();
}

std::string minutes(double seconds) {
  std::ostringstream s;
  s << std::fixed;
  s.precision(0);
  if (seconds < 120) {
    s << seconds << " s";
  } else if (seconds < 7200) {
    s << seconds / 60 << " min";
  } else {
    s << seconds / 3600 << " h";
  }
  return s.str();
}

std::string millions(std::uint64_t events) {
  std::ostringstream s;
  s << std::fixed;
  s.precision(1);
  s << static_cast<double>(events) / 1e6 << " M";
  return s.str();
}

}  // namespace

// A block's round trip crosses 8 links: host -> leaf -> spine -> root leaf -> leader (reduce),
// leader -> leaf -> spine -> leaf -> host (broadcast), 6 of them out of a switch's queue. In
// the lossless model a packet in a switch's output queue holds a credit of the input buffer it
// came in on, so at most every input's buffer waits ahead of it: radix x --buffer bytes. The
// switches on the way up each wait at most one --timeout before they fire. And hosts drift
// apart: a host sends block b once b - W came back, i.e. once every host sent b - W, so the
// slowest host may still have W blocks to send before b (W packet times, and a host-noise delay
// each). canary-fgcs24 6 takes 2 RTT of a typical round trip; this is the worst case itself.
double worst_case_rtt_s(const topo::FatTreeTopology& topology, const InnetConfig& c) {
  const double bandwidth = slowest_link_bytes_per_s(topology);
  const double packet_s = static_cast<double>(mtu_bytes(c)) / bandwidth;
  const int leaf = topology.host_count();
  const int spine = leaf + topology.shape().leaves;
  const auto queue_s = [&](int node) {
    return static_cast<double>(topology.out_links(node).size() * c.buffer_bytes) / bandwidth;
  };
  const double links = 8 * (packet_s + longest_latency_s(topology));
  const double queues = 4 * queue_s(leaf) + 2 * queue_s(spine);
  const double timeouts = 3 * c.timeout_s;
  const int window = c.window_blocks > 0 ? c.window_blocks : blocks_of(c);
  const double noise = c.noise_probability > 0 ? c.noise_delay_s : 0;
  return links + queues + timeouts + window * (packet_s + noise);
}

double base_rto_s(const topo::FatTreeTopology& topology, const InnetConfig& c) {
  return c.rto_s > 0 ? c.rto_s : worst_case_rtt_s(topology, c);
}

// In-network allreduces end within a few times size / bandwidth unless something goes wrong
// (20x, plus 500 us for latency and timers), and Canary recovers a loss within a few host
// timeouts (3); a ring's 2(P-1) steps each wait a round trip through the congested network
// (50 us each: a 1 KiB ring on 205 congested hosts of fattree:canary takes 0.93 ms).
double horizon_s(const topo::FatTreeTopology& topology, const InnetConfig& c) {
  if (c.max_time_s > 0) return c.max_time_s;
  const double bandwidth = topology.links().front().bandwidth_bytes_per_s;
  double horizon = 20.0 * static_cast<double>(c.size_bytes) / bandwidth + 500e-6;
  if (c.algorithm == Algorithm::canary) horizon += 3 * base_rto_s(topology, c);
  if (c.algorithm == Algorithm::ring && c.tenants > 0)
    horizon += 2.0 * std::max(0, c.hosts / c.tenants - 1) * 50e-6;
  return horizon;
}

// Events: every link a packet crosses costs two (sent, arrived). An in-network allreduce moves
// about 2 link crossings per host and block (up to its leaf, down from it: switches absorb the
// rest), the ring 2 x 4 per host and block (reduce-scatter and allgather, leaf-spine-leaf), the
// congestion hosts 4 per packet at their offered load for the allreduce's duration, taken as 3x
// its wire time (ring: 2x, plus 3 us per step; measured 2.4 us per step on 512 congested hosts),
// at most the horizon. On the 512/1024-host 4 MiB canary run with uniform congestion this gives
// 23.5 M events against 16.4 M simulated. Memory: per host and block its state, per tenant and
// block the expected sums and the leader's accumulator, the switches' tables, packets filling a
// quarter of every buffer, and the ring's chunks.
InnetEstimate estimate_innet(const topo::FatTreeTopology& topology, const InnetConfig& c) {
  const double bandwidth = slowest_link_bytes_per_s(topology);
  const auto blocks = static_cast<double>(blocks_of(c));
  const double hosts = c.hosts;
  const bool ring = c.algorithm == Algorithm::ring;
  const double wire_s = blocks * static_cast<double>(mtu_bytes(c)) / bandwidth;
  double duration = 3 * wire_s;
  if (ring) duration = 2 * wire_s + 2.0 * std::max(0, c.hosts / std::max(1, c.tenants) - 1) * 3e-6;
  duration = std::min(duration, horizon_s(topology, c));
  const double background_hosts = c.congestion ? topology.host_count() - c.hosts : 0;
  const double background_packets = background_hosts * c.background_load * duration * bandwidth /
                                    static_cast<double>(mtu_bytes(c));
  const double crossings = hosts * blocks * (ring ? 8 : 2) + 4 * background_packets;
  InnetEstimate e;
  e.events = static_cast<std::uint64_t>(2 * crossings);
  e.seconds = static_cast<double>(e.events) / kEventsPerSecond;
  const auto payload = static_cast<double>(4 * c.elements_per_packet);
  const double switches = topology.node_count() - topology.host_count();
  double memory = 64.0 * (1 << 20);  // the process, topology and bookkeeping
  memory += ring ? hosts * 3 * static_cast<double>(c.size_bytes) / std::max(1.0, hosts)
                 : hosts * blocks * sizeof(HostBlock);
  memory += c.tenants * blocks * (2 * payload + sizeof(LeaderBlock));
  memory += switches * c.table_entries * 4.0;
  memory += static_cast<double>(topology.links().size()) * static_cast<double>(c.buffer_bytes) / 4 *
            (1 + static_cast<double>(sizeof(Packet)) / static_cast<double>(mtu_bytes(c)));
  e.memory_bytes = static_cast<std::uint64_t>(memory);
  return e;
}

void check_limits(const topo::FatTreeTopology& topology, const InnetConfig& c) {
  if (c.force) return;
  const InnetEstimate e = estimate_innet(topology, c);
  const std::uint64_t available = physical_memory_bytes() / 10 * 8;
  const std::string what = "this run needs about " + mib(e.memory_bytes) + " of memory and " +
                           millions(e.events) + " events (roughly " + minutes(e.seconds) + ")";
  if (e.memory_bytes > available)
    throw UnsupportedRequest(what + ", more than the " + mib(available) +
                             " this machine can give it; use fewer --hosts or a smaller --size "
                             "(or --force to try)");
  if (e.seconds > kTimeLimitSeconds)
    throw UnsupportedRequest(what + ", longer than " + minutes(kTimeLimitSeconds) +
                             "; use fewer --hosts, a smaller --size" +
                             (c.congestion ? ", a lower --background-load" : "") +
                             ", or add --force to run it anyway");
}

}  // namespace topocoll::sim::innet
