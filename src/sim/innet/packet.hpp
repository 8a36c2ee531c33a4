#pragma once
// One network packet of the packet-level engine, the pool that recycles them (millions of
// packets per run) and the pool of their payloads: fixed-width int32 arrays, reference counted
// so that the copies of a broadcast share one array instead of copying a kilobyte each.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

namespace topocoll::sim::innet {

inline constexpr std::uint32_t kNone = 0xffffffffU;

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

// Payload arrays live in chunks that never move, so a pointer from at() stays valid while
// other payloads are made.
class PayloadPool {
 public:
  explicit PayloadPool(int width) : width_(static_cast<std::size_t>(width)) {}
  [[nodiscard]] std::size_t width() const { return width_; }
  std::uint32_t make() {  // contents unspecified, one reference
    std::uint32_t h;
    if (free_.empty()) {
      h = static_cast<std::uint32_t>(refs_.size());
      if (h % kChunk == 0) chunks_.push_back(std::make_unique<std::int32_t[]>(kChunk * width_));
      refs_.push_back(0);
    } else {
      h = free_.back();
      free_.pop_back();
    }
    refs_[h] = 1;
    return h;
  }
  std::uint32_t make_copy(const std::int32_t* from) {
    const std::uint32_t h = make();
    std::copy_n(from, width_, at(h));
    return h;
  }
  std::int32_t* at(std::uint32_t h) { return chunks_[h / kChunk].get() + (h % kChunk) * width_; }
  void ref(std::uint32_t h) {
    if (h != kNone) ++refs_[h];
  }
  void unref(std::uint32_t h) {
    if (h != kNone && --refs_[h] == 0) free_.push_back(h);
  }
  // A handle whose array only the caller references (copied when shared).
  std::uint32_t unique(std::uint32_t h) {
    if (refs_[h] == 1) return h;
    const std::uint32_t c = make_copy(at(h));
    --refs_[h];
    return c;
  }
  [[nodiscard]] std::size_t allocated() const { return refs_.size(); }

 private:
  static constexpr std::size_t kChunk = 4096;
  std::size_t width_;
  std::vector<std::unique_ptr<std::int32_t[]>> chunks_;
  std::vector<std::uint32_t> refs_;
  std::vector<std::uint32_t> free_;
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
  int in_link = -1;   // link it arrived on at its current switch (holds that link's credit)
  int out_link = -1;  // output-queue flow control: the port reserved for it at the next switch
  std::uint32_t bytes = 0;
  std::uint32_t data = kNone;  // payload handle (PayloadPool)
  std::uint32_t length = 0;    // elements of the payload in use (ring packets may carry fewer)
  std::uint32_t next = kNone;  // next packet in the same port queue
  std::uint64_t id = 0;
  double queued_s = 0;     // when it joined its current output queue
  std::vector<int> ports;  // restore: ports to multicast on
};

class PacketPool {
 public:
  explicit PacketPool(int width) : payloads_(width) {}
  std::uint32_t make() {
    if (free_.empty()) {
      packets_.emplace_back();
      return static_cast<std::uint32_t>(packets_.size() - 1);
    }
    const std::uint32_t p = free_.back();
    free_.pop_back();
    Packet& pk = packets_[p];
    pk.ports.clear();
    pk.mark_switch = pk.mark_port = pk.in_link = pk.out_link = pk.tree = -1;
    pk.counter = pk.hosts = pk.step = pk.attempt = 0;
    pk.data = pk.next = kNone;
    pk.length = 0;
    return p;
  }
  // A copy that shares the payload.
  std::uint32_t copy(std::uint32_t from) {
    const std::uint32_t p = make();
    packets_[p] = packets_[from];
    packets_[p].next = kNone;
    packets_[p].out_link = -1;
    payloads_.ref(packets_[p].data);
    return p;
  }
  void release(std::uint32_t p) {
    payloads_.unref(packets_[p].data);
    packets_[p].data = kNone;
    free_.push_back(p);
  }
  Packet& operator[](std::uint32_t p) { return packets_[p]; }
  // Gives packet `p` a fresh payload of the full width and returns its array.
  std::int32_t* fresh_payload(std::uint32_t p) {
    payloads_.unref(packets_[p].data);
    packets_[p].data = payloads_.make();
    packets_[p].length = static_cast<std::uint32_t>(payloads_.width());
    return payloads_.at(packets_[p].data);
  }
  const std::int32_t* payload(std::uint32_t p) {
    return packets_[p].data == kNone ? nullptr : payloads_.at(packets_[p].data);
  }
  PayloadPool& payloads() { return payloads_; }
  [[nodiscard]] std::size_t allocated() const { return packets_.size(); }

 private:
  PayloadPool payloads_;
  std::vector<Packet> packets_;
  std::vector<std::uint32_t> free_;
};

}  // namespace topocoll::sim::innet
