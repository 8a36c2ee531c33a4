// Canary (canary-fgcs24 section 3): timeout-based aggregation in whatever switches the packets
// cross on their adaptive paths toward the block's root switch (the leaf of its leader host),
// broadcast down the recorded children, tree restoration after collisions (3.2.1), host
// timers, restarts with a new id and host-based fallback after losses (3.3), tenant id
// prefixes (3.4).
#include <algorithm>

#include "sim/packet/engine.hpp"

namespace topocoll::sim::packet {

namespace {
void add_into(std::vector<std::int32_t>& acc, const std::vector<std::int32_t>& data) {
  if (acc.empty()) acc.assign(data.size(), 0);
  for (std::size_t i = 0; i < data.size() && i < acc.size(); ++i) acc[i] += data[i];
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

void Engine::arm_host_timer(int host, int block) {
  HostBlock& hb = hosts_[host].blocks[block];
  push(now_ + config_.rto_s, Event::host_timer, host, block, 0, ++hb.timer);
}

std::uint32_t Engine::canary_packet(int host, int block) {
  HostState& hs = hosts_[host];
  HostBlock& hb = hs.blocks[block];
  hb.sent = true;
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
  fill_data(hs.tenant, hs.rank, block, pk.data);
  arm_host_timer(host, block);
  return p;
}

void Engine::canary_switch(int sw, std::uint32_t p) {
  Packet& pk = pool_[p];
  Descriptor& d = tables_[sw - host_count_].slot(pk.id, pk.tenant);
  // A descriptor whose broadcast never came (a loss) would hold its entry forever; after a
  // host retransmission period its block has been restarted, so the entry is reclaimed.
  if (d.used && d.id != pk.id && now_ - d.created_s > config_.rto_s) d.used = false;
  const int port = port_index(pk.in_link);
  if (!d.used) {
    d.used = true;
    d.fired = false;
    d.id = pk.id;
    d.created_s = now_;
    d.counter = pk.counter;
    d.hosts = pk.hosts;
    d.dst = pk.dst;
    d.children = {};
    set_child(d, port);
    d.accumulator.swap(pk.data);
    const int tenant = pk.tenant, block = pk.block, attempt = pk.attempt;
    const std::uint64_t id = pk.id;
    ++result_.aggregated;
    consume(p);
    push(now_ + config_.timeout_s, Event::switch_timer, sw, tenant << 8 | attempt,
         static_cast<std::uint32_t>(block), id);
    if (d.counter >= d.hosts) canary_fire(sw, d, tenant, block, attempt);
    return;
  }
  if (d.id == pk.id) {
    set_child(d, port);
    if (d.fired) {  // 3.1.1: a straggler goes on alone
      ++result_.stragglers;
      forward(sw, p);
      return;
    }
    add_into(d.accumulator, pk.data);
    d.counter += pk.counter;
    const int tenant = pk.tenant, block = pk.block, attempt = pk.attempt;
    ++result_.aggregated;
    consume(p);
    if (d.counter >= d.hosts) canary_fire(sw, d, tenant, block, attempt);
    return;
  }
  // 3.2.1: collision; mark with switch and port, straight to the leader
  ++result_.collisions;
  pk.kind = Kind::to_leader;
  pk.mark_switch = sw;
  pk.mark_port = port;
  forward(sw, p);
}

void Engine::canary_timer(int sw, std::uint64_t id, int tenant, int block, int attempt) {
  Descriptor& d = tables_[sw - host_count_].slot(id, tenant);
  if (!d.used || d.id != id || d.fired) return;
  canary_fire(sw, d, tenant, block, attempt);
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
  pk.data.swap(d.accumulator);
  forward(sw, p);  // toward the root on the least congested path (adaptive up port)
}

void Engine::canary_broadcast_at_switch(int sw, std::uint32_t p) {
  std::vector<int> ports;
  if (pool_[p].kind == Kind::restore) {
    ports = pool_[p].ports;  // 3.2.1: the children this switch could not record
  } else {
    Descriptor& d = tables_[sw - host_count_].slot(pool_[p].id, pool_[p].tenant);
    if (!d.used || d.id != pool_[p].id) {  // no descriptor (collision): restoration covers it
      consume(p);
      return;
    }
    for (int w = 0; w < 4; ++w)
      for (int b = 0; b < 64; ++b)
        if (d.children[w] >> b & 1) ports.push_back(w * 64 + b);
    d.used = false;  // 3.1.2: deallocated once the result went down
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
  if (data) pk.data = *data;
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
      add_into(lb.acc, pk.data);
      lb.counter += pk.counter;
      if (lb.counter >= need) leader_complete(pk.tenant, pk.block);
      return;
    case Kind::retx_request:
      if (lb.complete) {
        send_to_host(host, pk.src, Kind::result, pk.tenant, pk.block, lb.attempt, &lb.acc);
      } else if (pk.attempt < lb.attempt) {
        send_to_host(host, pk.src, Kind::failure_notice, pk.tenant, pk.block, lb.attempt, nullptr,
                     lb.fallback ? 1 : 0);
      } else if (now_ - lb.attempt_start > config_.rto_s) {
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
      add_into(lb.acc, pk.data);
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
  std::vector<std::int32_t> own;
  fill_data(tenant, hosts_[leader].rank, block, own);
  add_into(lb.acc, own);
  block_done(leader, block, lb.acc);
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

}  // namespace topocoll::sim::packet
