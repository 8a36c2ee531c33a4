#include "sim/flow_network.hpp"

#include <algorithm>
#include <functional>
#include <sstream>
#include <stdexcept>

#include "core/registry.hpp"
#include "topology/dragonfly.hpp"

namespace topocoll::sim {
FlowNetwork::FlowNetwork(const topo::Topology& topology, const std::vector<double>& link_load)
    : links_(topology.links().size()),
      is_dirty_(topology.links().size(), 0),
      link_epoch_(topology.links().size(), 0),
      pruned_epoch_(topology.links().size(), 0),
      pruned_delta_(topology.links().size(), 0),
      cap_left_(topology.links().size(), 0),
      unfrozen_(topology.links().size(), 0) {
  if (!link_load.empty() && link_load.size() != links_.size())
    throw std::invalid_argument("link_load must have one entry per link");
  for (std::size_t l = 0; l < links_.size(); ++l) {
    const double taken = link_load.empty() ? 0.0 : link_load[l];
    links_[l].capacity = topology.links()[l].bandwidth_bytes_per_s * (1 - taken);
  }
}

std::vector<double> global_link_load(const topo::Topology& topology, double load) {
  if (!(load >= 0 && load <= kMaxGlobalLoad)) {
    std::ostringstream text;
    text << "--global-load " << load << " is out of range; accepted: 0 to " << kMaxGlobalLoad
         << " (the fraction of each global link's capacity other jobs take)";
    throw UnsupportedRequest(text.str());
  }
  if (load == 0) return {};
  const auto* dragonfly = dynamic_cast<const topo::DragonflyTopology*>(&topology);
  if (dragonfly == nullptr) {
    throw UnsupportedRequest("--global-load does not apply to " + topology.spec() +
                             " (it has no global links); accepted: a dragonfly or dragonfly+ "
                             "topology");
  }
  std::vector<double> out(topology.links().size(), 0.0);
  const int groups = dragonfly->shape().groups;
  for (int i = 0; i < groups; ++i)
    for (int j = 0; j < groups; ++j)
      for (int c = 0; i != j && c < dragonfly->cables_per_pair(); ++c)
        out[static_cast<std::size_t>(dragonfly->global(i, j, c))] = load;
  return out;
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

std::uint64_t FlowNetwork::group_key(const PathView& path, bool moves) {
  // Link ids are ints, so the address's lowest bit is free for `moves`.
  return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(path.links)) |
         static_cast<std::uint64_t>(moves);
}

// The group started at `now` on this very path that still waits out its latency, or -1. The
// engine starts a step's messages one after the other, each on all its paths, so a Dragonfly's
// or fat tree's dozens of minimal paths interleave: the groups of the instant are looked up by
// path. A group missed here would only be a smaller group, never a different result.
int FlowNetwork::forming_group(double now, const PathView& path, bool moves) {
  if (now != forming_now_) {
    for (const std::uint64_t key : forming_keys_) forming_.erase(key);
    forming_keys_.clear();
    forming_now_ = now;
  }
  const int* found = forming_.find(group_key(path, moves));
  if (found == nullptr) return -1;
  const int g = *found;
  const Flow& flow = flows_[static_cast<std::size_t>(g)];
  if (flow.path != path.links || flow.moves != moves || !flow.live || flow.in_links ||
      flow.start != now || flow.hops != path.hops)
    return -1;
  for (int h = 0; h < path.hops; ++h)  // the route cache may have reused the address
    if (hop_link_[static_cast<std::size_t>(flow.first + h)] != path.links[h]) return -1;
  return g;
}

void FlowNetwork::start(double now, const PathView& path, double bytes, int /*step*/,
                        std::uint32_t tag) {
  // The path latency comes first (docs/design.md, "4.2 Latency convention"); a zero-byte message
  // pays only it.
  const bool moves = bytes > 0 && path.hops > 0;
  const int g = forming_group(now, path, moves);
  if (g >= 0) {
    flows_[static_cast<std::size_t>(g)].parts.push_back({bytes, tag});
    return;
  }
  const int f = new_flow();
  Flow& flow = flows_[static_cast<std::size_t>(f)];
  if (flow.hop_capacity < path.hops) {
    // A new stretch of the pools (the group's number, its links, -1); the old one is left
    // behind. Doubling keeps what a slot leaves behind below twice its longest path, however
    // path lengths grow.
    flow.first = static_cast<int>(hop_link_.size()) + 1;
    flow.hop_capacity = std::max(path.hops, 2 * flow.hop_capacity);
    hop_link_.resize(hop_link_.size() + static_cast<std::size_t>(flow.hop_capacity) + 2);
    hop_slot_.resize(hop_link_.size());
    hop_link_[static_cast<std::size_t>(flow.first - 1)] = f;
  }
  flow.hops = path.hops;
  std::copy(path.links, path.links + path.hops, hop_link_.begin() + flow.first);
  hop_link_[static_cast<std::size_t>(flow.first + path.hops)] = -1;
  flow.parts.clear();
  flow.parts.push_back({bytes, tag});
  flow.next = 0;
  flow.path = path.links;
  flow.moves = moves;
  flow.start = now;
  flow.sent = 0;
  flow.rate = 0;
  flow.last = now;
  flow.in_links = false;
  flow.live = true;
  ++groups_started_;
  const std::uint64_t key = group_key(path, moves);
  forming_[key] = f;
  forming_keys_.push_back(key);
  events_.set(f, now + path.latency_s);
}

double FlowNetwork::next_time() const { return events_.empty() ? kNever : events_.next_time(); }

void FlowNetwork::mark_dirty(int link) {
  char& flag = is_dirty_[static_cast<std::size_t>(link)];
  if (flag) return;
  flag = 1;
  dirty_.push_back(link);
}

void FlowNetwork::activate(int f, double now) {
  Flow& flow = flows_[static_cast<std::size_t>(f)];
  // Smallest first: every part moves at the group's rate, so they end in this order.
  std::stable_sort(flow.parts.begin(), flow.parts.end(),
                   [](const Part& a, const Part& b) { return a.bytes < b.bytes; });
  double total = 0;
  for (const Part& p : flow.parts) total += p.bytes;
  const int weight = flow.weight();
  flow.in_links = true;
  flow.last = now;
  added_.push_back(f);
  for (int h = flow.first; h < flow.first + flow.hops; ++h) {
    const int l = hop_link_[static_cast<std::size_t>(h)];
    LinkState& link = links_[static_cast<std::size_t>(l)];
    if (link.flows.empty()) link.busy_since = now;
    hop_slot_[static_cast<std::size_t>(h)] = static_cast<int>(link.flows.size());
    link.flows.push_back({flow.first, weight, 0.0});
    link.weight += weight;
    link.bytes += total;
    mark_dirty(l);
  }
}

void FlowNetwork::push_completion(int f, double now) {
  const Flow& flow = flows_[static_cast<std::size_t>(f)];
  if (flow.rate > 0) {
    const double left = std::max(0.0, flow.parts[flow.next].bytes - flow.sent);
    events_.set(f, now + left / flow.rate);
  } else {
    events_.remove(f);
  }
}

// The completion event of the group's next part fired at `now`: that part and every other
// part predicted to end within this instant complete.
void FlowNetwork::complete_parts(int f, double now, double end,
                                 std::vector<std::uint32_t>& completed) {
  Flow& flow = flows_[static_cast<std::size_t>(f)];
  if (!flow.in_links) {  // zero-byte messages or a path without links
    for (const Part& p : flow.parts) completed.push_back(p.tag);
    flow.live = false;
    free_flows_.push_back(f);
    return;
  }
  removed_rate_ = std::min(removed_rate_, flow.rate);
  const double sent_before = flow.sent, last_before = flow.last;
  const std::size_t first = flow.next;
  std::size_t done = first + 1;
  while (done < flow.parts.size() &&
         last_before + (flow.parts[done].bytes - sent_before) / flow.rate <= end)
    ++done;
  for (std::size_t i = first; i < done; ++i) completed.push_back(flow.parts[i].tag);
  if (done == flow.parts.size()) {
    leave_links(f, now);
    flow.live = false;
    flow.in_links = false;
    free_flows_.push_back(f);
    return;
  }
  const int ended = static_cast<int>(done - first);
  for (int h = flow.first; h < flow.first + flow.hops; ++h) {
    const int l = hop_link_[static_cast<std::size_t>(h)];
    LinkState& link = links_[static_cast<std::size_t>(l)];
    link.weight -= ended;
    link.rate_sum -= flow.rate * ended;
    link.flows[static_cast<std::size_t>(hop_slot_[static_cast<std::size_t>(h)])].weight -= ended;
    mark_dirty(l);
  }
  flow.next = static_cast<std::uint32_t>(done);
  flow.sent = sent_before + flow.rate * (now - last_before);
  flow.last = now;
  push_completion(f, now);  // superseded if the recomputation changes the rate
}

// The hop of the group starting at `first` that holds `slot` of `link`'s member list: a
// member does not keep its hop, so that it fits 16 bytes (the scans are bound by reading
// members), and a path may cross one link twice under the symmetry reduction.
int FlowNetwork::hop_of(int first, int link, std::size_t slot) const {
  int h = first;
  while (hop_link_[static_cast<std::size_t>(h)] != link ||
         hop_slot_[static_cast<std::size_t>(h)] != static_cast<int>(slot))
    ++h;
  return h;
}

void FlowNetwork::leave_links(int f, double now) {
  Flow& flow = flows_[static_cast<std::size_t>(f)];
  const int weight = flow.weight();
  for (int h = flow.first; h < flow.first + flow.hops; ++h) {
    const int l = hop_link_[static_cast<std::size_t>(h)];
    const int slot = hop_slot_[static_cast<std::size_t>(h)];
    LinkState& link = links_[static_cast<std::size_t>(l)];
    const Member moved = link.flows.back();
    link.flows[static_cast<std::size_t>(slot)] = moved;
    hop_slot_[static_cast<std::size_t>(hop_of(moved.first, l, link.flows.size() - 1))] = slot;
    link.flows.pop_back();
    link.weight -= weight;
    link.rate_sum -= flow.rate * weight;
    if (link.flows.empty()) {
      link.busy += now - link.busy_since;
      link.rate_sum = 0;  // no rounding left behind
    }
    mark_dirty(l);
  }
}

void FlowNetwork::advance(double now, std::vector<std::uint32_t>& completed) {
  const double end = instant_end(now);
  batch_.clear();
  events_.pop_until(end, batch_);
  for (const int f : batch_) {
    const Flow& flow = flows_[static_cast<std::size_t>(f)];
    if (flow.moves && !flow.in_links)
      activate(f, now);
    else
      complete_parts(f, now, end, completed);
  }
  recompute(now);
}

// Flows whose rate is below this level cannot change at this instant (divergence_level), so
// the recomputation treats them as fixed load on their links and leaves them alone.
void FlowNetwork::recompute(double now) {
  if (!dirty_.empty()) {
    const double fixed_below = divergence_level() * (1 - 1e-9);
    // Each failed attempt adds the links it would overfill (now dirty), so this ends.
    while (!fill_components(fixed_below)) ++epoch_;  // a new epoch forgets its marks
    apply_rates(now);
  }
  for (int l : dirty_) is_dirty_[static_cast<std::size_t>(l)] = 0;
  dirty_.clear();
  added_.clear();
  removed_rate_ = kNever;
  ++epoch_;
}

// The new rates of every component that the instant's changes reach, in new_rate_ (not yet
// applied). A component spreads only over links that are saturated or changed: a link with room
// to spare does not tie its flows' rates together, so the max-min rates without the links left
// out are those with them as long as the new rates still leave every such link room (a
// lexicographically best allocation of a larger feasible set that lies in the smaller one is the
// best there too); false when they do not, the links they would overfill marked dirty.
bool FlowNetwork::fill_components(double fixed_below) {
  const std::uint32_t mark = epoch_ + 1;
  instant_flows_.clear();
  pruned_links_.clear();
  for (int seed : dirty_) {
    if (link_epoch_[static_cast<std::size_t>(seed)] == mark) continue;  // done
    collect_component(seed, fixed_below);
    if (comp_flows_.empty()) continue;
    fill_component();
    instant_flows_.insert(instant_flows_.end(), comp_flows_.begin(), comp_flows_.end());
  }
  return pruned_links_fit();
}

// Saturated, with a margin far above the rounding of the running rate_sum: a link just below
// its capacity counts as saturated, which only makes a component larger.
bool FlowNetwork::saturated(int link) const {
  const LinkState& state = links_[static_cast<std::size_t>(link)];
  return state.rate_sum >= state.capacity * (1 - 1e-6);
}

// Whether the new rates leave every pruned link clearly below its capacity (same margin); those
// they do not are marked dirty, to join the components of the next attempt.
bool FlowNetwork::pruned_links_fit() {
  const std::uint32_t mark = epoch_ + 1;
  for (int l : pruned_links_) pruned_delta_[static_cast<std::size_t>(l)] = 0;
  for (int f : instant_flows_) {
    const Flow& flow = flows_[static_cast<std::size_t>(f)];
    const double change = new_rate_[static_cast<std::size_t>(f)] - flow.rate;
    if (change == 0) continue;
    for (int h = flow.first; h < flow.first + flow.hops; ++h) {
      const auto u = static_cast<std::size_t>(hop_link_[static_cast<std::size_t>(h)]);
      if (pruned_epoch_[u] == mark) pruned_delta_[u] += change * flow.weight();
    }
  }
  bool fit = true;
  for (int l : pruned_links_) {
    const auto u = static_cast<std::size_t>(l);
    if (links_[u].rate_sum + pruned_delta_[u] > links_[u].capacity * (1 - 1e-7)) {
      mark_dirty(l);
      fit = false;
    }
  }
  return fit;
}

// A level below which no max-min rate changes at this instant: no more than the old rate of
// every transfer that ended, and no more than min over its links of capacity / transfers on
// the link for every group that started (a lower bound of its new rate). Progressive filling
// freezes every flow below that level on a link that neither kind of change touches with the
// same flows as before, so the old rates below it are the new ones: a link with a new group
// on it cannot have been saturated by flows slower than capacity / transfers, and an ended
// transfer was not on a link saturated below its own rate.
double FlowNetwork::divergence_level() const {
  double level = removed_rate_;
  for (int f : added_) {
    const Flow& flow = flows_[static_cast<std::size_t>(f)];
    if (!flow.live || !flow.in_links) continue;
    for (int h = flow.first; h < flow.first + flow.hops; ++h) {
      const LinkState& link =
          links_[static_cast<std::size_t>(hop_link_[static_cast<std::size_t>(h)])];
      level = std::min(level, link.capacity / link.weight);
    }
  }
  return level;
}

// The flows reachable from `seed_link` through shared links and flows not fixed (rate below
// `fixed_below`): the flows whose max-min rates can change. Fixed flows on the links reached
// count as load: each link's capacity left and its transfers to fill are set here.
void FlowNetwork::collect_component(int seed_link, double fixed_below) {
  const std::uint32_t mark = epoch_ + 1;
  comp_links_.clear();
  comp_flows_.clear();
  link_epoch_[static_cast<std::size_t>(seed_link)] = mark;
  comp_links_.push_back(seed_link);
  for (std::size_t i = 0; i < comp_links_.size(); ++i) {
    const auto ul = static_cast<std::size_t>(comp_links_[i]);
    double fixed_load = 0, load = 0;
    int fixed_weight = 0;
    for (const Member& m : links_[ul].flows) {
      load += m.rate * m.weight;
      if (m.rate > 0 && m.rate < fixed_below) {
        fixed_load += m.rate * m.weight;
        fixed_weight += m.weight;
        continue;
      }
      const int f = flow_of(m);
      if (flow_epoch_[static_cast<std::size_t>(f)] == mark) continue;
      flow_epoch_[static_cast<std::size_t>(f)] = mark;
      comp_flows_.push_back(f);
      for (const int* l = &hop_link_[static_cast<std::size_t>(m.first)]; *l >= 0; ++l) {
        const auto u = static_cast<std::size_t>(*l);
        if (link_epoch_[u] == mark) continue;
        if (!is_dirty_[u] && !saturated(*l)) {
          if (pruned_epoch_[u] != mark) {
            pruned_epoch_[u] = mark;
            pruned_links_.push_back(*l);
          }
          continue;
        }
        link_epoch_[u] = mark;
        comp_links_.push_back(*l);
      }
    }
    cap_left_[ul] = links_[ul].capacity - fixed_load;
    unfrozen_[ul] = links_[ul].weight - fixed_weight;
    links_[ul].rate_sum = load;  // exact again: the running sum's rounding does not pile up
  }
}

// Progressive filling, one level per round: raise all rates together to the smallest fair
// share of any link (capacity left / transfers not yet frozen); every link at that level
// (within 1e-12 relative) saturates and freezes its flows at it; repeat on what is left. The
// rounds are the distinct bottleneck levels, usually few even in large components, and a
// round is a linear pass over the links still open, with no heap.
void FlowNetwork::fill_levels() {
  const std::uint32_t mark = epoch_ + 1;
  open_.clear();
  for (int l : comp_links_)
    if (unfrozen_[static_cast<std::size_t>(l)] > 0) open_.push_back(l);
  for (int f : comp_flows_) new_rate_[static_cast<std::size_t>(f)] = -1;
  double level = kNever;
  for (int l : open_) {
    const auto u = static_cast<std::size_t>(l);
    level = std::min(level, cap_left_[u] / unfrozen_[u]);
  }
  while (!open_.empty()) {
    const double rate = std::max(level, 0.0);
    const double at_level = level * (1 + 1e-12);
    std::size_t kept = 0;
    for (std::size_t i = 0; i < open_.size(); ++i) {
      const int l = open_[i];
      const auto ul = static_cast<std::size_t>(l);
      if (unfrozen_[ul] > 0 && cap_left_[ul] / unfrozen_[ul] <= at_level) {
        for (const Member& m : links_[ul].flows) {
          const auto f = static_cast<std::size_t>(flow_of(m));
          if (flow_epoch_[f] != mark) continue;  // fixed
          double& r = new_rate_[f];
          if (r >= 0) continue;
          r = rate;
          const int weight = m.weight;
          const double used = weight == 1 ? rate : rate * weight;
          for (const int* l = &hop_link_[static_cast<std::size_t>(m.first)]; *l >= 0; ++l) {
            const auto u = static_cast<std::size_t>(*l);
            cap_left_[u] -= used;
            unfrozen_[u] -= weight;
          }
        }
      }
      if (unfrozen_[ul] > 0) open_[kept++] = l;
    }
    // Links behind the cursor may have lost all their flows to later links of this round;
    // the shares are final now, so this pass also finds the next level.
    std::size_t still = 0;
    level = kNever;
    for (std::size_t i = 0; i < kept; ++i) {
      const auto u = static_cast<std::size_t>(open_[i]);
      if (unfrozen_[u] <= 0) continue;
      level = std::min(level, cap_left_[u] / unfrozen_[u]);
      open_[still++] = open_[i];
    }
    open_.resize(still);
  }
}

void FlowNetwork::fill_component() {
  if (comp_flows_.size() == 1) {
    // Alone among the flows to fill: the tightest link's capacity left, shared by its parts
    // (its links in the component; a pruned one has room).
    const std::uint32_t mark = epoch_ + 1;
    const Flow& flow = flows_[static_cast<std::size_t>(comp_flows_[0])];
    double rate = kNever;
    for (int h = flow.first; h < flow.first + flow.hops; ++h) {
      const auto u = static_cast<std::size_t>(hop_link_[static_cast<std::size_t>(h)]);
      if (link_epoch_[u] == mark) rate = std::min(rate, cap_left_[u] / unfrozen_[u]);
    }
    new_rate_[static_cast<std::size_t>(comp_flows_[0])] = std::max(rate, 0.0);
  } else {
    fill_levels();
  }
}

void FlowNetwork::apply_rates(double now) {
  for (int f : instant_flows_) {
    Flow& flow = flows_[static_cast<std::size_t>(f)];
    const double rate = new_rate_[static_cast<std::size_t>(f)];
    if (rate == flow.rate) continue;  // its completion event stays right
    flow.sent += flow.rate * (now - flow.last);
    flow.last = now;
    const double change = (rate - flow.rate) * flow.weight();
    flow.rate = rate;
    for (int h = flow.first; h < flow.first + flow.hops; ++h) {
      LinkState& link = links_[static_cast<std::size_t>(hop_link_[static_cast<std::size_t>(h)])];
      link.flows[static_cast<std::size_t>(hop_slot_[static_cast<std::size_t>(h)])].rate = rate;
      link.rate_sum += change;
    }
    push_completion(f, now);
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
  for (const Flow& f : flows_) {
    if (!f.live) continue;
    for (std::size_t i = f.next; i < f.parts.size(); ++i)
      if (f.parts[i].tag == tag) return f.rate;
  }
  throw std::invalid_argument("no active flow with tag " + std::to_string(tag));
}

}  // namespace topocoll::sim
