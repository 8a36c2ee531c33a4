// Hosts: what each sends next (control first, then its allreduce data, or congestion traffic),
// what it does with what it receives, and the data whose sums are checked.
#include <algorithm>
#include <cmath>

#include "sim/innet/engine.hpp"

namespace topocoll::sim::innet {

std::int32_t Engine::value(int host, std::uint64_t index) const {
  if (index >= elements_) return 0;  // padding of the last block
  // one multiply per element (a run fills a billion of them): a per-host key plus the index,
  // multiplicatively hashed; the top 16 bits keep sums of 1e4 hosts inside int32
  const std::uint64_t h = (host_keys_[host] + index) * 0x9e3779b97f4a7c15ULL;
  return static_cast<std::int32_t>(h >> 48) - 0x8000;
}

void Engine::fill_data(int tenant, int rank, int block, std::int32_t* out) const {
  const int host = tenants_[tenant].hosts[rank];
  const auto e = static_cast<std::uint64_t>(config_.elements_per_packet);
  if ((static_cast<std::uint64_t>(block) + 1) * e <= elements_) {  // no padding: the fast loop
    const std::uint64_t key = host_keys_[host] + static_cast<std::uint64_t>(block) * e;
    for (std::uint64_t i = 0; i < e; ++i)
      out[i] = static_cast<std::int32_t>(((key + i) * 0x9e3779b97f4a7c15ULL) >> 48) - 0x8000;
    return;
  }
  for (std::uint64_t i = 0; i < e; ++i)
    out[i] = value(host, static_cast<std::uint64_t>(block) * e + i);
}

void Engine::setup_tenants(const std::vector<int>& participants) {
  const int k = config_.tenants;
  const int n = static_cast<int>(participants.size());
  std::mt19937_64 tree_rng(config_.seed * 11 + 4);
  tenants_.resize(static_cast<std::size_t>(k));
  const auto e = static_cast<std::uint64_t>(config_.elements_per_packet);
  for (int t = 0; t < k; ++t) {
    Tenant& ten = tenants_[t];
    ten.hosts.assign(participants.begin() + static_cast<std::ptrdiff_t>(t) * n / k,
                     participants.begin() + static_cast<std::ptrdiff_t>(t + 1) * n / k);
    std::sort(ten.hosts.begin(), ten.hosts.end());
    const int size = static_cast<int>(ten.hosts.size());
    for (int r = 0; r < size; ++r) {
      HostState& hs = hosts_[ten.hosts[r]];
      hs.tenant = t;
      hs.rank = r;
      if (config_.algorithm != Algorithm::ring) hs.blocks.resize(static_cast<std::size_t>(blocks_));
    }
    ten.expected.assign(static_cast<std::size_t>(blocks_) * e, 0);
    for (int h : ten.hosts) {
      const std::uint64_t key = host_keys_[h];
      for (std::size_t i = 0; i < elements_; ++i)
        ten.expected[i] += static_cast<std::int32_t>(((key + i) * 0x9e3779b97f4a7c15ULL) >> 48) -
                           0x8000;  // = value(h, i); padding stays 0
    }
    if (config_.algorithm == Algorithm::canary)
      ten.leader.resize(static_cast<std::size_t>(blocks_));
    if (config_.algorithm == Algorithm::static_trees) {
      // random roots, distinct while there are enough spines (canary-fgcs24 5.2)
      std::vector<int> spines(static_cast<std::size_t>(spines_));
      for (int s = 0; s < spines_; ++s) spines[s] = s;
      for (int i = spines_ - 1; i > 0; --i)
        std::swap(spines[i], spines[tree_rng() % static_cast<std::uint64_t>(i + 1)]);
      for (int tr = 0; tr < config_.trees; ++tr) ten.tree_spine.push_back(spines[tr % spines_]);
      ten.hosts_by_leaf.assign(static_cast<std::size_t>(leaves_), {});
      for (int h : ten.hosts) ten.hosts_by_leaf[topo_.leaf_of(h)].push_back(h);
    }
  }
}

bool Engine::next_host_packet(int host, std::uint32_t& p) {
  HostState& hs = hosts_[host];
  if (!hs.control.empty()) {
    p = hs.control.front();
    hs.control.pop_front();
    return true;
  }
  if (hs.tenant >= 0) {
    if (config_.algorithm == Algorithm::ring) {
      if (ring_packet(host, p)) return true;
    } else {
      while (!hs.resend.empty()) {
        const int b = hs.resend.front();
        hs.resend.pop_front();
        const HostBlock& hb = hs.blocks[b];
        // Two restarts before the host got to resend queue the block twice: sending the same
        // id twice would count this host's data twice. (Host-based fallback re-sends on
        // purpose; the leader keeps one contribution per rank.)
        if (hb.done || (!hb.fallback && hb.sent_attempt == hb.attempt)) continue;
        ++result_.retransmissions;
        p = canary_packet(host, b);
        return true;
      }
      if (config_.algorithm == Algorithm::canary) {
        while (hs.cursor < blocks_ && leader_of(hs.tenant, hs.cursor) == host) ++hs.cursor;
      }
      const bool window_open = config_.window_blocks <= 0 || hs.in_flight < config_.window_blocks;
      if (hs.cursor < blocks_ && window_open) {
        const int b = hs.cursor++;
        hs.blocks[b].in_window = true;
        ++hs.in_flight;
        p = config_.algorithm == Algorithm::canary ? canary_packet(host, b)
                                                   : static_packet(host, b);
        return true;
      }
    }
  }
  if (hs.background && background_hosts_.size() > 1 && background_ready(host)) {
    p = background_packet(host);
    return true;
  }
  return false;
}

// Below line rate, a congestion host's messages start as a Poisson process whose mean rate is
// the offered load (a message's wire time / load apart); one that finds the previous still
// sending waits for it. Between messages the host is idle and wakes at the next start.
bool Engine::background_ready(int host) {
  HostState& hs = hosts_[host];
  if (hs.left > 0 || config_.background_load >= 1 || now_ >= hs.next_message_s) return true;
  if (!hs.wake_pending) {
    hs.wake_pending = true;
    push(hs.next_message_s, Event::host_wake, host);
  }
  return false;
}

double Engine::message_gap_s() {
  const auto payload = static_cast<std::uint64_t>(4 * config_.elements_per_packet);
  const std::uint64_t packets = (config_.background_message_bytes + payload - 1) / payload;
  const double wire_s = static_cast<double>(packets * mtu()) / ports_.front().bandwidth;
  const double u = (static_cast<double>(background_rng_() >> 11) + 1) * 0x1.0p-53;  // (0, 1]
  return -std::log(u) * wire_s / config_.background_load;
}

std::uint32_t Engine::background_packet(int host) {
  HostState& hs = hosts_[host];
  const auto payload = static_cast<std::uint64_t>(4 * config_.elements_per_packet);
  if (hs.left == 0) {  // a new message to a new random peer (canary-fgcs24 5.2)
    const auto n = background_hosts_.size();
    if (config_.background_permutation) {
      // message k of every host follows the k-th random cycle through the congestion hosts
      while (permutations_.size() <= static_cast<std::size_t>(hs.message)) {
        std::vector<int> order = background_hosts_;
        for (std::size_t i = n - 1; i > 0; --i)
          std::swap(order[i], order[background_rng_() % (i + 1)]);
        std::vector<int> next(static_cast<std::size_t>(host_count_), -1);
        for (std::size_t i = 0; i < n; ++i) next[order[i]] = order[(i + 1) % n];
        permutations_.push_back(std::move(next));
      }
      hs.peer = permutations_[hs.message++][host];
    } else {
      do {
        hs.peer = background_hosts_[background_rng_() % n];
      } while (hs.peer == host);
    }
    hs.left = config_.background_message_bytes;
    if (config_.background_load < 1) hs.next_message_s += message_gap_s();
  }
  hs.left -= std::min(hs.left, payload);
  const std::uint32_t p = pool_.make();
  Packet& pk = pool_[p];
  pk.kind = Kind::background;
  pk.src = host;
  pk.dst = hs.peer;
  pk.bytes = mtu();
  return p;
}

void Engine::on_host_receive(int host, std::uint32_t p) {
  Packet& pk = pool_[p];
  switch (pk.kind) {
    case Kind::ring_data: ring_receive(host, p); break;
    case Kind::static_bcast:
    case Kind::broadcast:
    case Kind::result: block_done(host, pk.block, pool_.payload(p), pk.length); break;
    case Kind::reduce:
    case Kind::to_leader:
    case Kind::retx_request:
    case Kind::fallback_data: canary_leader(host, p); break;
    case Kind::failure_notice: {
      HostState& hs = hosts_[host];
      HostBlock& hb = hs.blocks[pk.block];
      if (!hb.done && pk.attempt > hb.attempt) {
        hb.attempt = static_cast<std::uint8_t>(pk.attempt);
        hb.fallback = pk.step != 0;
        // not yet sent: the cursor sends it with the new id
        if (hb.sent) hs.resend.push_back(pk.block);
        try_send(topo_.host_up(host));
      }
      break;
    }
    default: break;
  }
  pool_.release(p);
}

void Engine::block_done(int host, int block, const std::int32_t* data, std::size_t length) {
  HostState& hs = hosts_[host];
  HostBlock& hb = hs.blocks[block];
  if (hb.done || hs.tenant < 0) return;
  if (config_.algorithm == Algorithm::canary) sample_rtt(host, block);
  hb.done = true;
  ++hb.timer;          // cancels the retransmission timer
  if (hb.in_window) {  // a window slot opens
    hb.in_window = false;
    if (hs.in_flight-- == config_.window_blocks) try_send(topo_.host_up(host));
  }
  const Tenant& t = tenants_[hs.tenant];
  const auto e = static_cast<std::size_t>(config_.elements_per_packet);
  if (data == nullptr || length != e ||
      !std::equal(data, data + e, t.expected.begin() + static_cast<std::ptrdiff_t>(block * e)))
    ++result_.mismatches;
  if (++hs.done_blocks == blocks_) host_finished(host);
}

void Engine::host_finished(int host) {
  Tenant& t = tenants_[hosts_[host].tenant];
  if (++t.done_hosts < static_cast<int>(t.hosts.size())) return;
  t.finish = now_;
  if (++tenants_done_ == static_cast<int>(tenants_.size())) all_done_ = true;
}

}  // namespace topocoll::sim::innet
