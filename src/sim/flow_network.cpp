#include "sim/flow_network.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>

namespace topocoll::sim {
FlowNetwork::FlowNetwork(const topo::Topology& topology)
    : links_(topology.links().size()),
      link_epoch_(topology.links().size(), 0),
      cap_left_(topology.links().size(), 0),
      unfrozen_(topology.links().size(), 0),
      touch_mark_(topology.links().size(), 0) {
  for (std::size_t l = 0; l < links_.size(); ++l)
    links_[l].capacity = topology.links()[l].bandwidth_bytes_per_s;
}

int FlowNetwork::new_flow() {
  if (!free_flows_.empty()) {
    const int f = free_flows_.back();
    free_flows_.pop_back();
    return f;
  }
  flows_.emplace_back();
  flow_epoch_.push_back(0);
  new_rate_.push_back(0);
  return static_cast<int>(flows_.size()) - 1;
}

void FlowNetwork::push(double time, int flow, std::uint32_t version, Kind kind) {
  Event e;
  e.flow = flow;
  e.version = version & 0x7fffffffu;
  e.activates = kind == Kind::activate ? 1 : 0;
  events_.push(time, e);
}

void FlowNetwork::start(double now, const PathView& path, double bytes, int /*step*/,
                        std::uint32_t tag) {
  const int f = new_flow();
  Flow& flow = flows_[static_cast<std::size_t>(f)];
  flow.hops.clear();
  for (int h = 0; h < path.hops; ++h) flow.hops.push_back({path.links[h], 0});
  flow.remaining = bytes;
  flow.rate = 0;
  flow.last = now;
  flow.tag = tag;
  flow.in_links = false;
  flow.live = true;
  flow.version = (flow.version + 1) & 0x7fffffffu;
  // The path latency comes first (DESIGN.md "Simulator"); a zero-byte message pays only it.
  const Kind kind = (bytes > 0 && path.hops > 0) ? Kind::activate : Kind::complete;
  push(now + path.latency_s, f, flow.version, kind);
}

double FlowNetwork::next_time() const { return events_.empty() ? kNever : events_.next_time(); }

void FlowNetwork::mark_dirty(int link) { dirty_.push_back(link); }

void FlowNetwork::activate(int f, double now) {
  Flow& flow = flows_[static_cast<std::size_t>(f)];
  flow.in_links = true;
  flow.last = now;
  for (int h = 0; h < static_cast<int>(flow.hops.size()); ++h) {
    Hop& hop = flow.hops[static_cast<std::size_t>(h)];
    LinkState& link = links_[static_cast<std::size_t>(hop.link)];
    if (link.flows.empty()) link.busy_since = now;
    hop.slot = static_cast<int>(link.flows.size());
    link.flows.push_back({f, h});
    link.bytes += flow.remaining;
    mark_dirty(hop.link);
  }
}

void FlowNetwork::finish(int f, double now, std::vector<std::uint32_t>& completed) {
  Flow& flow = flows_[static_cast<std::size_t>(f)];
  if (flow.in_links) {
    for (const Hop& hop : flow.hops) {
      LinkState& link = links_[static_cast<std::size_t>(hop.link)];
      const Member moved = link.flows.back();
      link.flows[static_cast<std::size_t>(hop.slot)] = moved;
      flows_[static_cast<std::size_t>(moved.flow)].hops[static_cast<std::size_t>(moved.hop)].slot =
          hop.slot;
      link.flows.pop_back();
      if (link.flows.empty()) link.busy += now - link.busy_since;
      mark_dirty(hop.link);
    }
  }
  flow.live = false;
  flow.in_links = false;
  completed.push_back(flow.tag);
  free_flows_.push_back(f);
}

void FlowNetwork::advance(double now, std::vector<std::uint32_t>& completed) {
  const double end = instant_end(now);
  batch_.clear();
  events_.pop_until(end, batch_);
  for (const Event& e : batch_) {
    Flow& flow = flows_[static_cast<std::size_t>(e.flow)];
    if (!flow.live || flow.version != e.version) continue;  // superseded prediction
    if (e.activates)
      activate(e.flow, now);
    else
      finish(e.flow, now, completed);
  }
  recompute(now);
}

void FlowNetwork::recompute(double now) {
  for (int seed : dirty_) {
    if (link_epoch_[static_cast<std::size_t>(seed)] == epoch_ + 1) continue;  // done this round
    collect_component(seed);
    if (!comp_flows_.empty()) fill_component(now);
  }
  dirty_.clear();
  ++epoch_;
}

// Every flow reachable from `seed_link` through shared links: the flows whose max-min
// rates can change when the flows of that link change.
void FlowNetwork::collect_component(int seed_link) {
  const std::uint32_t mark = epoch_ + 1;
  comp_links_.clear();
  comp_flows_.clear();
  link_epoch_[static_cast<std::size_t>(seed_link)] = mark;
  comp_links_.push_back(seed_link);
  for (std::size_t i = 0; i < comp_links_.size(); ++i) {
    for (const Member& m : links_[static_cast<std::size_t>(comp_links_[i])].flows) {
      if (flow_epoch_[static_cast<std::size_t>(m.flow)] == mark) continue;
      flow_epoch_[static_cast<std::size_t>(m.flow)] = mark;
      comp_flows_.push_back(m.flow);
      for (const Hop& hop : flows_[static_cast<std::size_t>(m.flow)].hops) {
        if (link_epoch_[static_cast<std::size_t>(hop.link)] == mark) continue;
        link_epoch_[static_cast<std::size_t>(hop.link)] = mark;
        comp_links_.push_back(hop.link);
      }
    }
  }
}

// Progressive filling: raise all rates together; the link whose fair share is smallest
// saturates first and freezes its flows at that share; repeat on what is left.
void FlowNetwork::fill_component(double now) {
  if (comp_flows_.size() == 1) {
    const Flow& flow = flows_[static_cast<std::size_t>(comp_flows_[0])];
    double rate = kNever;
    for (const Hop& hop : flow.hops)
      rate = std::min(rate, links_[static_cast<std::size_t>(hop.link)].capacity);
    new_rate_[static_cast<std::size_t>(comp_flows_[0])] = rate;
  } else {
    fill_heap_.clear();
    for (int l : comp_links_) {
      const LinkState& link = links_[static_cast<std::size_t>(l)];
      cap_left_[static_cast<std::size_t>(l)] = link.capacity;
      unfrozen_[static_cast<std::size_t>(l)] = static_cast<int>(link.flows.size());
      if (!link.flows.empty())
        fill_heap_.emplace_back(link.capacity / static_cast<double>(link.flows.size()), l);
    }
    for (int f : comp_flows_) new_rate_[static_cast<std::size_t>(f)] = -1;
    const auto cmp = std::greater<>{};
    std::make_heap(fill_heap_.begin(), fill_heap_.end(), cmp);
    while (!fill_heap_.empty()) {
      std::pop_heap(fill_heap_.begin(), fill_heap_.end(), cmp);
      const auto [share, l] = fill_heap_.back();
      fill_heap_.pop_back();
      const auto ul = static_cast<std::size_t>(l);
      if (unfrozen_[ul] == 0 || share != cap_left_[ul] / unfrozen_[ul]) continue;  // stale
      const double rate = std::max(share, 0.0);
      unfrozen_[ul] = 0;
      // Freeze the link's flows; each other link they cross gets one new key afterwards.
      ++touch_round_;
      touched_.clear();
      for (const Member& m : links_[ul].flows) {
        double& r = new_rate_[static_cast<std::size_t>(m.flow)];
        if (r >= 0) continue;
        r = rate;
        for (const Hop& hop : flows_[static_cast<std::size_t>(m.flow)].hops) {
          const auto u = static_cast<std::size_t>(hop.link);
          if (u == ul) continue;
          cap_left_[u] -= rate;
          --unfrozen_[u];
          if (touch_mark_[u] != touch_round_) {
            touch_mark_[u] = touch_round_;
            touched_.push_back(hop.link);
          }
        }
      }
      for (int t : touched_) {
        const auto u = static_cast<std::size_t>(t);
        if (unfrozen_[u] <= 0) continue;
        fill_heap_.emplace_back(cap_left_[u] / unfrozen_[u], t);
        std::push_heap(fill_heap_.begin(), fill_heap_.end(), cmp);
      }
    }
  }
  for (int f : comp_flows_) {
    Flow& flow = flows_[static_cast<std::size_t>(f)];
    const double rate = new_rate_[static_cast<std::size_t>(f)];
    if (rate == flow.rate) continue;  // its completion event stays right
    flow.remaining = std::max(0.0, flow.remaining - flow.rate * (now - flow.last));
    flow.last = now;
    flow.rate = rate;
    flow.version = (flow.version + 1) & 0x7fffffffu;
    if (rate > 0) push(now + flow.remaining / rate, f, flow.version, Kind::complete);
  }
}

void FlowNetwork::link_usage(double end, std::vector<LinkUsage>& out) const {
  out.clear();
  for (std::size_t l = 0; l < links_.size(); ++l) {
    const LinkState& link = links_[l];
    double busy = link.busy;
    if (!link.flows.empty()) busy += end - link.busy_since;
    out.push_back({static_cast<int>(l), link.bytes, busy});
  }
}

double FlowNetwork::rate_of(std::uint32_t tag) const {
  for (const Flow& f : flows_)
    if (f.live && f.tag == tag) return f.rate;
  throw std::invalid_argument("no active flow with tag " + std::to_string(tag));
}

}  // namespace topocoll::sim
