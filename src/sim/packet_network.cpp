#include "sim/packet_network.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/registry.hpp"

namespace topocoll::sim {
namespace {

constexpr std::uint64_t kMinMtu = 16;
constexpr std::uint64_t kMaxMtu = std::uint64_t{1} << 20;
constexpr std::uint64_t kMaxHeader = 4096;
constexpr std::uint64_t kMaxBuffer = std::uint64_t{1} << 30;

}  // namespace

void check_packet_params(const PacketParams& p) {
  if (p.mtu_bytes < kMinMtu || p.mtu_bytes > kMaxMtu)
    throw UnsupportedRequest("packet payload (mtu) of " + std::to_string(p.mtu_bytes) +
                             " B is out of range; accepted: 16B to 1MiB");
  if (p.header_bytes > kMaxHeader)
    throw UnsupportedRequest("packet header of " + std::to_string(p.header_bytes) +
                             " B is out of range; accepted: 0B to 4KiB");
  if (p.buffer_bytes < p.mtu_bytes + p.header_bytes || p.buffer_bytes > kMaxBuffer)
    throw UnsupportedRequest("buffer of " + std::to_string(p.buffer_bytes) +
                             " B is out of range; accepted: one packet (mtu + header = " +
                             std::to_string(p.mtu_bytes + p.header_bytes) + " B) to 1GiB");
}

PacketNetwork::PacketNetwork(const topo::Topology& topology, const PacketParams& params)
    : params_(params),
      capacity_(static_cast<double>(params.buffer_bytes)),
      ports_(topology.links().size()) {
  check_packet_params(params);
  for (std::size_t l = 0; l < ports_.size(); ++l) {
    ports_[l].bandwidth = topology.links()[l].bandwidth_bytes_per_s;
    ports_[l].latency = topology.links()[l].latency_s;
  }
}

PacketNetwork::Fifo& PacketNetwork::fifo(int link, int hop_class) {
  auto& classes = ports_[static_cast<std::size_t>(link)].classes;
  if (static_cast<int>(classes.size()) <= hop_class)
    classes.resize(static_cast<std::size_t>(hop_class) + 1);
  return classes[static_cast<std::size_t>(hop_class)];
}

std::uint32_t PacketNetwork::new_transfer() {
  if (!free_transfers_.empty()) {
    const std::uint32_t t = free_transfers_.back();
    free_transfers_.pop_back();
    return t;
  }
  transfers_.emplace_back();
  return static_cast<std::uint32_t>(transfers_.size() - 1);
}

std::uint32_t PacketNetwork::new_packet() {
  if (!free_packets_.empty()) {
    const std::uint32_t p = free_packets_.back();
    free_packets_.pop_back();
    return p;
  }
  packets_.emplace_back();
  return static_cast<std::uint32_t>(packets_.size() - 1);
}

void PacketNetwork::start(double now, const PathView& path, double bytes, int /*step*/,
                          std::uint32_t tag) {
  const std::uint32_t t = new_transfer();
  Transfer& tr = transfers_[t];
  tr.links.assign(path.links, path.links + path.hops);
  tr.payload_left = bytes;
  tr.in_network = 0;
  tr.tag = tag;
  const auto mtu = static_cast<double>(params_.mtu_bytes);
  tr.to_inject = bytes > 0 ? static_cast<std::uint64_t>(std::ceil(bytes / mtu)) : 1;
  if (path.hops == 0 || (bytes <= 0 && params_.header_bytes == 0)) {
    events_.push({now + path.latency_s, t, Kind::latency_only});
    return;
  }
  Port& port = ports_[static_cast<std::size_t>(tr.links[0])];
  port.injecting.push_back(t);
  // Injection waits for the end of the instant, so that the transfers a host starts together
  // take turns from their first packet.
  if (!port.inject_pending) {
    port.inject_pending = true;
    events_.push({now, static_cast<std::uint32_t>(tr.links[0]), Kind::inject});
  }
}

double PacketNetwork::next_time() const { return events_.empty() ? kNever : events_.top().time; }

void PacketNetwork::advance(double now, std::vector<std::uint32_t>& completed) {
  const double end = instant_end(now);
  while (!events_.empty() && events_.top().time <= end) {
    const Event e = events_.pop();
    // Each event at its own time: the instant only groups what the rank driver sees.
    switch (e.kind) {
      case Kind::inject:
        ports_[e.id].inject_pending = false;
        inject(static_cast<int>(e.id), e.time);
        break;
      case Kind::sent: sent(e.id, e.time); break;
      case Kind::arrived: arrived(e.id, e.time, completed); break;
      case Kind::latency_only: transfer_done(e.id, completed); break;
    }
  }
}

bool PacketNetwork::fits(const Fifo& f, double bytes) const {
  return f.reserved + bytes <= capacity_ * (1 + 1e-12);
}

// Cuts packets off the port's transfers in turn while its class-0 FIFO has room.
void PacketNetwork::inject(int link, double now) {
  Port& port = ports_[static_cast<std::size_t>(link)];
  const auto mtu = static_cast<double>(params_.mtu_bytes);
  const auto header = static_cast<double>(params_.header_bytes);
  while (!port.injecting.empty()) {
    if (port.next_injecting >= port.injecting.size()) port.next_injecting = 0;
    const std::uint32_t t = port.injecting[port.next_injecting];
    Transfer& tr = transfers_[t];
    const double payload = tr.to_inject == 1 ? tr.payload_left : mtu;
    Fifo& f = fifo(link, 0);
    if (!fits(f, payload + header)) break;
    const std::uint32_t p = new_packet();
    packets_[p] = {t, 0, payload + header};
    tr.payload_left -= payload;
    --tr.to_inject;
    ++tr.in_network;
    f.reserved += payload + header;
    f.packets.push_back(p);
    if (f.packets.size() == 1) acquire_credit(link, 0);
    if (tr.to_inject == 0)
      port.injecting.erase(port.injecting.begin() +
                           static_cast<std::ptrdiff_t>(port.next_injecting));
    else
      ++port.next_injecting;
  }
  try_send(link, now);
}

// The head packet of (link, hop_class) asks for space in its next FIFO; it joins the queue of
// waiting ports when there is none, or when others asked first.
void PacketNetwork::acquire_credit(int link, int hop_class) {
  Fifo& here = fifo(link, hop_class);
  const Packet& p = packets_[here.packets.front()];
  const Transfer& tr = transfers_[p.transfer];
  if (p.hop + 1 == static_cast<int>(tr.links.size())) {  // the host takes it
    here.head_ready = true;
    return;
  }
  Fifo& next = fifo(tr.links[static_cast<std::size_t>(p.hop) + 1], hop_class + 1);
  if (next.waiting.empty() && fits(next, p.wire)) {
    next.reserved += p.wire;
    // Looked up again: a path that comes back to this port has just grown its classes.
    fifo(link, hop_class).head_ready = true;
  } else {
    next.waiting.push_back(link);
  }
}

// Starts serializing the next ready head packet, taking the port's hop classes in turn (a
// switch's round-robin among its inputs, with the classes standing for them).
void PacketNetwork::try_send(int link, double now) {
  Port& port = ports_[static_cast<std::size_t>(link)];
  if (port.busy) return;
  const int classes = static_cast<int>(port.classes.size());
  for (int i = 0; i < classes; ++i) {
    const int c = (port.next_class + i) % classes;
    Fifo& f = port.classes[static_cast<std::size_t>(c)];
    if (f.packets.empty() || !f.head_ready) continue;
    const std::uint32_t p = f.packets.front();
    f.packets.pop_front();
    f.head_ready = false;
    port.busy = true;
    port.next_class = c + 1;
    const double seconds = packets_[p].wire / port.bandwidth;
    port.busy_s += seconds;
    port.wire_bytes += packets_[p].wire;
    events_.push({now + seconds, p, Kind::sent});
    if (!f.packets.empty()) acquire_credit(link, c);
    return;
  }
}

// The packet's tail has left its port: its FIFO space is free, and it flies to the next node.
void PacketNetwork::sent(std::uint32_t packet, double now) {
  const Packet p = packets_[packet];  // a copy: injection may grow the pool
  const int link = transfers_[p.transfer].links[static_cast<std::size_t>(p.hop)];
  Port& port = ports_[static_cast<std::size_t>(link)];
  port.busy = false;
  fifo(link, p.hop).reserved -= p.wire;
  events_.push({now + port.latency, packet, Kind::arrived});
  if (p.hop == 0)
    inject(link, now);
  else
    grant_waiting(link, p.hop, now);
  try_send(link, now);
}

void PacketNetwork::arrived(std::uint32_t packet, double now,
                            std::vector<std::uint32_t>& completed) {
  Packet& p = packets_[packet];
  Transfer& tr = transfers_[p.transfer];
  if (p.hop + 1 == static_cast<int>(tr.links.size())) {
    ++delivered_;
    free_packets_.push_back(packet);
    if (--tr.in_network == 0 && tr.to_inject == 0) transfer_done(p.transfer, completed);
    return;
  }
  ++p.hop;
  const int link = tr.links[static_cast<std::size_t>(p.hop)];
  Fifo& f = fifo(link, p.hop);  // its space was reserved when it left the previous port
  f.packets.push_back(packet);
  if (f.packets.size() == 1) acquire_credit(link, p.hop);
  try_send(link, now);
}

// Space was freed in (link, hop_class): hand it to the waiting ports in the order they asked.
void PacketNetwork::grant_waiting(int link, int hop_class, double now) {
  for (;;) {
    Fifo& f = fifo(link, hop_class);
    if (f.waiting.empty()) return;
    const int upstream = f.waiting.front();
    Fifo& from = fifo(upstream, hop_class - 1);
    const double wire = packets_[from.packets.front()].wire;
    if (!fits(f, wire)) return;
    f.reserved += wire;
    f.waiting.pop_front();
    from.head_ready = true;
    try_send(upstream, now);
  }
}

void PacketNetwork::transfer_done(std::uint32_t t, std::vector<std::uint32_t>& completed) {
  completed.push_back(transfers_[t].tag);
  free_transfers_.push_back(t);
}

void PacketNetwork::link_usage(double /*end*/, std::vector<LinkUsage>& out) const {
  out.clear();
  for (std::size_t l = 0; l < ports_.size(); ++l)
    out.push_back({static_cast<int>(l), ports_[l].wire_bytes, ports_[l].busy_s});
}

}  // namespace topocoll::sim
