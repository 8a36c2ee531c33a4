#pragma once
// The in-network collectives' packet engine (src/sim/innet; host-based schedules have their own
// packet model in src/sim/packet_network.*): discrete events on a heap, MTU-sized packets,
// output-queued switch ports with finite buffers, serialization + per-hop latency, lossless
// (credits on each input buffer) or lossy (tail drop), up/down routing on a 2-level fat tree
// with the adaptive up-port rule of canary-fgcs24 5.2 (or ECMP). The allreduce algorithms
// (canary.cpp, static_tree.cpp, ring.cpp) and the congestion traffic (hosts.cpp) are methods of
// the same class, each in its own file; another in-network scheme is one more such file.
// Determinism: one seeded generator per purpose, no iteration over unordered containers, ties in
// the heap broken by insertion order.
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <unordered_map>
#include <vector>

#include "sim/event_heap.hpp"
#include "sim/innet/descriptor_table.hpp"
#include "sim/innet/innet_config.hpp"
#include "sim/innet/packet.hpp"
#include "topology/fattree.hpp"

namespace topocoll::sim::innet {

// Ordering key of events: time, then insertion order (a total order: reproducible runs).
struct EventKey {
  double time;
  std::uint64_t seq;
  bool operator<(const EventKey& o) const {
    return time < o.time || (time == o.time && seq < o.seq);
  }
};

// Events live in the heap itself (32 bytes, no side array to chase on every pop).
struct Event {
  enum Type : std::uint8_t { tx_done, arrive, switch_timer, host_timer, fault, host_wake };
  EventKey time{};        // EventHeap compares `.time`
  int a = 0;              // link, switch or host
  int b = 0;              // block / fault index / (tenant << 8 | attempt)
  std::uint32_t pkt = 0;  // packet / block / timer generation
  Type type = tx_done;
};

// Packets on the wire of one link, in the order they will arrive (every packet of a link has
// the same latency): only the first of them waits in the heap.
struct InFlight {
  EventKey time;
  std::uint32_t pkt;
};
class FlightRing {
 public:
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] const InFlight& front() const { return items_[head_]; }
  void push(const InFlight& f) {
    if (size_ == items_.size()) grow();
    items_[(head_ + size_) & (items_.size() - 1)] = f;
    ++size_;
  }
  void pop() {
    head_ = (head_ + 1) & (items_.size() - 1);
    --size_;
  }

 private:
  void grow() {
    std::vector<InFlight> bigger(items_.empty() ? 8 : 2 * items_.size());
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = items_[(head_ + i) & (items_.size() - 1)];
    items_.swap(bigger);
    head_ = 0;
  }
  std::vector<InFlight> items_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

// A host retransmission timer armed with the common initial delay: they expire in the order
// they were armed, so they wait in a FIFO instead of the heap (a host arms one per block, up
// to millions live at once) and are merged with the heap by the same (time, seq) key.
struct HostTimer {
  EventKey time;
  int host;
  int block;
  std::uint32_t generation;
};

struct Port {  // the output queue of one directed link
  // the link itself, copied here so that an event touches one structure
  int from = 0;
  int to = 0;
  double bandwidth = 0;  // bytes/s
  double latency_s = 0;
  FlightRing flight;           // on the wire
  int hop = 0;                 // 0 host->leaf, 1 leaf->spine, 2 spine->leaf, 3 leaf->host
  std::uint32_t head = kNone;  // packets linked through Packet::next
  std::uint32_t tail = kNone;
  std::uint64_t queued = 0;
  bool busy = false;
  bool failed = false;
  std::int64_t credits = 0;      // input credits: free bytes in the input buffer at the far end
  std::uint64_t reserved = 0;    // output flow control: bytes on their way into this queue
  bool blocked = false;          // output flow control: head waits for room at the next switch
  std::vector<int> waiting;      // output flow control: links whose head waits for room here
  std::uint64_t bytes_sent = 0;  // until every allreduce finished
  double busy_s = 0;             // transmitting, until every allreduce finished
  double last_start_s = 0;       // the last of those transmissions (clipped to the run's span)
  double last_end_s = 0;
};

struct HostBlock {  // Canary/static state of one block at one host
  std::uint8_t attempt = 0;
  bool sent = false;
  bool in_window = false;  // counted in the host's blocks in flight
  int sent_attempt = -1;   // the attempt last sent: a second restart notice must not resend it
  bool done = false;
  bool fallback = false;
  std::uint32_t timer = 0;    // generation of the live retransmission timer
  std::uint8_t expiries = 0;  // of the current attempt's timer: the backoff exponent
  double sent_s = 0;          // when the current attempt left (RTT sample, RFC 6298)
  double armed_s = 0;         // when the live timer was armed
};

struct LeaderBlock {  // Canary state of one block at its leader
  int attempt = 0;
  int counter = 0;
  bool complete = false;
  bool fallback = false;
  double attempt_start = 0;
  std::vector<std::int32_t> acc;
  std::vector<std::pair<int, int>> marks;  // (switch, port) of collisions (3.2.1)
  std::vector<bool> contributed;           // fallback: which ranks sent their data
};

struct RingStep {
  std::vector<std::int32_t> data;
  int packets = 0;
};
struct RingHost {
  int next_recv = 0;
  std::map<int, RingStep> recv;                                 // step -> chunk being received
  std::deque<std::pair<int, std::vector<std::int32_t>>> sends;  // (step, chunk) ready to send
  int send_packet = 0;
  int verified = 0;
  bool started = false;
};

struct Tenant {
  std::vector<int> hosts;                       // sorted
  std::vector<std::int32_t> expected;           // blocks x elements
  std::vector<LeaderBlock> leader;              // per block (canary)
  std::vector<int> tree_spine;                  // static trees
  std::vector<std::vector<int>> hosts_by_leaf;  // static trees: per leaf
  int done_hosts = 0;
  double finish = 0;
};

struct HostState {
  int tenant = -1;  // -1: congestion host or idle
  int rank = 0;
  int cursor = 0;  // next block to send
  int done_blocks = 0;
  int in_flight = 0;  // blocks sent whose result has not come back (the window)
  std::vector<HostBlock> blocks;
  std::deque<std::uint32_t> control;  // packets ready to go out before data
  std::deque<int> resend;             // blocks to send again (restart / fallback)
  RingHost ring;
  // RFC 6298 round-trip estimate of this host's blocks (send to result)
  double srtt = 0;
  double rttvar = 0;
  bool rtt_sampled = false;
  // congestion traffic
  bool background = false;
  int message = 0;  // permutation traffic: messages started
  int peer = -1;
  std::uint64_t left = 0;
  double next_message_s = 0;  // offered load below line rate: when the next message starts
  bool wake_pending = false;
};

class Engine {
 public:
  Engine(const topo::FatTreeTopology& topology, const InnetConfig& config,
         const std::vector<int>& participants, const std::vector<int>& congestion);
  InnetResult run();

 private:
  // --- events and fabric (engine.cpp)
  void queue_push(Port& port, std::uint32_t p);
  std::uint32_t queue_pop(Port& port);
  void dispatch(const Event& e);
  void push(double t, Event::Type type, int a, int b = 0, std::uint32_t pkt = 0);
  void try_send(int link);
  void enqueue(int link, std::uint32_t p);
  void drop(std::uint32_t p);
  int lookahead(int sw, const Packet& pk);  // output port at switch sw, -1: absorbed there
  void unreserve(std::uint32_t p);
  void wake_waiting(int link);
  void release_credit(std::uint32_t p);
  void consume(std::uint32_t p) {
    release_credit(p);
    pool_.release(p);
  }
  void on_arrive(int link, std::uint32_t p);
  void forward(int node, std::uint32_t p);  // route toward pkt.dst
  int route(int node, const Packet& pk);
  int up_port(int leaf, const Packet& pk, int default_spine, int dst_leaf);
  [[nodiscard]] BackgroundRouting routing_of(const Packet& pk) const;
  void apply_fault(int index);
  [[nodiscard]] DescriptorTable new_table(int switch_index) const;
  [[nodiscard]] bool is_host(int node) const { return node < host_count_; }
  [[nodiscard]] int leaf_node(int host) const { return host_count_ + topo_.leaf_of(host); }
  [[nodiscard]] int port_index(int link) const { return port_of_in_link_[link]; }
  [[nodiscard]] std::uint32_t mtu() const {
    return static_cast<std::uint32_t>(4 * config_.elements_per_packet + config_.header_bytes);
  }
  [[nodiscard]] std::uint32_t control_bytes() const {
    return static_cast<std::uint32_t>(config_.header_bytes + 8);
  }

  // --- hosts (hosts.cpp)
  bool next_host_packet(int host, std::uint32_t& p);
  void on_host_receive(int host, std::uint32_t p);
  void fill_data(int tenant, int rank, int block, std::int32_t* out) const;
  std::int32_t value(int host, std::uint64_t index) const;
  void block_done(int host, int block, const std::int32_t* data, std::size_t length);
  void host_finished(int host);
  std::uint32_t background_packet(int host);
  bool background_ready(int host);
  [[nodiscard]] double message_gap_s();
  void setup_tenants(const std::vector<int>& participants);

  // --- Canary (canary.cpp)
  std::uint64_t block_id(int tenant, int attempt, int block) const;
  int leader_of(int tenant, int block) const;
  std::uint32_t canary_packet(int host, int block);
  void canary_switch(int sw, std::uint32_t p);
  void canary_fire(int sw, Descriptor& d, int tenant, int block, int attempt);
  void canary_timer(int sw, int tenant, int block, int attempt);
  void canary_broadcast_at_switch(int sw, std::uint32_t p);
  void canary_leader(int host, std::uint32_t p);
  void leader_complete(int tenant, int block);
  void leader_restart(int tenant, int block);
  void canary_host_timer(int host, int block, std::uint32_t generation);
  void arm_host_timer(int host, int block);
  [[nodiscard]] double host_rto(int host, int expiries) const;
  void sample_rtt(int host, int block);
  void send_to_host(int from, int to, Kind kind, int tenant, int block, int attempt,
                    const std::vector<std::int32_t>* data, int step = 0,
                    const std::vector<int>* ports = nullptr);

  // --- static trees (static_tree.cpp)
  std::uint32_t static_packet(int host, int block);
  void static_switch(int sw, std::uint32_t p);

  // --- ring (ring.cpp)
  bool ring_packet(int host, std::uint32_t& p);
  void ring_receive(int host, std::uint32_t p);
  void ring_step_complete(int host, int step, std::vector<std::int32_t>& data);
  [[nodiscard]] std::uint64_t chunk_begin(int tenant, int chunk) const;

  const topo::FatTreeTopology& topo_;
  InnetConfig config_;
  int host_count_;
  int leaves_;
  int spines_;
  int blocks_;
  std::uint64_t elements_;  // per allreduce
  double horizon_;
  double rto_s_;  // the host timer's minimum: --rto, or the worst-case round trip
  double now_ = 0;
  bool all_done_ = false;
  std::uint64_t seq_ = 0;
  EventHeap<Event> heap_;
  std::deque<HostTimer> host_timers_;
  PacketPool pool_;
  std::vector<Port> ports_;
  std::vector<int> port_of_in_link_;
  std::vector<bool> node_failed_;
  std::vector<HostState> hosts_;
  std::vector<std::uint64_t> host_keys_;  // per host: seeds its data values
  std::vector<Tenant> tenants_;
  std::vector<int> background_hosts_;
  std::vector<std::vector<int>> permutations_;  // round -> host -> peer
  std::vector<DescriptorTable> tables_;         // per switch (index node - hosts)
  std::vector<std::unordered_map<std::uint64_t, Descriptor>> static_state_;  // lookups only
  std::mt19937_64 fault_rng_;
  std::mt19937_64 background_rng_;
  std::mt19937_64 noise_rng_;
  InnetResult result_;
  std::array<std::array<double, 2>, 4> wait_sum_{};  // [hop][background]
  std::array<std::array<std::uint64_t, 2>, 4> wait_count_{};
  int tenants_done_ = 0;
};

// Checks the request (UnsupportedRequest on bad values, and on runs beyond the memory and time
// limits unless config.force), draws the allocation of hosts to tenants and congestion from the
// seed, and runs.
InnetResult run_innet(const topo::Topology& topology, const InnetConfig& config);
// The checks alone (the CLI validates every request before long runs start).
const topo::FatTreeTopology& check_innet(const topo::Topology& topology, const InnetConfig& config);

}  // namespace topocoll::sim::innet
