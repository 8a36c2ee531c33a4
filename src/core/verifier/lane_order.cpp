#include "core/verifier/lane_order.hpp"

#include <algorithm>

#include "core/verifier/finding.hpp"

namespace topocoll::detail {
namespace {

// Channels sort after every block: blocks are 32-bit, channel keys start at 2^48.
constexpr std::uint64_t kChannelBase = std::uint64_t{1} << 48;

std::uint64_t channel_key(const Operation& op) {
  return kChannelBase +
         ((static_cast<std::uint64_t>(op.peer) << 21) + (static_cast<std::uint64_t>(op.port) << 1) +
          (op.kind == OpKind::send ? 1 : 0));
}

std::string describe(int lane, int step) {
  return "lane " + std::to_string(lane) + " step " + std::to_string(step);
}

}  // namespace

void LaneRecord::reset(int lanes) {
  steps_.assign(static_cast<std::size_t>(lanes), {});
  nodes_.clear();
  accesses_.clear();
}

void LaneRecord::add_step(int lane, int step, const Step& s) {
  const auto node = static_cast<std::uint32_t>(nodes_.size());
  nodes_.push_back({lane, step, s.after});
  steps_[static_cast<std::size_t>(lane)].push_back(node);
  auto add = [&](const BlockSet& set, bool write) {
    for (const auto& r : set.ranges()) accesses_.push_back({r.begin, r.end, node, write});
  };
  for (const Operation& op : s.ops) {
    if (op.kind == OpKind::send) {
      add(op.blocks, false);
    } else {
      add(op.blocks, true);
      if (op.kind == OpKind::copy) add(op.source, false);
    }
    if (op.kind != OpKind::copy) {
      const std::uint64_t key = channel_key(op);
      accesses_.push_back({key, key + 1, node, true});
    }
  }
}

// Vector clocks over the lanes' steps: a step knows every step of its own lane before it and,
// through its dependencies, whatever the steps it waits for knew.
std::optional<Finding> LaneRecord::compute_clocks(int rank, std::vector<int>& clock) const {
  const std::size_t lanes = steps_.size();
  clock.assign(nodes_.size() * lanes, 0);
  std::vector<std::size_t> done(lanes, 0);  // steps of each lane with a clock
  std::size_t remaining = nodes_.size();
  while (remaining > 0) {
    bool progress = false;
    for (std::size_t l = 0; l < lanes; ++l) {
      for (; done[l] < steps_[l].size(); ++done[l]) {
        const std::uint32_t n = steps_[l][done[l]];
        const Node& node = nodes_[n];
        const bool ready = std::all_of(node.after.begin(), node.after.end(), [&](Dependency d) {
          return static_cast<std::size_t>(d.step) < done[static_cast<std::size_t>(d.lane)];
        });
        if (!ready) break;
        int* own = &clock[n * lanes];
        if (done[l] > 0) std::copy_n(&clock[steps_[l][done[l] - 1] * lanes], lanes, own);
        own[l] = static_cast<int>(done[l]);
        for (Dependency d : node.after) {
          const std::uint32_t m = steps_[static_cast<std::size_t>(d.lane)][d.step];
          for (std::size_t k = 0; k < lanes; ++k) own[k] = std::max(own[k], clock[m * lanes + k]);
          own[d.lane] = std::max(own[d.lane], d.step + 1);
        }
        --remaining;
        progress = true;
      }
    }
    if (progress) continue;
    // Every lane's next step waits for a step that waits in turn: a cycle.
    for (std::size_t l = 0; l < lanes; ++l) {
      if (done[l] == steps_[l].size()) continue;
      const Node& node = nodes_[steps_[l][done[l]]];
      return Finding{Violation::unmatched,
                     rank,
                     node.step,
                     -1,
                     "dependencies that can be met",
                     "a cycle",
                     describe(node.lane, node.step) +
                         " waits for lane steps that wait for it in turn (the lanes' "
                         "dependencies form a cycle: deadlock)"};
    }
  }
  return std::nullopt;
}

// Whether step `a` completes before step `b` (the node at b_index) starts.
bool LaneRecord::ordered(const std::vector<int>& clock, const Node& a, const Node& b,
                         std::uint32_t b_index) const {
  if (a.lane == b.lane) return a.step < b.step;
  return clock[b_index * steps_.size() + static_cast<std::size_t>(a.lane)] > a.step;
}

std::optional<Finding> LaneRecord::check(int rank) const {
  std::vector<int> clock;
  if (auto f = compute_clocks(rank, clock)) return f;
  std::vector<Access> sorted = accesses_;
  std::sort(sorted.begin(), sorted.end(),
            [](const Access& x, const Access& y) { return x.begin < y.begin; });
  std::vector<Access> open;  // accesses that may still overlap the next one
  for (const Access& x : sorted) {
    std::erase_if(open, [&](const Access& y) { return y.end <= x.begin; });
    const Node& nx = nodes_[x.node];
    for (const Access& y : open) {
      const Node& ny = nodes_[y.node];
      if (nx.lane == ny.lane || !(x.write || y.write)) continue;
      if (ordered(clock, nx, ny, y.node) || ordered(clock, ny, nx, x.node)) continue;
      const bool channel = x.begin >= kChannelBase;
      const std::uint64_t key = x.begin - kChannelBase;
      const std::string what = channel
                                   ? "both " + std::string(key & 1 ? "send to" : "receive from") +
                                         " rank " + std::to_string(key >> 21) + " on port " +
                                         std::to_string((key >> 1) & ((1u << 20) - 1))
                                   : (x.write && y.write ? "both write" : "read and write") +
                                         std::string(" block ") + std::to_string(x.begin);
      return Finding{Violation::lane_conflict,
                     rank,
                     nx.step,
                     channel ? -1 : static_cast<long long>(x.begin),
                     "a dependency ordering them",
                     "none",
                     describe(ny.lane, ny.step) + " and " + describe(nx.lane, nx.step) + " " +
                         what + " with no dependency ordering them"};
    }
    open.push_back(x);
  }
  return std::nullopt;
}

}  // namespace topocoll::detail
