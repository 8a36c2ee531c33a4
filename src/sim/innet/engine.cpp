#include "sim/innet/engine.hpp"

#include <algorithm>
#include <limits>

#include "sim/innet/bounds.hpp"

namespace topocoll::sim::innet {

namespace {
double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }
}  // namespace

Engine::Engine(const topo::FatTreeTopology& topology, const InnetConfig& config,
               const std::vector<int>& participants, const std::vector<int>& congestion)
    : topo_(topology),
      config_(config),
      host_count_(topology.host_count()),
      leaves_(topology.shape().leaves),
      spines_(topology.shape().aggs),
      pool_(config.elements_per_packet),
      fault_rng_(config.seed * 3 + 1),
      background_rng_(config.seed * 5 + 2),
      noise_rng_(config.seed * 7 + 3) {
  const auto& links = topo_.links();
  ports_.resize(links.size());
  port_of_in_link_.assign(links.size(), -1);
  // A cable's two directions are consecutive link ids (Topology::add_cable).
  for (std::size_t l = 0; l < links.size(); ++l) {
    const int reverse = static_cast<int>(l % 2 == 0 ? l + 1 : l - 1);
    const auto& out = topo_.out_links(links[l].to);
    port_of_in_link_[l] =
        static_cast<int>(std::find(out.begin(), out.end(), reverse) - out.begin());
    ports_[l].credits = static_cast<std::int64_t>(config_.buffer_bytes);
    ports_[l].from = links[l].from;
    ports_[l].to = links[l].to;
    ports_[l].bandwidth = links[l].bandwidth_bytes_per_s;
    ports_[l].latency_s = links[l].latency_s;
    const bool from_host = links[l].from < host_count_, to_host = links[l].to < host_count_;
    const bool to_spine = !to_host && links[l].to >= host_count_ + leaves_;
    ports_[l].hop = from_host ? 0 : to_host ? 3 : to_spine ? 1 : 2;
  }
  node_failed_.assign(static_cast<std::size_t>(topo_.node_count()), false);
  const int switches = topo_.node_count() - host_count_;
  tables_.reserve(static_cast<std::size_t>(switches));
  elements_ = (config_.size_bytes + 3) / 4;
  const auto e = static_cast<std::uint64_t>(config_.elements_per_packet);
  blocks_ = static_cast<int>((elements_ + e - 1) / e);
  for (int s = 0; s < switches; ++s) tables_.push_back(new_table(s));
  static_state_.resize(static_cast<std::size_t>(switches));
  horizon_ = horizon_s(topo_, config_);
  rto_s_ = base_rto_s(topo_, config_);
  result_.rto_s = rto_s_;
  hosts_.resize(static_cast<std::size_t>(host_count_));
  for (int h = 0; h < host_count_; ++h)
    host_keys_.push_back(mix64(config_.seed ^ (static_cast<std::uint64_t>(h) << 40)));
  setup_tenants(participants);
  if (config_.congestion) {
    background_hosts_ = congestion;
    for (int h : congestion) {
      hosts_[h].background = true;
      if (config_.background_load < 1) hosts_[h].next_message_s = message_gap_s();  // random start
    }
  }
}

DescriptorTable Engine::new_table(int switch_index) const {
  return DescriptorTable(config_.table_entries, config_.tenants, config_.partition_table,
                         config_.table_index, mix64(config_.seed * 13 + 5 + switch_index), blocks_);
}

void Engine::push(double t, Event::Type type, int a, int b, std::uint32_t pkt) {
  heap_.push(Event{EventKey{t, seq_++}, a, b, pkt, type});
}

void Engine::queue_push(Port& port, std::uint32_t p) {
  pool_[p].next = kNone;
  if (port.tail == kNone) {
    port.head = p;
  } else {
    pool_[port.tail].next = p;
  }
  port.tail = p;
  port.queued += pool_[p].bytes;
  pool_[p].queued_s = now_;
}

std::uint32_t Engine::queue_pop(Port& port) {
  const std::uint32_t p = port.head;
  port.head = pool_[p].next;
  if (port.head == kNone) port.tail = kNone;
  port.queued -= pool_[p].bytes;
  return p;
}

void Engine::release_credit(std::uint32_t p) {
  Packet& pk = pool_[p];
  if (pk.in_link < 0) return;
  const int link = pk.in_link;
  pk.in_link = -1;
  if (!config_.lossless || !config_.input_credits) return;
  ports_[link].credits += pk.bytes;
  try_send(link);
}

void Engine::drop(std::uint32_t p) {
  ++result_.drops;
  consume(p);
}

int Engine::lookahead(int sw, const Packet& pk) {
  switch (pk.kind) {
    case Kind::reduce:  // aggregated into a descriptor (or, rarely, forwarded unreserved)
    case Kind::broadcast:
    case Kind::static_reduce:
    case Kind::static_bcast: return -1;
    case Kind::restore:
      if (pk.dst == sw) return -1;
      break;
    default: break;
  }
  return route(sw, pk);
}

void Engine::unreserve(std::uint32_t p) {
  Packet& pk = pool_[p];
  if (pk.out_link < 0) return;
  const int o = pk.out_link;
  pk.out_link = -1;
  ports_[o].reserved -= pk.bytes;
  wake_waiting(o);
}

void Engine::wake_waiting(int link) {
  Port& port = ports_[link];
  if (port.waiting.empty()) return;
  std::vector<int> waiting;
  waiting.swap(port.waiting);
  for (int w : waiting) {
    ports_[w].blocked = false;
    try_send(w);
  }
}

void Engine::enqueue(int link, std::uint32_t p) {
  Port& port = ports_[link];
  const Packet& pk = pool_[p];
  if (port.failed || (!config_.lossless && port.queued + pk.bytes > config_.buffer_bytes)) {
    drop(p);
    return;
  }
  queue_push(port, p);
  try_send(link);
}

void Engine::try_send(int link) {
  Port& port = ports_[link];
  if (port.busy) return;
  const Port& l = port;  // the link's ends, bandwidth and latency
  if (port.failed) {
    while (port.head != kNone) drop(queue_pop(port));
    return;
  }
  if (port.head == kNone && is_host(l.from) && !all_done_) {
    std::uint32_t p;
    if (!next_host_packet(l.from, p)) return;
    ++result_.packets_sent;
    queue_push(port, p);
  }
  if (port.head == kNone) return;
  if (port.blocked) return;  // woken by the queue it waits for
  const std::uint32_t p = port.head;
  Packet& pk = pool_[p];
  const bool to_switch = !is_host(l.to);
  const bool credits = config_.lossless && config_.input_credits && to_switch;
  if (credits && port.credits < static_cast<std::int64_t>(pk.bytes)) return;
  if (config_.lossless && !config_.input_credits && to_switch) {
    const int o = lookahead(l.to, pk);
    if (o >= 0 && !ports_[o].failed) {
      Port& next = ports_[o];
      if (next.queued + next.reserved + pk.bytes > config_.buffer_bytes) {
        port.blocked = true;
        next.waiting.push_back(link);
        return;
      }
      next.reserved += pk.bytes;
      pk.out_link = o;
    }
  }
  queue_pop(port);
  if (credits) port.credits -= pk.bytes;
  const int background = pk.kind == Kind::background ? 1 : 0;
  wait_sum_[port.hop][background] += now_ - pk.queued_s;
  ++wait_count_[port.hop][background];
  port.busy = true;
  double start = now_;
  if (is_host(l.from) && config_.noise_probability > 0 &&
      uniform01(noise_rng_) < config_.noise_probability)
    start += config_.noise_delay_s;  // canary-fgcs24 5.2.5: host noise
  const double done = start + pk.bytes / l.bandwidth;
  if (!all_done_) {  // utilization counts the allreduces' span only
    port.bytes_sent += pk.bytes;
    port.busy_s += done - start;
    port.last_start_s = start;
    port.last_end_s = done;
  }
  push(done, Event::tx_done, link);
  // arrivals of a link come in sending order: only the first waits in the heap
  const EventKey arrive{done + l.latency_s, seq_++};
  if (port.flight.empty()) heap_.push(Event{arrive, link, 0, 0, Event::arrive});
  port.flight.push(InFlight{arrive, p});
  release_credit(p);   // it left this node's buffer
  wake_waiting(link);  // and made room in this queue
}

void Engine::on_arrive(int link, std::uint32_t p) {
  const auto& l = topo_.links()[link];
  Packet& pk = pool_[p];
  const bool lost =
      config_.drop_probability > 0 && uniform01(fault_rng_) < config_.drop_probability;
  if (lost || ports_[link].failed || node_failed_[l.to]) {
    unreserve(p);
    // the far end never buffered it: give the credit back
    if (config_.lossless && config_.input_credits && !is_host(l.to)) {
      ports_[link].credits += pk.bytes;
      try_send(link);
    }
    ++result_.drops;
    pool_.release(p);
    return;
  }
  if (is_host(l.to)) {
    on_host_receive(l.to, p);
    return;
  }
  pk.in_link = link;
  const int sw = l.to;
  switch (pk.kind) {
    case Kind::reduce:
    case Kind::broadcast:
      if (pk.kind == Kind::reduce) {
        canary_switch(sw, p);
      } else {
        canary_broadcast_at_switch(sw, p);
      }
      return;
    case Kind::restore:
      if (pk.dst == sw) {
        canary_broadcast_at_switch(sw, p);
        return;
      }
      break;
    case Kind::static_reduce:
    case Kind::static_bcast: static_switch(sw, p); return;
    default: break;
  }
  forward(sw, p);
}

void Engine::forward(int node, std::uint32_t p) {
  Packet& pk = pool_[p];
  int link;
  if (pk.out_link >= 0) {  // the port reserved when it left the previous node
    link = pk.out_link;
    ports_[link].reserved -= pk.bytes;
    pk.out_link = -1;
  } else {
    link = route(node, pk);
  }
  if (link < 0) {
    drop(p);
    return;
  }
  enqueue(link, p);
}

int Engine::up_port(int leaf, const Packet& pk, int default_spine, int dst_leaf) {
  const int leaf_index = leaf - host_count_;
  // A spine is usable while both cables of the path through it are up: the routing tables are
  // taken to reconverge at once when a link or switch fails, so no new packet is sent toward
  // a spine that can no longer reach the destination leaf.
  auto usable = [&](int s) {
    return !ports_[topo_.leaf_up(leaf_index, s)].failed &&
           !ports_[topo_.leaf_up(dst_leaf - host_count_, s) + 1].failed;
  };
  const BackgroundRouting routing = routing_of(pk);
  if (routing != BackgroundRouting::adaptive) {
    // oblivious: one spine per (source, destination) pair (ecmp) or per destination (the
    // default port); the next usable spine when it is down
    const int first = routing == BackgroundRouting::default_port
                          ? default_spine
                          : static_cast<int>(mix64((static_cast<std::uint64_t>(pk.src) << 32) ^
                                                   static_cast<std::uint64_t>(pk.dst)) %
                                             static_cast<std::uint64_t>(spines_));
    for (int i = 0; i < spines_; ++i) {
      const int s = (first + i) % spines_;
      if (usable(s)) return topo_.leaf_up(leaf_index, s);
    }
    return -1;
  }
  // canary-fgcs24 5.2: the default up port unless its buffer is more than half full (or its
  // link is down), then the up port with the fewest queued bytes.
  const int def = topo_.leaf_up(leaf_index, default_spine);
  if (usable(default_spine) && 2 * ports_[def].queued <= config_.buffer_bytes) return def;
  int best = -1;
  std::uint64_t least = std::numeric_limits<std::uint64_t>::max();
  for (int s = 0; s < spines_; ++s) {
    const int l = topo_.leaf_up(leaf_index, s);
    if (usable(s) && ports_[l].queued < least) {
      least = ports_[l].queued;
      best = l;
    }
  }
  return best;
}

BackgroundRouting Engine::routing_of(const Packet& pk) const {
  if (pk.kind == Kind::background) return config_.background_routing;
  return config_.ecmp ? BackgroundRouting::ecmp : BackgroundRouting::adaptive;
}

int Engine::route(int node, const Packet& pk) {
  const int dst = pk.dst;
  if (is_host(node)) return topo_.host_up(node);
  const int first_spine = host_count_ + leaves_;
  const int dst_leaf = is_host(dst) ? leaf_node(dst) : (dst < first_spine ? dst : -1);
  if (node < first_spine) {  // a leaf
    if (dst_leaf == node) return topo_.host_up(dst) + 1;
    if (dst_leaf < 0) return topo_.leaf_up(node - host_count_, dst - first_spine);  // to a spine
    if (pk.tree >= 0) return topo_.leaf_up(node - host_count_, pk.tree);            // static path
    return up_port(node, pk, dst % spines_, dst_leaf);
  }
  return topo_.leaf_up(dst_leaf - host_count_, node - first_spine) + 1;  // spine: down
}

void Engine::apply_fault(int index) {
  const Fault& f = config_.faults[static_cast<std::size_t>(index)];
  std::vector<int> dead;
  if (f.link >= 0) {
    dead = {f.link, f.link % 2 == 0 ? f.link + 1 : f.link - 1};
  } else {
    node_failed_[f.node] = true;
    dead = topo_.out_links(f.node);
    for (int l : topo_.out_links(f.node)) dead.push_back(l % 2 == 0 ? l + 1 : l - 1);
  }
  for (int l : dead) ports_[l].failed = true;
  for (int l : dead) try_send(l);  // drops what waits there
  for (int l : dead) wake_waiting(l);
  if (f.node >= 0) {
    // what the switch held in its descriptors is lost with it
    for (std::uint32_t acc : tables_[f.node - host_count_].accumulators())
      pool_.payloads().unref(acc);
    tables_[f.node - host_count_] = new_table(f.node - host_count_);
  }
}

void Engine::dispatch(const Event& e) {
  switch (e.type) {
    case Event::tx_done:
      ports_[e.a].busy = false;
      try_send(e.a);
      break;
    case Event::arrive: {
      FlightRing& flight = ports_[e.a].flight;
      const std::uint32_t p = flight.front().pkt;
      flight.pop();
      if (!flight.empty()) heap_.push(Event{flight.front().time, e.a, 0, 0, Event::arrive});
      on_arrive(e.a, p);
      break;
    }
    case Event::switch_timer:
      canary_timer(e.a, e.b >> 8 & 0xffff, static_cast<int>(e.pkt), e.b & 0xff);
      break;
    case Event::host_timer: canary_host_timer(e.a, e.b, e.pkt); break;
    case Event::fault: apply_fault(e.b); break;
    case Event::host_wake:
      hosts_[e.a].wake_pending = false;
      try_send(topo_.host_up(e.a));
      break;
  }
}

InnetResult Engine::run() {
  for (int h = 0; h < host_count_; ++h)
    if (hosts_[h].tenant >= 0 || hosts_[h].background) try_send(topo_.host_up(h));
  for (std::size_t f = 0; f < config_.faults.size(); ++f)
    push(config_.faults[f].time_s, Event::fault, 0, static_cast<int>(f));
  for (;;) {
    // the earlier of the heap's top and the oldest FIFO host timer
    const bool timer =
        !host_timers_.empty() && (heap_.empty() || host_timers_.front().time < heap_.top().time);
    if (!timer && heap_.empty()) break;
    const Event e = timer ? Event{host_timers_.front().time, host_timers_.front().host,
                                  host_timers_.front().block, host_timers_.front().generation,
                                  Event::host_timer}
                          : heap_.pop();
    if (timer) host_timers_.pop_front();
    if (e.time.time > horizon_) break;
    now_ = e.time.time;
    ++result_.events;
    dispatch(e);
  }
  result_.peak_packets = pool_.allocated();
  result_.completed = tenants_done_ == static_cast<int>(tenants_.size());
  result_.exact = result_.completed && result_.mismatches == 0;
  double goodput = 0;
  for (const Tenant& t : tenants_) {
    result_.tenant_time_s.push_back(t.finish);
    result_.time_s = std::max(result_.time_s, t.finish);
    if (t.finish > 0) goodput += 8.0 * static_cast<double>(config_.size_bytes) / t.finish / 1e9;
  }
  result_.goodput_gbps = result_.completed ? goodput / static_cast<double>(tenants_.size()) : 0;
  const double span = result_.completed ? result_.time_s : horizon_;
  double sum = 0;
  const auto& links = topo_.links();
  for (std::size_t l = 0; l < links.size(); ++l) {
    const Port& port = ports_[l];
    // the last transmission may run past the span (a horizon cuts it, or the run ended)
    const double overshoot = std::max(0.0, port.last_end_s - std::max(span, port.last_start_s));
    const double busy = std::max(0.0, port.busy_s - overshoot);
    const double u = span > 0 ? std::min(1.0, busy / span) : 0.0;
    sum += u;
    if (config_.link_stats)
      result_.links.push_back(LinkUse{static_cast<int>(l), ports_[l].bytes_sent, u});
  }
  result_.mean_link_utilization = links.empty() ? 0 : sum / static_cast<double>(links.size());
  for (int h = 0; h < 4; ++h) {
    const auto mean = [&](int b) {
      return wait_count_[h][b] ? wait_sum_[h][b] / static_cast<double>(wait_count_[h][b]) : 0.0;
    };
    result_.allreduce_wait_s[h] = mean(0);
    result_.background_wait_s[h] = mean(1);
  }
  return result_;
}

}  // namespace topocoll::sim::innet
