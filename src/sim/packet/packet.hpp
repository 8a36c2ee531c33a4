#pragma once
// One network packet of the packet-level engine and the pool that recycles them (millions of
// packets per run; payload vectors keep their capacity between uses).
#include <cstdint>
#include <vector>

namespace topocoll::sim::packet {

enum class Kind : std::uint8_t {
  reduce,          // Canary: data toward the root switch / leader (aggregated on the way)
  to_leader,       // Canary: collided packet marked with switch and port, bypasses switches
  broadcast,       // Canary: result going down the recorded children
  restore,         // Canary: leader to a switch whose descriptor was lost to a collision
  retx_request,    // host to leader: result of a block not received in time
  failure_notice,  // leader to host: restart the block with a new id (or fall back)
  fallback_data,   // host to leader: host-based reduction of one block
  result,          // leader to host: unicast of a fully reduced block
  static_reduce,   // static tree: up toward the tree's spine
  static_bcast,    // static tree: down the tree
  ring_data,       // host-based ring allreduce
  background,      // congestion traffic
};

struct Packet {
  Kind kind = Kind::reduce;
  int src = 0;
  int dst = 0;  // node id (host or switch)
  int tenant = 0;
  int block = 0;
  int attempt = 0;
  int counter = 0;  // contributions already reduced into `data` (canary-fgcs24 Fig. 3)
  int hosts = 0;    // contributions expected at the leader
  int tree = -1;    // static trees: which tree
  int step = 0;     // ring: step; failure_notice: 1 = fall back
  int mark_switch = -1;
  int mark_port = -1;
  int in_link = -1;  // link it arrived on at its current switch (holds that link's credit)
  std::uint32_t bytes = 0;
  std::uint64_t id = 0;
  std::vector<std::int32_t> data;
  std::vector<int> ports;  // restore: ports to multicast on
};

class PacketPool {
 public:
  std::uint32_t make() {
    if (free_.empty()) {
      packets_.emplace_back();
      return static_cast<std::uint32_t>(packets_.size() - 1);
    }
    const std::uint32_t p = free_.back();
    free_.pop_back();
    Packet& pk = packets_[p];
    pk.data.clear();
    pk.ports.clear();
    pk.mark_switch = pk.mark_port = pk.in_link = pk.tree = -1;
    pk.counter = pk.hosts = pk.step = pk.attempt = 0;
    return p;
  }
  std::uint32_t copy(std::uint32_t from) {
    const std::uint32_t p = make();
    packets_[p] = packets_[from];
    return p;
  }
  void release(std::uint32_t p) { free_.push_back(p); }
  Packet& operator[](std::uint32_t p) { return packets_[p]; }
  [[nodiscard]] std::size_t allocated() const { return packets_.size(); }

 private:
  std::vector<Packet> packets_;
  std::vector<std::uint32_t> free_;
};

}  // namespace topocoll::sim::packet
