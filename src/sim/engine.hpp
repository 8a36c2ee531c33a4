#pragma once
// The rank driver shared by the analytic and flow models: it walks every rank through its
// lazily generated steps (one step per rank in memory at a time, never the whole schedule),
// posts its messages on a Network, matches sends and receives, and measures the run.
//
// Semantics (docs/design.md, "4.1 Engine semantics"):
// - Every lane of a rank progresses on its own (docs/design.md, "2.2 Lanes and steps"): a lane
// posts
//   step k alpha after its step k-1 completed and once the steps of other lanes it depends on
//   completed (step 0 at time alpha): alpha is the per-step software overhead.
// - Sends are eager (sender-driven, as the papers' SST/packet simulations inject): a send's
//   messages enter the network when its step is posted, whether or not the receiver has
//   reached the matching receive. A send completes when its last byte has arrived; a
//   receive completes when the matching send's data has arrived and the receive is posted
//   (data arriving early waits in the receiver's buffer at no cost).
// - Sends and receives match per (sender, receiver, port) in posting order, as the verifier
//   matches them (a port belongs to one lane at a time, which the verifier checks).
// - Each range of a send's block set is one message (the schedule model has no packed sends:
//   a sender issues one message per range, docs/design.md, "2.5 Ports and messages"); a send with
//   no blocks, or only zero-size blocks, is a zero-byte message that pays latency only.
// - Under multi-path routing a message is split over its paths by Path::share: one transfer
//   per path.
// - A lane's step completes when all its operations completed, plus its reductions: every reduced
//   byte (receives with Combine::reduce and local reductions) costs reduce_s_per_byte,
//   charged after the step's communication, since receives apply at the end of the step.
//   Local copies cost nothing.
// - Rank r runs on host mapping.host_of[info.node_of(r)]: the schedule's placement composed with
//   the user's mapping.
// - Message bytes come from BlockPartition(info, vector_bytes / element_bytes); slots past the
//   user buffer (scratch) hold as many bytes as the largest block.
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "core/partition.hpp"
#include "sim/event_heap.hpp"
#include "sim/flat_map.hpp"
#include "sim/message_bytes.hpp"
#include "sim/network.hpp"
#include "sim/route_cache.hpp"
#include "sim/simulate.hpp"
#include "sim/trace_writer.hpp"
#include "sim/translation_symmetry.hpp"

namespace topocoll::sim {

class Engine {
 public:
  // Throws UnsupportedRequest for a mapping that does not fit or a vector that does not split
  // into elements.
  Engine(const Schedule& schedule, const topo::Topology& topology, const topo::Router& router,
         const topo::Mapping& mapping, const SimConfig& config);
  ~Engine();

  [[nodiscard]] SimResult run();

 private:
  struct LaneState {
    int rank = 0;
    int step = 0;
    int steps = 0;
    int pending = 0;       // operations of the current step not yet complete
    double compute = 0;    // seconds of reductions charged when the communication is done
    bool posting = false;  // inside post(): completions are handled when posting ends
    bool waiting = false;  // its next step waits for steps of other lanes
  };
  struct RankState {
    int first_lane = 0;  // its lanes are lanes_[first_lane, first_lane + lane_count)
    int lane_count = 0;
    int unfinished = 0;  // lanes with steps left
    double finish = 0;
  };
  struct SendOp {
    int sender = 0, receiver = 0, port = 0;
    int lane = 0;  // the sender's lane
    int messages_left = 0;
  };
  struct Message {
    std::uint32_t op = 0;
    int transfers_left = 0;
    double bytes = 0;
    double start = 0;
  };
  struct Channel {  // sends delivered and receives posted on one (sender, receiver, port)
    std::uint32_t delivered = 0;
    std::uint32_t posted = 0;
    int lane = 0;  // the receiver's lane that posted the receives
  };
  enum class TimerKind : std::uint8_t { post, finish };
  struct Timer {
    double time = 0;
    int lane = 0;
    TimerKind kind = TimerKind::post;
  };

  [[nodiscard]] double range_bytes(BlockIndex begin, BlockIndex end) const;
  [[nodiscard]] double set_bytes(const BlockSet& set) const;
  void count_step_links(int step, std::vector<std::uint32_t>& counts);
  void start_lane(int lane, double now);  // posts step 0, alpha from now
  void run_lane(int lane, double now);    // posts steps until one has to wait
  bool dependencies_met(int lane, const Step& step) const;
  bool post(int lane, double now);  // true when the step completed at once
  void post_send(int lane, const Operation& op, double now);
  void post_recv(int lane, const Operation& op);
  void deliver(int sender, int receiver, int port, double now);
  void operation_done(int lane, double now);
  void communication_done(int lane, double now);
  void step_done(int lane, double now);
  // A lane completed its step: true when it posts the next one now.
  bool advance(int lane, double now);
  void wake_waiting(int rank, double now);
  void transfer_done(std::uint32_t tag, double now);
  void add_timer(double time, int lane, TimerKind kind);
  void use_symmetry_if_any(const topo::Router& router);
  // Whether the rank is simulated: all are, unless a symmetry leaves one host per orbit.
  [[nodiscard]] bool simulated(int rank) const;
  void expand_orbits(SimResult& result, std::vector<LinkUsage>& usage) const;
  [[nodiscard]] std::uint64_t channel_key(int sender, int receiver, int port) const;
  template <typename T>
  static std::uint32_t allocate(std::vector<T>& pool, std::vector<std::uint32_t>& free);

  const Schedule& schedule_;
  const topo::Topology& topology_;
  const SimConfig& config_;
  const topo::NetworkParams& params_;
  MessageBytes message_bytes_;
  std::optional<TranslationSymmetry> symmetry_;
  std::unique_ptr<OrbitRouter> orbit_router_;  // routes_ of a symmetric run use it
  std::vector<int> rank_of_host_;              // symmetric runs: host -> rank, -1 for none
  std::optional<RouteCache> routes_;
  RouteCache count_routes_;  // the analytic pre-pass routes with its own cache
  std::unique_ptr<Network> network_;
  std::optional<TraceWriter> trace_;

  std::vector<int> host_of_;  // per rank: the mapping composed with the schedule's placement
  std::vector<RankState> ranks_;
  std::vector<LaneState> lanes_;
  std::vector<int> merged_steps_;  // analytic model: per rank, steps of the lock-step view
  std::deque<Step> scratch_;       // per nesting level of post(): references stay valid
  std::size_t depth_ = 0;
  std::vector<SendOp> ops_;
  std::vector<std::uint32_t> free_ops_;
  std::vector<Message> messages_;
  std::vector<std::uint32_t> free_messages_;
  FlatMap<Channel> channels_;
  EventHeap<Timer> timers_;
  std::vector<std::uint32_t> completed_;
  std::uint64_t message_count_ = 0;
  std::uint64_t transfer_count_ = 0;
  int finished_ranks_ = 0;
};

}  // namespace topocoll::sim
