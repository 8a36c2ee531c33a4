#pragma once
// The flow model (docs/design.md, "4.3 Network models"): every transfer is a flow that first waits
// out its path latency, then shares the bandwidth of its links max-min fairly with the other flows
// (progressive filling). Rates are recomputed only for the component of flows whose links changed
// at an instant, connected through links that are saturated (a link with room to spare does not
// tie its flows' rates together; the new rates are checked against it, and a link they would
// overfill joins the refill, which runs again), and all events of one instant are processed
// together. The host's outgoing and incoming links are its NIC ports (on a torus each
// neighbour link is one), so injection and ejection are limited per port. Memory: the active
// flows and the links.
//
// Transfers that start at one instant on one path (several sends to one peer in a step, or the
// ranges of a send under SimConfig::message_per_range) are kept as one group: they cross the same
// links from the same instant on, so max-min fairness gives each of them the same rate, and the
// group is filled once with its transfer count as weight. Each transfer still ends at its own
// instant, when its own bytes have been sent. Zero-byte transfers started together on one path end
// together too.
//
// Background load (docs/simulator.md, "Background load"): other jobs' traffic on a link is modelled
// as a constant share of its capacity that the simulated job cannot use (`link_load[l]` in [0, 1));
// the job's flows share what is left max-min fairly. global_link_load gives that share on the
// global cables of a Dragonfly or Dragonfly+, the links that jobs placed in different groups have
// in common.
#include <cstdint>
#include <vector>

#include "sim/deadline_heap.hpp"
#include "sim/flat_map.hpp"
#include "sim/network.hpp"
#include "topology/topology.hpp"

namespace topocoll::sim {

class FlowNetwork final : public Network {
 public:
  // link_load: per link the fraction of its capacity taken by other jobs (empty: none).
  explicit FlowNetwork(const topo::Topology& topology, const std::vector<double>& link_load = {});

  void start(double now, const PathView& path, double bytes, int step, std::uint32_t tag) override;
  [[nodiscard]] double next_time() const override;
  void advance(double now, std::vector<std::uint32_t>& completed) override;
  void link_usage(double end, std::vector<LinkUsage>& out) const override;

  // Current rate of every active transfer, by tag (tests of the sharing).
  [[nodiscard]] double rate_of(std::uint32_t tag) const;
  // Groups of transfers simulated so far (tests of the grouping).
  [[nodiscard]] std::uint64_t groups_started() const { return groups_started_; }

 private:
  struct Part {  // one transfer of a group
    double bytes = 0;
    std::uint32_t tag = 0;
  };
  struct Flow {     // a group of transfers sharing a path and a start; one rate for all
    int first = 0;  // its hops in hop_link_/hop_slot_: [first, first + hops)
    int hops = 0;
    int hop_capacity = 0;       // kept when the slot is reused
    std::vector<Part> parts;    // by bytes once active; parts [next, end) still move
    const int* path = nullptr;  // the route's links, to recognize a group while it forms
    double start = 0;
    double sent = 0;  // bytes each moving part has sent, as of `last`
    double rate = 0;  // bytes per second, per part
    double last = 0;
    std::uint32_t next = 0;
    bool in_links = false;
    bool live = false;
    bool moves = false;  // bytes to send over links (else: latency only)
    [[nodiscard]] int weight() const { return static_cast<int>(parts.size() - next); }
  };
  // A flow on a link, with copies of its weight and rate for the scans, in 16 bytes: the
  // scans of large components are bound by loading members.
  struct Member {
    int first = 0;  // the flow's first hop in hop_link_: its links follow, its number precedes
    int weight = 0;
    double rate = 0;
  };
  struct LinkState {
    std::vector<Member> flows;
    int weight = 0;  // moving transfers on the link: the flows' weights
    double capacity = 0;
    double rate_sum = 0;  // bytes per second its moving transfers take: sum of rate x weight
    double bytes = 0;
    double busy = 0;
    double busy_since = 0;
  };

  int new_flow();
  [[nodiscard]] static std::uint64_t group_key(const PathView& path, bool moves);
  [[nodiscard]] int forming_group(double now, const PathView& path, bool moves);
  void push_completion(int f, double now);
  void activate(int f, double now);
  void complete_parts(int f, double now, double end, std::vector<std::uint32_t>& completed);
  void leave_links(int f, double now);
  [[nodiscard]] int hop_of(int first, int link, std::size_t slot) const;
  [[nodiscard]] int flow_of(const Member& m) const {
    return hop_link_[static_cast<std::size_t>(m.first - 1)];
  }
  void mark_dirty(int link);
  void recompute(double now);
  [[nodiscard]] double divergence_level() const;
  [[nodiscard]] bool saturated(int link) const;
  [[nodiscard]] bool fill_components(double fixed_below);
  void collect_component(int seed_link, double fixed_below);
  [[nodiscard]] bool pruned_links_fit();
  void fill_component();
  void fill_levels();
  void apply_rates(double now);

  std::vector<LinkState> links_;
  std::vector<Flow> flows_;
  // Every flow's number, its links and -1, and its position in each link's member list, side
  // by side in two pools: the max-min scans go from a link's member straight to the flow's
  // links and number.
  std::vector<int> hop_link_;
  std::vector<int> hop_slot_;
  std::vector<int> free_flows_;
  // Per live flow, its one pending event: the end of its latency (activation) while it moves
  // and is not on its links yet, else the completion of its next part.
  DeadlineHeap events_;
  std::vector<int> batch_;
  // The groups started at instant forming_now_, by path (its links' address) and whether they
  // move bytes; forming_keys_ lists the keys, to forget them when the instant changes.
  FlatMap<int> forming_;
  std::vector<std::uint64_t> forming_keys_;
  double forming_now_ = kNever;
  std::uint64_t groups_started_ = 0;

  // Scratch of the incremental max-min recomputation.
  std::vector<int> dirty_;
  std::vector<char> is_dirty_;    // per link: in dirty_
  std::vector<int> added_;        // groups that entered their links at this instant
  double removed_rate_ = kNever;  // smallest rate of a transfer that ended at this instant
  std::vector<std::uint32_t> link_epoch_, flow_epoch_;
  std::uint32_t epoch_ = 0;
  std::vector<int> comp_links_, comp_flows_;
  std::vector<int> instant_flows_;  // the flows of every component of the instant
  // Links left out of the components (neither saturated nor changed), with the change of load
  // the new rates would put on them (pruned_links_fit).
  std::vector<int> pruned_links_;
  std::vector<std::uint32_t> pruned_epoch_;
  std::vector<double> pruned_delta_;
  std::vector<double> cap_left_;
  std::vector<int> unfrozen_;
  std::vector<double> new_rate_;
  std::vector<int> open_;
};

// Per link: `load` on every global cable (both directions) of a Dragonfly or Dragonfly+, 0
// elsewhere; empty when load is 0. Throws UnsupportedRequest for a load outside 0..kMaxGlobalLoad
// or a topology without global cables.
inline constexpr double kMaxGlobalLoad = 0.99;
[[nodiscard]] std::vector<double> global_link_load(const topo::Topology& topology, double load);

}  // namespace topocoll::sim
