#pragma once
// The flow model (issue 7): every transfer is a flow that first waits out its path latency,
// then shares the bandwidth of its links max-min fairly with the other flows (progressive
// filling). Rates are recomputed only for the connected component of flows whose links
// changed at an instant, and all events of one instant are processed together. The host's
// outgoing and incoming links are its NIC ports (on a torus each neighbour link is one), so
// injection and ejection are limited per port. Memory: the active flows and the links.
#include <cstdint>
#include <vector>

#include "sim/network.hpp"
#include "sim/time_buckets.hpp"
#include "topology/topology.hpp"

namespace topocoll::sim {

class FlowNetwork final : public Network {
 public:
  explicit FlowNetwork(const topo::Topology& topology);

  void start(double now, const PathView& path, double bytes, int step, std::uint32_t tag) override;
  [[nodiscard]] double next_time() const override;
  void advance(double now, std::vector<std::uint32_t>& completed) override;
  void link_usage(double end, std::vector<LinkUsage>& out) const override;

  // Current rate of every active flow, by tag (tests of the sharing).
  [[nodiscard]] double rate_of(std::uint32_t tag) const;

 private:
  struct Hop {
    int link = 0;
    int slot = 0;  // position of this flow in the link's list
  };
  struct Flow {
    std::vector<Hop> hops;  // capacity kept when the slot is reused
    double remaining = 0;   // bytes, as of `last`
    double rate = 0;        // bytes per second
    double last = 0;
    std::uint32_t tag = 0;
    std::uint32_t version = 0;  // invalidates stale completion events (31 bits used)
    bool in_links = false;
    bool live = false;
  };
  struct Member {
    int flow = 0;
    int hop = 0;
  };
  struct LinkState {
    std::vector<Member> flows;
    double capacity = 0;
    double bytes = 0;
    double busy = 0;
    double busy_since = 0;
  };
  enum class Kind : std::uint8_t { activate, complete };
  struct Event {  // 8 bytes; the time is the bucket's
    int flow = 0;
    std::uint32_t version : 31 = 0;
    std::uint32_t activates : 1 = 0;
  };

  int new_flow();
  void push(double time, int flow, std::uint32_t version, Kind kind);
  void activate(int f, double now);
  void finish(int f, double now, std::vector<std::uint32_t>& completed);
  void mark_dirty(int link);
  void recompute(double now);
  void collect_component(int seed_link);
  void fill_component(double now);

  std::vector<LinkState> links_;
  std::vector<Flow> flows_;
  std::vector<int> free_flows_;
  TimeBuckets<Event> events_;
  std::vector<Event> batch_;

  // Scratch of the incremental max-min recomputation.
  std::vector<int> dirty_;
  std::vector<std::uint32_t> link_epoch_, flow_epoch_;
  std::uint32_t epoch_ = 0;
  std::vector<int> comp_links_, comp_flows_;
  std::vector<double> cap_left_;
  std::vector<int> unfrozen_;
  std::vector<double> new_rate_;
  std::vector<std::pair<double, int>> fill_heap_;
  std::vector<std::uint64_t> touch_mark_;
  std::uint64_t touch_round_ = 0;
  std::vector<int> touched_;
};

}  // namespace topocoll::sim
