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
//   receive completes when the matching send's data has arrived (and its receive overhead is
//   paid) and the receive is posted (data arriving early waits in the receiver's buffer).
// - Sends and receives match per (sender, receiver, port) in posting order, as the verifier
//   matches them (a port belongs to one lane at a time, which the verifier checks).
// - A send to another rank is one message, whatever the ranges of its block set (the runtime
//   packs or sends one derived datatype; docs/host-costs.md); a send with no bytes is a
//   zero-byte message that pays latency only. SimConfig::message_per_range models a runtime
//   that sends each range as its own message instead.
// - Under multi-path routing a message is split over its paths by Path::share: one transfer
//   per path.
// - Host costs (topo::HostCosts, LogGP; docs/host-costs.md), per rank on one CPU that its
//   lanes share, first come first served (requests of one instant in the order of CpuRequest):
//   a message costs its sender o (after packing a multi-range message at the copy rate) before
//   it is injected, and its receiver o (then the unpacking copy) once it has arrived; the
//   receive completes after both. Consecutive
//   messages leave one NIC port (the first link of a path) at least g apart. A message above
//   the eager threshold waits one round trip (request and ready, latency only) between its
//   overhead and its injection; the receiver's readiness is not awaited.
// - A lane's step completes when all its operations completed, plus its CPU work: every reduced
//   byte (receives with Combine::reduce and local reductions) costs reduce_s_per_byte and every
//   copied byte (local copies, sends to oneself) copy_s_per_byte, charged on the rank's CPU
//   after the step's communication, since receives and copies apply at the end of the step.
// - Rank r runs on host mapping.host_of[info.node_of(r)]: the schedule's placement composed with
//   the user's mapping.
// - On a node model (topo::NodeTopology, docs/nodes.md) a message between two ranks of one node
//   pays the node's intra-node host costs when it has them; local copies and reductions pay the
//   machine's rates.
// - Message bytes come from BlockPartition(info, vector_bytes / element_bytes); slots past the
//   user buffer (scratch) hold as many bytes as the largest block.
// - The runtime's copies outside the schedule (call_copies.hpp) cost the copy rate on the rank's
//   CPU: its lanes start after the call overhead and the copies before, and it finishes after
//   the copies after. Its CPU time per step (HostCosts::step_cpu_s) joins each step's copies
//   and reductions on the rank's CPU.
// - A copy or reduction into bytes a rank of the node read since this rank last wrote them
//   pays HostCosts::lent_copy_s_per_byte (lent_reduce_s_per_byte) instead of the plain rate
//   (lent_blocks.hpp); what the call leaves lent and first wrote that way, the next call pays,
//   at the rank's end.
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "core/partition.hpp"
#include "sim/call_copies.hpp"
#include "sim/event_heap.hpp"
#include "sim/flat_map.hpp"
#include "sim/lent_blocks.hpp"
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
  // `imposed`, when given, replaces the search (flow model only): the run is reduced by that
  // group whether or not the schedule has it (tests: a wrong group must change the result).
  Engine(const Schedule& schedule, const topo::Topology& topology, const topo::Router& router,
         const topo::Mapping& mapping, const SimConfig& config,
         const std::optional<TranslationSymmetry>& imposed = std::nullopt);
  ~Engine();

  [[nodiscard]] SimResult run();

 private:
  struct LaneState {
    int rank = 0;
    int step = 0;
    int steps = 0;
    int pending = 0;       // operations of the current step not yet complete
    double compute = 0;    // CPU seconds (reductions, copies) charged after the communication
    bool posting = false;  // inside post(): completions are handled when posting ends
    bool waiting = false;  // its next step waits for steps of other lanes
  };
  struct RankState {
    int first_lane = 0;  // its lanes are lanes_[first_lane, first_lane + lane_count)
    int lane_count = 0;
    int unfinished = 0;  // lanes with steps left
    double finish = 0;
    double cpu_free = 0;    // its CPU is busy until then (host costs)
    double start = 0;       // the call's overhead and copies before the schedule (call_copies.hpp)
    double copy_after = 0;  // and after it
    std::optional<LentBlocks> lent;  // when the host prices writes into lent bytes
  };
  struct SendOp {
    int sender = 0, receiver = 0, port = 0;
    int lane = 0;  // the sender's lane
    int messages_left = 0;
    double received = 0;  // when the receiver's CPU is done with the messages that arrived
    int cpu_pending = 0;  // receive overheads requested, not yet placed on the CPU
  };
  // CPU work asked for at the current instant. Requests of one instant are served in an order
  // that does not depend on the order the engine processes the instant's events (which follows
  // rank numbers): by rank, kind, then lane (or port and the sender's offset), so that ranks
  // that are translations of each other are served alike (the symmetry reduction relies on it).
  enum class CpuKind : std::uint8_t { receive, send, compute };
  struct CpuRequest {
    int rank = 0;
    CpuKind kind = CpuKind::compute;
    int lane = 0;             // receive: the port
    std::uint64_t order = 0;  // receive: the sender's offset from the receiver
    double seconds = 0;
    double then = 0;       // send: the rendezvous round trip after the CPU work
    std::uint32_t id = 0;  // receive: the send operation; send: the message; compute: the lane
  };
  struct Message {
    std::uint32_t op = 0;
    int transfers_left = 0;
    double bytes = 0;
    double start = 0;
    int step = 0;         // the sender's step (the analytic model's congestion)
    bool packed = false;  // several ranges: packed and unpacked at the copy rate
  };
  struct Channel {  // sends delivered and receives posted on one (sender, receiver, port)
    std::uint32_t delivered = 0;
    std::uint32_t posted = 0;
    int lane = 0;  // the receiver's lane that posted the receives
  };
  // post, finish: `id` is a lane; inject: a message; deliver: a send operation.
  enum class TimerKind : std::uint8_t { post, finish, inject, deliver };
  struct Timer {
    double time = 0;
    int id = 0;
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
  void send_message(std::uint32_t op, double bytes, bool packed, int step, double now);
  void inject(std::uint32_t message, double now);
  void message_arrived(std::uint32_t message, double now);
  void delivered(std::uint32_t op, double now);
  void request_cpu(const CpuRequest& request) { cpu_requests_.push_back(request); }
  // Places the instant's CPU requests (first come, first served after what each CPU already
  // does) and sets the timers of what follows them.
  void serve_cpu(double now);
  void compute(int lane);  // the lane's reductions and copies, once its communication is done
  void receive_done(std::uint32_t op, double now);
  // The receiver's offset to the sender, the same for every translation of the pair.
  [[nodiscard]] std::uint64_t sender_offset(int sender, int receiver) const;
  // The host costs of a message: the node's intra-node costs between two ranks of one node when
  // the topology has them (docs/nodes.md), else the machine's.
  [[nodiscard]] const topo::HostCosts& message_costs(const SendOp& op) const;
  // Request and ready message of a rendezvous: the latency from src to dst and back.
  double round_trip(int src, int dst);
  // The simulated rank that stands for `rank` (itself unless a symmetry leaves it out).
  [[nodiscard]] int representative(int rank) const;
  void post_recv(int lane, const Operation& op);
  void deliver(int sender, int receiver, int port, double now);
  void operation_done(int lane, double now);
  void communication_done(int lane, double now);
  void step_done(int lane, double now);
  // A lane completed its step: true when it posts the next one now.
  bool advance(int lane, double now);
  void wake_waiting(int rank, double now);
  void transfer_done(std::uint32_t tag, double now);
  void add_timer(double time, int id, TimerKind kind);
  void charge_call_costs();
  // The call's copies of rank r outside the schedule (call_copies.hpp); `rank` is filled in.
  [[nodiscard]] CallCopyBytes call_copies_of(int r, CallCopyRank& rank) const;
  // Lent bytes (lent_blocks.hpp): the state of each rank, the step's sends to ranks of the
  // node, the extra CPU seconds of a write, and what the call leaves for the next one.
  void start_lent_blocks();
  void lend_node_sends(int rank, const Step& step);
  [[nodiscard]] double write_cost(int rank, const BlockSet& blocks, LentBlocks::Write how);
  [[nodiscard]] double settlement_cost(int rank) const;
  void use_symmetry_if_any(const topo::Router& router,
                           const std::optional<TranslationSymmetry>& imposed);
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
  const topo::HostCosts* intra_costs_;  // the topology's intra-node host costs, if any
  const bool host_costs_;               // params_.host or intra_costs_ charges anything
  std::vector<double> port_free_;       // per link: when it may inject the next message (gap)
  std::vector<CpuRequest> cpu_requests_;
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
