#pragma once
// What one in-network allreduce run is asked to do, and what it reports.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace topocoll::sim::packet {

enum class Algorithm { canary, static_trees, ring };

struct Fault {
  int node = -1;  // a switch (node id) or -1
  int link = -1;  // a link id (both directions fail) or -1
  double time_s = 0;
};

struct InnetConfig {
  Algorithm algorithm = Algorithm::canary;
  int trees = 1;  // static trees
  int hosts = 0;  // hosts running allreduces (all tenants together)
  int tenants = 1;
  std::uint64_t size_bytes = 4 << 20;     // per allreduce
  int elements_per_packet = 256;          // canary-fgcs24 5.1
  int header_bytes = 57;                  // 19 Canary + 14 Ethernet + 24 framing (5.1)
  std::uint64_t buffer_bytes = 64 << 10;  // per output port (and credits per input port)
  bool lossless = true;
  // Lossless flow control. input (default): credits for one input buffer per switch port,
  // shared by every output (congestion can back up across outputs, as with PFC or InfiniBand
  // credits). output: a packet leaves for a switch only when the output queue it will join
  // there has room; packets the switch absorbs or generates (aggregation, multicast) need no
  // room and may overshoot it, which starves forwarded traffic behind them (docs/innet.md).
  bool input_credits = true;
  bool ecmp = false;  // hash-based up-port instead of the adaptive rule of 5.2
  bool congestion = false;
  // true: message k of every congestion host follows the k-th random cyclic permutation of the
  // congestion hosts, so each sends to one host and receives from one ("each host sends a
  // message to a randomly selected host and receives a message from another randomly selected
  // host", canary-fgcs24 5.2); false: every message goes to a uniformly random peer (incast).
  bool background_permutation = true;
  std::uint64_t background_message_bytes = 64 << 10;  // a congestion host changes peer after
  double timeout_s = 1e-6;                            // Canary switch timer
  double rto_s = 200e-6;                              // host retransmission timer (minimum)
  bool adaptive_rto = true;      // RFC 6298 estimate and backoff above rto_s; false: fixed rto_s
  int max_attempts = 3;          // then host-based fallback
  int table_entries = 32768;     // descriptors per switch (5.1)
  bool partition_table = false;  // static share per tenant (3.2.1)
  double drop_probability = 0;
  double noise_probability = 0;  // per packet sent by a host: delay it by noise_delay_s
  double noise_delay_s = 1e-6;
  double max_time_s = 0;  // simulated horizon; 0 = automatic
  std::vector<Fault> faults;
  std::uint64_t seed = 1;
  bool link_stats = false;
};

// The simulated time after which a run stops unfinished when `max_time_s` is 0. Generous for
// every algorithm: in-network allreduces end within a few times size / bandwidth unless
// something goes wrong (20x, plus 500 us for latency and timers); a ring's 2(P-1) steps each
// wait a round trip through the congested network, so it gets 50 us more per step.
inline double default_horizon_s(const InnetConfig& c, double bandwidth_bytes_per_s) {
  double horizon = 20.0 * static_cast<double>(c.size_bytes) / bandwidth_bytes_per_s + 500e-6;
  if (c.algorithm == Algorithm::ring && c.tenants > 0)
    horizon += 2.0 * std::max(0, c.hosts / c.tenants - 1) * 50e-6;
  return horizon;
}

struct LinkUse {
  int link = 0;
  std::uint64_t bytes = 0;
  double utilization = 0;
};

struct InnetResult {
  bool completed = false;   // every host of every tenant has every block
  bool exact = false;       // ... and every value is the exact integer sum
  double time_s = 0;        // slowest tenant
  double goodput_gbps = 0;  // mean over tenants of size / tenant time
  std::vector<double> tenant_time_s;
  std::uint64_t events = 0;
  std::uint64_t packets_sent = 0;  // by hosts
  std::uint64_t aggregated = 0;    // packets absorbed by switch aggregation
  std::uint64_t to_leader = 0;     // packets received by leaders
  std::uint64_t collisions = 0;
  std::uint64_t stragglers = 0;
  std::uint64_t retransmissions = 0;  // requests and re-sent blocks
  std::uint64_t restarts = 0;
  std::uint64_t fallbacks = 0;  // blocks reduced host-based
  std::uint64_t drops = 0;
  std::uint64_t mismatches = 0;
  std::uint64_t peak_packets = 0;
  double mean_link_utilization = 0;
  // Mean time a packet waited in an output queue (blocked heads included) per hop, for the
  // allreduce's packets and for the congestion traffic: where the allreduce loses its time.
  // Hops: 0 host->leaf, 1 leaf->spine, 2 spine->leaf, 3 leaf->host.
  std::array<double, 4> allreduce_wait_s{};
  std::array<double, 4> background_wait_s{};
  std::vector<LinkUse> links;
};

}  // namespace topocoll::sim::packet
