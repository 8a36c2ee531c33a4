#pragma once
// What one in-network allreduce run is asked to do, and what it reports.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace topocoll::sim::innet {

enum class Algorithm { canary, static_trees, ring };

// How a switch maps a Canary block id to a descriptor-table entry (descriptor_table.hpp).
enum class TableIndex { static_slots, per_switch_hash, shared_hash };

// How a leaf picks the up port of a congestion packet. The paper gives one rule for "packets"
// (5.2); whether the congestion application's packets follow it is not said.
enum class BackgroundRouting {
  adaptive,      // the rule of 5.2: the default up port unless its queue is over half full
  ecmp,          // a hash of (source, destination): oblivious, one path per pair
  default_port,  // the default up port (destination modulo the spines) always: oblivious
};

struct Fault {
  int node = -1;  // a switch (node id) or -1
  int link = -1;  // a link id (both directions fail) or -1
  double time_s = 0;
};

inline constexpr double kDefaultBackgroundLoad = 0.2;
inline constexpr BackgroundRouting kDefaultBackgroundRouting = BackgroundRouting::default_port;
inline constexpr int kDefaultWindowBlocks = 256;

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
  // Offered load of each congestion host, as a fraction of its line rate: messages start as a
  // Poisson process of that mean rate (1: back to back). Default: fitted to the mean link
  // utilization of canary-fgcs24 Fig. 7b (docs/innet.md, "Background traffic").
  double background_load = kDefaultBackgroundLoad;
  BackgroundRouting background_routing = kDefaultBackgroundRouting;
  double timeout_s = 1e-6;  // Canary switch timer
  // Host retransmission timer (minimum). 0: derived from the network's worst-case block round
  // trip (worst_case_rtt_s), so that a lossless run without failures never retransmits.
  double rto_s = 0;
  bool adaptive_rto = true;  // RFC 6298 estimate and backoff above rto_s; false: fixed rto_s
  // Blocks a host has sent whose result has not come back, at most (Canary and static trees);
  // 0: unbounded. Bounds the skew between hosts, and with it every block's round trip.
  int window_blocks = kDefaultWindowBlocks;
  int max_attempts = 3;       // then host-based fallback
  int table_entries = 32768;  // descriptors per switch (5.1)
  TableIndex table_index = TableIndex::static_slots;
  bool partition_table = false;  // hash indexes: a static share per tenant (3.2.1)
  double drop_probability = 0;
  double noise_probability = 0;  // per packet sent by a host: delay it by noise_delay_s
  double noise_delay_s = 1e-6;
  double max_time_s = 0;  // simulated horizon; 0 = automatic
  std::vector<Fault> faults;
  std::uint64_t seed = 1;
  bool link_stats = false;
  bool force = false;  // run even beyond the memory and time limits (estimate_innet)
};

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
  double rto_s = 0;                  // the host timer's minimum this run used
  double max_block_rtt_s = 0;        // the longest block round trip (send to result) a host saw
  double mean_link_utilization = 0;  // busy time / span, mean over every directed link
  // Mean time a packet waited in an output queue (blocked heads included) per hop, for the
  // allreduce's packets and for the congestion traffic: where the allreduce loses its time.
  // Hops: 0 host->leaf, 1 leaf->spine, 2 spine->leaf, 3 leaf->host.
  std::array<double, 4> allreduce_wait_s{};
  std::array<double, 4> background_wait_s{};
  std::vector<LinkUse> links;
};

}  // namespace topocoll::sim::innet
