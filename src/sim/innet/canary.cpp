// Canary (canary-fgcs24 section 3): timeout-based aggregation in whatever switches the packets
// cross on their adaptive paths toward the block's root switch (the leaf of its leader host),
// broadcast down the recorded children, tree restoration after collisions (3.2.1), host
// timers, restarts with a new id and host-based fallback after losses (3.3), tenant id
// prefixes (3.4).
#include <algorithm>
#include <cmath>

#include "sim/innet/engine.hpp"

namespace topocoll::sim::innet {

namespace {
void add_into(std::vector<std::int32_t>& acc, const std::int32_t* data, std::size_t length) {
  if (acc.empty()) acc.assign(length, 0);
  for (std::size_t i = 0; i < length && i < acc.size(); ++i) acc[i] += data[i];
}
void set_child(Descriptor& d, int port) { d.children[port / 64] |= 1ULL << (port % 64); }
}  // namespace

std::uint64_t Engine::block_id(int tenant, int attempt, int block) const {
  // 3.4: tenant prefix, then the sequence number (attempt: a restarted block is a new id)
  return (static_cast<std::uint64_t>(tenant) << 48) | (static_cast<std::uint64_t>(attempt) << 40) |
         static_cast<std::uint64_t>(block);
}

int Engine::leader_of(int tenant, int block) const {
  const auto& hosts = tenants_[tenant].hosts;
  return hosts[static_cast<std::size_t>(block) % hosts.size()];  // round robin (3.1.3)
}

// 3.3 says hosts time every block but not for how long. A fixed timer shorter than a block's
// latency under congestion makes a storm of spurious requests and restarts (260,075 requests
// in the 512-host congested run with a fixed 200 us). The minimum is the network's worst-case
// round trip (bounds.cpp) unless --rto sets it; above it the timer follows TCP's rules
// (RFC 6298): RTO = max(minimum, SRTT + 4 RTTVAR) from the host's measured block round trips
// (send to result, Karn: only blocks whose timer never expired), doubled on every expiry of
// the same block.
double Engine::host_rto(int host, int expiries) const {
  const HostState& hs = hosts_[host];
  double rto = rto_s_;
  if (!config_.adaptive_rto) return rto;
  if (hs.rtt_sampled) rto = std::max(rto, hs.srtt + 4 * hs.rttvar);
  return std::ldexp(rto, std::min(expiries, 30));
}

void Engine::sample_rtt(int host, int block) {
  HostState& hs = hosts_[host];
  const HostBlock& hb = hs.blocks[block];
  if (hb.expiries != 0 || !hb.sent) return;  // Karn's rule
  const double r = now_ - hb.sent_s;
  result_.max_block_rtt_s = std::max(result_.max_block_rtt_s, r);
  if (!hs.rtt_sampled) {
    hs.srtt = r;
    hs.rttvar = r / 2;
    hs.rtt_sampled = true;
    return;
  }
  hs.rttvar = 0.75 * hs.rttvar + 0.25 * std::abs(hs.srtt - r);
  hs.srtt = 0.875 * hs.srtt + 0.125 * r;
}

void Engine::arm_host_timer(int host, int block) {
  HostBlock& hb = hosts_[host].blocks[block];
  hb.armed_s = now_;
  ++hb.timer;
  if (hb.expiries == 0) {
    // The first check of every timer comes after the same --rto, so the FIFO stays sorted by
    // (time, seq); canary_host_timer postpones it when the host's RTO has grown.
    host_timers_.push_back(HostTimer{EventKey{now_ + rto_s_, seq_++}, host, block, hb.timer});
    return;
  }
  push(now_ + host_rto(host, hb.expiries), Event::host_timer, host, block, hb.timer);
}

std::uint32_t Engine::canary_packet(int host, int block) {
  HostState& hs = hosts_[host];
  HostBlock& hb = hs.blocks[block];
  hb.sent = true;
  hb.sent_attempt = hb.attempt;
  const std::uint32_t p = pool_.make();
  Packet& pk = pool_[p];
  pk.kind = hb.fallback ? Kind::fallback_data : Kind::reduce;
  pk.src = host;
  pk.dst = leader_of(hs.tenant, block);
  pk.tenant = hs.tenant;
  pk.block = block;
  pk.attempt = hb.attempt;
  pk.id = block_id(hs.tenant, hb.attempt, block);
  pk.counter = 1;
  pk.hosts = static_cast<int>(tenants_[hs.tenant].hosts.size()) - 1;  // the leader keeps its own
  pk.bytes = mtu();
  fill_data(hs.tenant, hs.rank, block, pool_.fresh_payload(p));
  hb.sent_s = now_;
  hb.expiries = 0;
  arm_host_timer(host, block);
  return p;
}

void Engine::canary_switch(int sw, std::uint32_t p) {
  Packet& pk = pool_[p];
  DescriptorTable& table = tables_[sw - host_count_];
  PayloadPool& payloads = pool_.payloads();
  Descriptor* d = table.at(pk.id, pk.tenant);
  // A descriptor whose broadcast never came (a loss) would hold its entry forever; after a
  // host retransmission period its block has been restarted, so the entry is reclaimed.
  if (d != nullptr && d->id != pk.id && now_ - d->created_s > rto_s_) {
    payloads.unref(d->accumulator);
    table.free(pk.id, pk.tenant);
    d = nullptr;
  }
  const int port = port_index(pk.in_link);
  if (d == nullptr) {
    Descriptor& n = table.allocate(pk.id, pk.tenant);
    n.created_s = now_;
    n.counter = pk.counter;
    n.hosts = pk.hosts;
    n.dst = pk.dst;
    set_child(n, port);
    std::swap(n.accumulator, pk.data);
    const int tenant = pk.tenant, block = pk.block, attempt = pk.attempt;
    ++result_.aggregated;
    consume(p);
    push(now_ + config_.timeout_s, Event::switch_timer, sw, tenant << 8 | attempt,
         static_cast<std::uint32_t>(block));
    if (n.counter >= n.hosts) canary_fire(sw, n, tenant, block, attempt);
    return;
  }
  if (d->id == pk.id) {
    set_child(*d, port);
    if (d->fired) {  // 3.1.1: a straggler goes on alone
      ++result_.stragglers;
      forward(sw, p);
      return;
    }
    if (d->accumulator == kNone) {
      std::swap(d->accumulator, pk.data);
    } else {
      d->accumulator = payloads.unique(d->accumulator);
      std::int32_t* acc = payloads.at(d->accumulator);
      const std::int32_t* in = payloads.at(pk.data);
      for (std::size_t i = 0; i < payloads.width(); ++i) acc[i] += in[i];
    }
    d->counter += pk.counter;
    const int tenant = pk.tenant, block = pk.block, attempt = pk.attempt;
    ++result_.aggregated;
    consume(p);
    if (d->counter >= d->hosts) canary_fire(sw, *d, tenant, block, attempt);
    return;
  }
  // 3.2.1: collision; mark with switch and port, straight to the leader
  ++result_.collisions;
  pk.kind = Kind::to_leader;
  pk.mark_switch = sw;
  pk.mark_port = port;
  forward(sw, p);
}

void Engine::canary_timer(int sw, int tenant, int block, int attempt) {
  const std::uint64_t id = block_id(tenant, attempt, block);
  Descriptor* d = tables_[sw - host_count_].at(id, tenant);
  if (d == nullptr || d->id != id || d->fired) return;
  canary_fire(sw, *d, tenant, block, attempt);
}

void Engine::canary_fire(int sw, Descriptor& d, int tenant, int block, int attempt) {
  d.fired = true;
  const std::uint32_t p = pool_.make();
  Packet& pk = pool_[p];
  pk.kind = Kind::reduce;
  pk.src = sw;
  pk.dst = d.dst;
  pk.tenant = tenant;
  pk.block = block;
  pk.attempt = attempt;
  pk.id = d.id;
  pk.counter = d.counter;
  pk.hosts = d.hosts;
  pk.bytes = mtu();
  pk.data = d.accumulator;
  pk.length = static_cast<std::uint32_t>(pool_.payloads().width());
  d.accumulator = kNone;
  forward(sw, p);  // toward the root on the least congested path (adaptive up port)
}

void Engine::canary_broadcast_at_switch(int sw, std::uint32_t p) {
  std::vector<int> ports;
  if (pool_[p].kind == Kind::restore) {
    ports = pool_[p].ports;  // 3.2.1: the children this switch could not record
  } else {
    DescriptorTable& table = tables_[sw - host_count_];
    Descriptor* d = table.at(pool_[p].id, pool_[p].tenant);
    if (d == nullptr || d->id != pool_[p].id) {  // no descriptor (collision): restoration covers it
      consume(p);
      return;
    }
    for (int w = 0; w < 4; ++w)
      for (int b = 0; b < 64; ++b)
        if (d->children[w] >> b & 1) ports.push_back(w * 64 + b);
    pool_.payloads().unref(d->accumulator);
    table.free(pool_[p].id, pool_[p].tenant);  // 3.1.2: deallocated once the result went down
  }
  const auto& out = topo_.out_links(sw);
  for (int port : ports) {
    const std::uint32_t q = pool_.copy(p);
    Packet& c = pool_[q];
    c.kind = Kind::broadcast;
    c.ports.clear();
    c.in_link = -1;
    c.bytes = mtu();
    enqueue(out[port], q);
  }
  consume(p);
}

void Engine::send_to_host(int from, int to, Kind kind, int tenant, int block, int attempt,
                          const std::vector<std::int32_t>* data, int step,
                          const std::vector<int>* ports) {
  const std::uint32_t p = pool_.make();
  Packet& pk = pool_[p];
  pk.kind = kind;
  pk.src = from;
  pk.dst = to;
  pk.tenant = tenant;
  pk.block = block;
  pk.attempt = attempt;
  pk.id = block_id(tenant, attempt, block);
  pk.step = step;
  pk.bytes = data ? mtu() : control_bytes();
  if (data) {
    std::int32_t* out = pool_.fresh_payload(p);
    std::copy(data->begin(), data->end(), out);
  }
  if (ports) {
    pk.ports = *ports;
    pk.bytes += 8;  // the port bitmap
  }
  hosts_[from].control.push_back(p);
  try_send(topo_.host_up(from));
}

void Engine::canary_host_timer(int host, int block, std::uint32_t generation) {
  HostState& hs = hosts_[host];
  HostBlock& hb = hs.blocks[block];
  if (hb.done || generation != hb.timer) return;
  const double deadline = hb.armed_s + host_rto(host, hb.expiries);
  if (now_ < deadline) {  // the host's RTO grew since the timer was armed
    push(deadline, Event::host_timer, host, block, hb.timer);
    return;
  }
  ++hb.expiries;
  if (hb.fallback) {  // host-based: send the data again
    hs.resend.push_back(block);
    try_send(topo_.host_up(host));
    return;
  }
  ++result_.retransmissions;  // 3.3: ask the leader
  send_to_host(host, leader_of(hs.tenant, block), Kind::retx_request, hs.tenant, block, hb.attempt,
               nullptr);
  arm_host_timer(host, block);
}

void Engine::canary_leader(int host, std::uint32_t p) {
  const Packet& pk = pool_[p];  // read before anything allocates packets
  Tenant& t = tenants_[pk.tenant];
  LeaderBlock& lb = t.leader[pk.block];
  const int need = static_cast<int>(t.hosts.size()) - 1;
  switch (pk.kind) {
    case Kind::reduce:
    case Kind::to_leader:
      ++result_.to_leader;
      if (lb.complete || lb.fallback || pk.attempt != lb.attempt) return;
      if (pk.kind == Kind::to_leader) {
        const std::pair<int, int> mark{pk.mark_switch, pk.mark_port};
        if (std::find(lb.marks.begin(), lb.marks.end(), mark) == lb.marks.end())
          lb.marks.push_back(mark);
      }
      add_into(lb.acc, pool_.payload(p), pk.length);
      lb.counter += pk.counter;
      if (lb.counter >= need) leader_complete(pk.tenant, pk.block);
      return;
    case Kind::retx_request:
      if (lb.complete) {
        send_to_host(host, pk.src, Kind::result, pk.tenant, pk.block, lb.attempt, &lb.acc);
      } else if (pk.attempt < lb.attempt) {
        send_to_host(host, pk.src, Kind::failure_notice, pk.tenant, pk.block, lb.attempt, nullptr,
                     lb.fallback ? 1 : 0);
      } else if (now_ - lb.attempt_start > rto_s_) {
        leader_restart(pk.tenant, pk.block);
      }
      return;
    case Kind::fallback_data: {
      if (lb.complete) {
        send_to_host(host, pk.src, Kind::result, pk.tenant, pk.block, lb.attempt, &lb.acc);
        return;
      }
      if (!lb.fallback) return;
      const int rank = hosts_[pk.src].rank;
      if (lb.contributed[rank]) return;
      lb.contributed[rank] = true;
      add_into(lb.acc, pool_.payload(p), pk.length);
      if (++lb.counter >= need) leader_complete(pk.tenant, pk.block);
      return;
    }
    default: return;
  }
}

void Engine::leader_complete(int tenant, int block) {
  Tenant& t = tenants_[tenant];
  LeaderBlock& lb = t.leader[block];
  const int leader = leader_of(tenant, block);
  lb.complete = true;
  std::vector<std::int32_t> own(static_cast<std::size_t>(config_.elements_per_packet));
  fill_data(tenant, hosts_[leader].rank, block, own.data());
  add_into(lb.acc, own.data(), own.size());
  block_done(leader, block, lb.acc.data(), lb.acc.size());
  if (lb.fallback) {
    for (int h : t.hosts)
      if (h != leader) send_to_host(leader, h, Kind::result, tenant, block, lb.attempt, &lb.acc);
    return;
  }
  send_to_host(leader, leaf_node(leader), Kind::broadcast, tenant, block, lb.attempt, &lb.acc);
  // 3.2.1: one restoration packet per switch that lost children to collisions
  std::vector<std::pair<int, int>> marks = lb.marks;
  std::sort(marks.begin(), marks.end());
  for (std::size_t i = 0; i < marks.size();) {
    std::size_t j = i;
    while (j < marks.size() && marks[j].first == marks[i].first) ++j;
    std::vector<int> ports;
    for (std::size_t k = i; k < j; ++k) ports.push_back(marks[k].second);
    send_to_host(leader, marks[i].first, Kind::restore, tenant, block, lb.attempt, &lb.acc, 0,
                 &ports);
    i = j;
  }
}

void Engine::leader_restart(int tenant, int block) {
  Tenant& t = tenants_[tenant];
  LeaderBlock& lb = t.leader[block];
  ++lb.attempt;
  ++result_.restarts;
  lb.counter = 0;
  lb.acc.clear();
  lb.marks.clear();
  lb.attempt_start = now_;
  if (lb.attempt >= config_.max_attempts) {  // 3.3: give up on the network
    lb.fallback = true;
    ++result_.fallbacks;
    lb.contributed.assign(t.hosts.size(), false);
  }
  const int leader = leader_of(tenant, block);
  for (int h : t.hosts)
    if (h != leader)
      send_to_host(leader, h, Kind::failure_notice, tenant, block, lb.attempt, nullptr,
                   lb.fallback ? 1 : 0);
}

}  // namespace topocoll::sim::innet
