// Host-based ring allreduce as packets (the bandwidth-optimal baseline of canary-fgcs24 5.2):
// P-1 reduce-scatter steps then P-1 allgather steps, each step one chunk of size/P to the next
// host. A host keeps only the chunks in flight; final chunks are checked when they arrive.
#include <algorithm>

#include "sim/innet/engine.hpp"

namespace topocoll::sim::innet {

std::uint64_t Engine::chunk_begin(int tenant, int chunk) const {
  const auto p = static_cast<std::uint64_t>(tenants_[tenant].hosts.size());
  return static_cast<std::uint64_t>(chunk) * elements_ / p;
}

namespace {
int mod(int a, int n) { return ((a % n) + n) % n; }
int packets_for(std::uint64_t elements, int per_packet) {
  return std::max(1, static_cast<int>((elements + per_packet - 1) / per_packet));
}
}  // namespace

bool Engine::ring_packet(int host, std::uint32_t& p) {
  HostState& hs = hosts_[host];
  RingHost& rh = hs.ring;
  const Tenant& t = tenants_[hs.tenant];
  const int size = static_cast<int>(t.hosts.size());
  if (!rh.started) {  // step 0: its own chunk
    rh.started = true;
    const std::uint64_t b = chunk_begin(hs.tenant, hs.rank);
    const std::uint64_t e = chunk_begin(hs.tenant, hs.rank + 1);
    std::vector<std::int32_t> own(e - b);
    for (std::uint64_t i = b; i < e; ++i) own[i - b] = value(host, i);
    rh.sends.emplace_back(0, std::move(own));
  }
  if (rh.sends.empty()) return false;
  const auto& [step, chunk] = rh.sends.front();
  const int per = config_.elements_per_packet;
  const int count = packets_for(chunk.size(), per);
  const std::size_t from = static_cast<std::size_t>(rh.send_packet) * per;
  const std::size_t to = std::min(chunk.size(), from + per);
  p = pool_.make();
  Packet& pk = pool_[p];
  pk.kind = Kind::ring_data;
  pk.src = host;
  pk.dst = t.hosts[mod(hs.rank + 1, size)];
  pk.tenant = hs.tenant;
  pk.step = step;
  pk.block = rh.send_packet;
  const std::size_t length = to - std::min(from, to);
  std::copy_n(chunk.begin() + static_cast<std::ptrdiff_t>(std::min(from, to)), length,
              pool_.fresh_payload(p));
  pk.length = static_cast<std::uint32_t>(length);
  pk.bytes =
      static_cast<std::uint32_t>(config_.header_bytes + 4 * std::max<std::size_t>(1, length));
  if (++rh.send_packet == count) {
    rh.send_packet = 0;
    rh.sends.pop_front();
  }
  return true;
}

void Engine::ring_receive(int host, std::uint32_t p) {
  const Packet& pk = pool_[p];
  HostState& hs = hosts_[host];
  RingHost& rh = hs.ring;
  const int size = static_cast<int>(tenants_[hs.tenant].hosts.size());
  const int s = pk.step;
  const int chunk =
      s < size - 1 ? mod(hs.rank - 1 - s, size) : mod(hs.rank - (s - (size - 1)), size);
  const std::uint64_t len = chunk_begin(hs.tenant, chunk + 1) - chunk_begin(hs.tenant, chunk);
  RingStep& st = rh.recv[s];
  if (st.data.size() != len) st.data.assign(len, 0);
  std::copy_n(
      pool_.payload(p), pk.length,
      st.data.begin() + static_cast<std::ptrdiff_t>(pk.block) * config_.elements_per_packet);
  ++st.packets;
  // steps complete in order: a fast predecessor may be several steps ahead
  for (auto it = rh.recv.find(rh.next_recv);
       it != rh.recv.end() &&
       it->second.packets == packets_for(it->second.data.size(), config_.elements_per_packet);
       it = rh.recv.find(rh.next_recv)) {
    std::vector<std::int32_t> data = std::move(it->second.data);
    rh.recv.erase(it);
    ring_step_complete(host, rh.next_recv++, data);
  }
}

void Engine::ring_step_complete(int host, int step, std::vector<std::int32_t>& data) {
  HostState& hs = hosts_[host];
  RingHost& rh = hs.ring;
  const Tenant& t = tenants_[hs.tenant];
  const int size = static_cast<int>(t.hosts.size());
  const bool reduce_scatter = step < size - 1;
  const int chunk =
      reduce_scatter ? mod(hs.rank - 1 - step, size) : mod(hs.rank - (step - (size - 1)), size);
  const std::uint64_t begin = chunk_begin(hs.tenant, chunk);
  if (reduce_scatter)
    for (std::size_t i = 0; i < data.size(); ++i) data[i] += value(host, begin + i);
  const bool final = !reduce_scatter || step == size - 2;
  if (final) {
    if (!std::equal(data.begin(), data.end(),
                    t.expected.begin() + static_cast<std::ptrdiff_t>(begin)))
      ++result_.mismatches;
    if (++rh.verified == size) host_finished(host);
  }
  if (step < 2 * size - 3) rh.sends.emplace_back(step + 1, std::move(data));
  try_send(topo_.host_up(host));
}

}  // namespace topocoll::sim::innet
