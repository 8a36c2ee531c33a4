#pragma once
// The analytic model (docs/design.md, "4.3 Network models"): alpha-beta with the congestion of the
// actual routes. A transfer sent in step k costs its path latency plus bytes x beta x c, where beta
// is the inverse bandwidth of the slowest link of its path and c is the largest number of step-k
// transfers (over all ranks, zero-byte ones excluded) that share a link of its path. Steps
// are aligned by index: step k of every rank counts as concurrent with step k of every other
// rank, whatever the time at which each rank reaches it. The rank driver adds alpha per step
// and the dependencies (a step starts when the previous one completed), so the time is still
// "a rank's steps are sequential", with waits on late senders.
#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "sim/event_heap.hpp"
#include "sim/network.hpp"

namespace topocoll::sim {

class AnalyticNetwork final : public Network {
 public:
  // Fills `counts` (one entry per link, arriving zeroed) with the number of transfers of
  // step `step` crossing each link.
  using StepCounter = std::function<void(int step, std::vector<std::uint32_t>& counts)>;

  AnalyticNetwork(const topo::Topology& topology, StepCounter counter);

  void start(double now, const PathView& path, double bytes, int step, std::uint32_t tag) override;
  [[nodiscard]] double next_time() const override;
  void advance(double now, std::vector<std::uint32_t>& completed) override;
  void link_usage(double end, std::vector<LinkUsage>& out) const override;

 private:
  const std::vector<std::uint32_t>& counts(int step);

  struct Event {
    double time = 0;
    std::uint32_t tag = 0;
  };
  StepCounter counter_;
  std::vector<double> capacity_, bytes_, busy_;
  EventHeap<Event> events_;
  // Link counts of the steps in progress; bounded, recounted if evicted and needed again.
  std::map<int, std::vector<std::uint32_t>> step_counts_;
  std::vector<std::vector<std::uint32_t>> spare_;
};

}  // namespace topocoll::sim
