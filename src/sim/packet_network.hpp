#pragma once
// The packet model (docs/simulator-packet.md): host-based schedules run as packets,
// to check the flow model against. A transfer is cut into packets of at most `mtu_bytes` of
// payload plus `header_bytes`; every directed link of the topology is an output port that
// serializes one packet at a time at its bandwidth, after which the packet flies for the
// link's latency (link latency + per-hop latency) to the next node: store and forward.
//
// Buffers and flow control: each port has one FIFO per hop class (the index of the link in
// the packet's path), each holding at most `buffer_bytes`. A packet may start crossing a link
// only once it holds a credit for its next FIFO (space reserved there until its tail leaves
// that FIFO); a packet on its last link is always accepted by the host. Nothing is dropped.
// Since a packet's hop class grows by one per link, buffer waits never form a cycle, so the
// network cannot deadlock on any topology (the distance-class scheme of virtual channels).
// A head packet waiting for a credit blocks the packets behind it in its FIFO (head-of-line
// blocking); credits freed in a FIFO go to the waiting ports in the order they asked.
//
// Arbitration, all deterministic: a port serves its hop classes round-robin, one packet at a
// time, among the FIFOs whose head holds a credit. A host fills its port's class-0 FIFO from
// the transfers that start on that port, one packet each in turn (the rank driver has already
// split a message over its paths by Path::share, one transfer per path). Injection into that
// FIFO is instantaneous, so the host sends at the port's line rate.
//
// A transfer completes when its last packet has arrived. A zero-byte transfer is one packet
// of header bytes (with no header: it pays the path latency only, as in the flow model).
#include <cstdint>
#include <deque>
#include <vector>

#include "sim/event_heap.hpp"
#include "sim/network.hpp"
#include "topology/topology.hpp"

namespace topocoll::sim {

// Throws UnsupportedRequest naming the accepted ranges.
void check_packet_params(const PacketParams& params);

class PacketNetwork final : public Network {
 public:
  PacketNetwork(const topo::Topology& topology, const PacketParams& params);

  void start(double now, const PathView& path, double bytes, int step, std::uint32_t tag) override;
  [[nodiscard]] double next_time() const override;
  void advance(double now, std::vector<std::uint32_t>& completed) override;
  // Bytes are wire bytes (payload and headers); busy time is the time spent serializing.
  void link_usage(double end, std::vector<LinkUsage>& out) const override;

  [[nodiscard]] std::uint64_t packets_delivered() const { return delivered_; }

 private:
  struct Transfer {
    std::vector<int> links;
    double payload_left = 0;  // bytes not yet cut into packets
    std::uint64_t to_inject = 0;
    std::uint64_t in_network = 0;
    std::uint32_t tag = 0;
  };
  struct Packet {
    std::uint32_t transfer = 0;
    int hop = 0;      // index in the transfer's path of the link it is on or heading to
    double wire = 0;  // payload + header bytes
  };
  struct Fifo {  // one hop class of one port
    std::deque<std::uint32_t> packets;
    double reserved = 0;      // bytes of the packets in it or flying towards it
    bool head_ready = false;  // the head packet holds its credit downstream
    std::deque<int> waiting;  // links whose head packet waits for space here, in order
  };
  struct Port {
    std::vector<Fifo> classes;
    std::vector<std::uint32_t> injecting;  // transfers starting on this port
    std::size_t next_injecting = 0;
    int next_class = 0;
    bool busy = false;
    bool inject_pending = false;
    double bandwidth = 0;
    double latency = 0;
    double wire_bytes = 0;
    double busy_s = 0;
  };
  enum class Kind : std::uint8_t { inject, sent, arrived, latency_only };
  struct Event {
    double time = 0;
    std::uint32_t id = 0;  // a link (inject), a packet (sent, arrived), a transfer
    Kind kind = Kind::inject;
  };

  Fifo& fifo(int link, int hop_class);
  std::uint32_t new_transfer();
  std::uint32_t new_packet();
  void inject(int link, double now);
  bool fits(const Fifo& f, double bytes) const;
  void acquire_credit(int link, int hop_class);
  void try_send(int link, double now);
  void sent(std::uint32_t packet, double now);
  void arrived(std::uint32_t packet, double now, std::vector<std::uint32_t>& completed);
  void grant_waiting(int link, int hop_class, double now);
  void transfer_done(std::uint32_t t, std::vector<std::uint32_t>& completed);

  PacketParams params_;
  double capacity_ = 0;
  std::vector<Port> ports_;
  std::vector<Transfer> transfers_;
  std::vector<std::uint32_t> free_transfers_;
  std::vector<Packet> packets_;
  std::vector<std::uint32_t> free_packets_;
  EventHeap<Event> events_;
  std::uint64_t delivered_ = 0;
};

}  // namespace topocoll::sim
