// In-network allreduce on static reduction trees (canary-fgcs24 5.2 baselines; SHARP-like with
// one tree, PANAMA-like with N trees used round-robin per block): every tree is rooted at a
// randomly drawn spine, leaves wait for exactly their hosts and the root for every leaf, on
// fixed paths. Static trees own reserved switch state, so they never collide.
#include "sim/innet/engine.hpp"

namespace topocoll::sim::innet {

std::uint32_t Engine::static_packet(int host, int block) {
  HostState& hs = hosts_[host];
  hs.blocks[block].sent = true;
  const Tenant& t = tenants_[hs.tenant];
  const int spine = t.tree_spine[static_cast<std::size_t>(block) % t.tree_spine.size()];
  const std::uint32_t p = pool_.make();
  Packet& pk = pool_[p];
  pk.kind = Kind::static_reduce;
  pk.src = host;
  pk.dst = host_count_ + leaves_ + spine;
  pk.tree = spine;
  pk.tenant = hs.tenant;
  pk.block = block;
  pk.id = block_id(hs.tenant, 0, block);
  pk.counter = 1;
  pk.hosts = static_cast<int>(t.hosts.size());
  pk.bytes = mtu();
  fill_data(hs.tenant, hs.rank, block, pool_.fresh_payload(p));
  return p;
}

void Engine::static_switch(int sw, std::uint32_t p) {
  const Packet& pk = pool_[p];
  const Tenant& t = tenants_[pk.tenant];
  const int first_spine = host_count_ + leaves_;
  const bool leaf = sw < first_spine;
  if (pk.kind == Kind::static_bcast) {  // at a leaf: down to its hosts of the tenant
    for (int h : t.hosts_by_leaf[sw - host_count_]) {
      const std::uint32_t q = pool_.copy(p);
      pool_[q].in_link = -1;
      enqueue(topo_.host_up(h) + 1, q);
    }
    consume(p);
    return;
  }
  auto& states = static_state_[sw - host_count_];
  Descriptor& d = states[pk.id];
  PayloadPool& payloads = pool_.payloads();
  if (d.accumulator == kNone) {
    std::swap(d.accumulator, pool_[p].data);  // the first contribution becomes the accumulator
  } else {
    std::int32_t* acc = payloads.at(d.accumulator);
    const std::int32_t* in = payloads.at(pk.data);
    for (std::size_t i = 0; i < payloads.width(); ++i) acc[i] += in[i];
  }
  d.counter += pk.counter;
  const int expected = leaf ? static_cast<int>(t.hosts_by_leaf[sw - host_count_].size()) : pk.hosts;
  const std::uint64_t id = pk.id;
  const int tenant = pk.tenant, block = pk.block, spine = pk.tree, hosts = pk.hosts;
  ++result_.aggregated;
  consume(p);
  if (d.counter < expected) return;
  const std::uint32_t q = pool_.make();
  Packet& out = pool_[q];
  out.src = sw;
  out.tenant = tenant;
  out.block = block;
  out.id = id;
  out.counter = d.counter;
  out.hosts = hosts;
  out.tree = spine;
  out.bytes = mtu();
  out.data = d.accumulator;
  out.length = static_cast<std::uint32_t>(payloads.width());
  states.erase(id);
  if (leaf) {
    out.kind = Kind::static_reduce;
    out.dst = first_spine + spine;
    forward(sw, q);
    return;
  }
  out.kind = Kind::static_bcast;  // the root: down to every leaf with hosts of the tenant
  for (int l = 0; l < leaves_; ++l) {
    if (t.hosts_by_leaf[l].empty()) continue;
    const std::uint32_t c = pool_.copy(q);
    enqueue(topo_.leaf_up(l, spine) + 1, c);
  }
  pool_.release(q);
}

}  // namespace topocoll::sim::innet
