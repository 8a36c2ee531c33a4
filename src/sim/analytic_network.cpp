#include "sim/analytic_network.hpp"

#include <algorithm>

namespace topocoll::sim {
namespace {

constexpr std::size_t kMaxCountedSteps = 64;

}  // namespace

AnalyticNetwork::AnalyticNetwork(const topo::Topology& topology, StepCounter counter)
    : counter_(std::move(counter)),
      capacity_(topology.links().size()),
      bytes_(topology.links().size(), 0),
      busy_(topology.links().size(), 0) {
  for (std::size_t l = 0; l < capacity_.size(); ++l)
    capacity_[l] = topology.links()[l].bandwidth_bytes_per_s;
}

const std::vector<std::uint32_t>& AnalyticNetwork::counts(int step) {
  if (auto it = step_counts_.find(step); it != step_counts_.end()) return it->second;
  if (step_counts_.size() >= kMaxCountedSteps) {  // the oldest step is most likely finished
    spare_.push_back(std::move(step_counts_.begin()->second));
    step_counts_.erase(step_counts_.begin());
  }
  std::vector<std::uint32_t> c;
  if (!spare_.empty()) {
    c = std::move(spare_.back());
    spare_.pop_back();
  }
  c.assign(capacity_.size(), 0);
  counter_(step, c);
  return step_counts_.emplace(step, std::move(c)).first->second;
}

void AnalyticNetwork::start(double now, const PathView& path, double bytes, int step,
                            std::uint32_t tag) {
  double time = now + path.latency_s;
  if (bytes > 0 && path.hops > 0) {
    const auto& c = counts(step);
    std::uint32_t sharing = 1;
    for (int h = 0; h < path.hops; ++h) {
      const auto l = static_cast<std::size_t>(path.links[h]);
      sharing = std::max(sharing, c[l]);
      bytes_[l] += bytes;
      busy_[l] += bytes / capacity_[l];
    }
    time += bytes * sharing / path.min_bandwidth;
  }
  events_.push({time, tag});
}

double AnalyticNetwork::next_time() const { return events_.empty() ? kNever : events_.top().time; }

void AnalyticNetwork::advance(double now, std::vector<std::uint32_t>& completed) {
  const double end = instant_end(now);
  while (!events_.empty() && events_.top().time <= end) completed.push_back(events_.pop().tag);
}

void AnalyticNetwork::link_usage(double /*end*/, std::vector<LinkUsage>& out) const {
  out.clear();
  for (std::size_t l = 0; l < capacity_.size(); ++l)
    out.push_back({static_cast<int>(l), bytes_[l], busy_[l]});
}

}  // namespace topocoll::sim
