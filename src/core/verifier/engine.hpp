#pragma once
// The symbolic executor behind verify(). It runs every rank's lanes asynchronously, as MPI
// would: a lane posts step k once its step k-1 and the steps it depends on completed, each send
// and receive waits for its partner (matched per (sender, receiver, port) in posting order),
// and the lane moves on when every operation of the step has completed. Sends are treated as
// synchronous, so a schedule that only works with eager buffering is reported as a deadlock.
// The lanes of a rank run in one order here; the lane-order check (lane_order.hpp) makes the
// verdict hold for every order.
//
// Work proceeds in rounds: post (parallel: build steps, check them, snapshot send data),
// match (sequential), complete (parallel: apply receives and local copies).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/huge_page_allocator.hpp"
#include "core/parallel_for.hpp"
#include "core/schedule.hpp"
#include "core/verifier/expectation.hpp"
#include "core/verifier/finding.hpp"
#include "core/verifier/lane_order.hpp"
#include "core/verifier/translation_group.hpp"
#include "core/verifier/verifier.hpp"

namespace topocoll::detail {

// Whether `peer` is a torus neighbour of `rank` (wrap-around links included).
bool torus_adjacent(const std::vector<int>& dims, int rank, int peer);
// Structural problems of one step that do not depend on data; empty if none.
std::optional<Finding> check_step_shape(const ScheduleInfo& info, const VerifyOptions& options,
                                        int rank, int step, const Step& s);
std::optional<Finding> check_write_conflicts(int rank, int step, const Step& s);

// Memory that survives from one block window to the next: first-touching fresh pages costs
// more than the verification itself on large runs, so state and message buffers are reused.
template <class Value>
struct Workspace {
  using Values = std::vector<Value, HugePageAllocator<Value>>;
  // One lane of a rank: its current step and the data of its operations.
  struct LaneState {
    int step_count = 0;
    int step = 0;  // steps completed
    Step current;
    bool built = false;   // `current` holds step `step`
    bool posted = false;  // its operations are in flight
    bool fresh = false;   // posted this round: its operations still wait to be matched
    int pending = 0;
    int sends = 0, recvs = 0;   // of the posted step, for the ports in use at an instant
    std::vector<char> matched;  // per op of the current step
    std::vector<Values> data;   // per op: outgoing (send) or incoming data
    [[nodiscard]] bool finished() const { return step == step_count; }
  };
  struct RankState {
    std::vector<LaneState> lanes;
    int unfinished = 0;  // lanes with steps left
    int sends_active = 0, recvs_active = 0;
    // Emptied buffers kept for the rank's next snapshots. A send hands its buffer to the
    // receiver, which keeps it once applied, so in balanced exchanges a rank holds one buffer
    // per send of a step, not one per operation (the footprint is first-touched memory).
    std::vector<Values> spare;
    // Back to the start of the schedule; the data buffers keep their capacity.
    void reset() {
      for (LaneState& lane : lanes) {
        for (auto& d : lane.data) recycle(d);
        lane.step_count = lane.step = lane.pending = 0;
        lane.current.clear();
        lane.matched.clear();
        lane.built = lane.posted = lane.fresh = false;
      }
      unfinished = sends_active = recvs_active = 0;
    }
    [[nodiscard]] bool finished() const { return unfinished == 0; }
    // Takes a kept buffer for a snapshot, if the slot has none.
    void borrow(Values& slot) {
      if (slot.capacity() > 0 || spare.empty()) return;
      slot.swap(spare.back());
      spare.pop_back();
    }
    // Gives the slot's buffer back for later snapshots; the slot is left without one.
    void recycle(Values& slot) {
      slot.clear();
      if (slot.capacity() == 0) return;
      if (spare.size() < kMaxSpare)
        spare.emplace_back().swap(slot);
      else
        Values().swap(slot);
    }
    // More than a step's sends ever need: ranks that receive more than they send (the root
    // of a gather) free the rest.
    static constexpr std::size_t kMaxSpare = 16;
  };
  std::vector<RankState> ranks;
  Values state;
};

template <class Content>
class Engine {
  using Value = typename Content::Value;
  using Space = Workspace<Value>;
  using Values = typename Space::Values;
  using RankState = typename Space::RankState;
  using LaneState = typename Space::LaneState;

 public:
  // `symmetry`: a translation group proven for every rank (symmetry_proof.hpp), or null.
  Engine(const Schedule& schedule, const VerifyOptions& options, Content& content, Space& space,
         BlockIndex window_begin, BlockIndex window_end, const TranslationGroup* symmetry = nullptr)
      : schedule_(schedule),
        info_(schedule.info()),
        options_(options),
        content_(content),
        w0_(window_begin),
        w1_(window_end),
        width_(window_end - window_begin),
        threads_(resolve_threads(options.threads)),
        ranks_(space.ranks),
        state_(space.state),
        symmetry_(symmetry) {
    ranks_.resize(static_cast<std::size_t>(info_.ranks));
    for (RankState& rs : ranks_) rs.reset();
    inboxes_.resize(static_cast<std::size_t>(info_.ranks));
    state_.assign(static_cast<std::size_t>(info_.ranks) * width_, Value{});
  }

  // Runs the schedule; returns the first violation, if any. `stats` receives counts.
  std::optional<Finding> run(VerifyReport& stats) {
    initialize();
    std::vector<int> to_post;
    for (int r = 0; r < info_.ranks; ++r) {
      if (start_rank(r, stats)) to_post.push_back(r);
    }
    while (!to_post.empty()) {
      if (auto f = post_all(to_post)) return f;
      std::vector<int> to_complete;
      if (auto f = match_all(to_post, to_complete, stats)) return f;
      if (auto f = complete_all(to_complete)) return f;
      to_post.clear();
      for (int r : to_complete)
        if (!ranks_[r].finished()) to_post.push_back(r);
    }
    if (auto f = diagnose_stall()) return f;
    if (auto f = check_lane_order()) return f;
    return check_result();
  }

 private:
  struct Pending {
    int rank;
    int lane;
    int op;
  };
  // An operation posted at the receiving end of a channel and not matched yet. Every pending
  // operation of a channel (sender, receiver, port) is of one kind, and they sit in a rank's
  // inbox in posting order, so the first entry of the other kind on the channel is its FIFO
  // partner. Inboxes are short (at most `ports` entries per peer waiting on the rank), so a
  // linear scan beats hashing channel keys.
  struct InboxEntry {
    int from;
    int port;
    bool is_send;
    Pending op;
  };

  Value& slot(int rank, BlockIndex s) {
    return state_[static_cast<std::size_t>(rank) * width_ + (s - w0_)];
  }

  void initialize() {
    parallel_for(ranks_.size(), threads_, [&](std::size_t r) {
      for (BlockIndex s = w0_; s < w1_; ++s)
        if (initially_defined(info_, static_cast<int>(r), s))
          slot(static_cast<int>(r), s) = content_.initial(static_cast<int>(r), s);
    });
  }

  // Reads the rank's lanes; true when it has a step to run (a loaded file may list none).
  bool start_rank(int r, VerifyReport& stats) {
    RankState& rs = ranks_[r];
    rs.lanes.resize(static_cast<std::size_t>(std::max(schedule_.lane_count(r), 1)));
    for (int l = 0; l < static_cast<int>(rs.lanes.size()); ++l) {
      LaneState& lane = rs.lanes[l];
      lane.step_count = schedule_.lane_step_count(r, l);
      stats.max_steps = std::max(stats.max_steps, lane.step_count);
      if (lane.step_count > 0) ++rs.unfinished;
    }
    if (structural_checks_ && rs.lanes.size() > 1 && records_lane_order(r)) {
      if (records_.empty()) records_.resize(ranks_.size());
      records_[r].reset(static_cast<int>(rs.lanes.size()));
    }
    return rs.unfinished > 0;
  }

  // "lane L " for ranks of several lanes, so a report names the step's lane.
  std::string lane_prefix(int r, int l) const {
    return ranks_[r].lanes.size() > 1 ? "lane " + std::to_string(l) + " " : "";
  }

  // Reads the window part of `blocks` at `rank` into `out`.
  std::optional<Finding> snapshot(int rank, int step, const Operation& op, const BlockSet& blocks,
                                  Values& out) {
    out.clear();
    // Exactly the window's share, in one allocation: growth by doubling would leave up to
    // half of every buffer allocated for nothing.
    std::size_t in_window = 0;
    for (const auto& range : blocks.ranges()) in_window += range.clipped(w0_, w1_).size();
    if (in_window == 0) return std::nullopt;
    ranks_[static_cast<std::size_t>(rank)].borrow(out);
    out.reserve(in_window);
    for (const auto& range : blocks.ranges()) {
      const auto [b0, b1] = range.clipped(w0_, w1_);
      if (b0 == b1) continue;
      const std::size_t at = out.size();
      const Value* first = &slot(rank, b0);
      out.insert(out.end(), first, first + (b1 - b0));  // one bulk copy per range
      bool all_defined = true;  // branch-free scan first; the search below only on failure
      for (std::size_t k = at; k < out.size(); ++k) all_defined &= Content::defined(out[k]);
      if (all_defined) continue;
      for (std::size_t k = at; k < out.size(); ++k) {
        if (Content::defined(out[k])) continue;
        const BlockIndex b = b0 + static_cast<BlockIndex>(k - at);
        return Finding{
            Violation::read_undefined,
            rank,
            step,
            b,
            "a written slot",
            "a slot never written",
            op.to_string() + " reads block " + std::to_string(b) + ", which holds no data yet"};
      }
    }
    return std::nullopt;
  }

  std::optional<Finding> dependency_problem(int r, int l, const Step& s) const {
    const RankState& rs = ranks_[r];
    for (const Dependency& d : s.after) {
      std::string problem;
      if (d.lane < 0 || d.lane >= static_cast<int>(rs.lanes.size()))
        problem = "lane " + std::to_string(d.lane) + " does not exist; accepted: 0.." +
                  std::to_string(rs.lanes.size() - 1);
      else if (d.lane == l)
        problem = "a step cannot wait for its own lane, whose steps run in order already";
      else if (d.step < 0 || d.step >= rs.lanes[d.lane].step_count)
        problem = "lane " + std::to_string(d.lane) + " has no step " + std::to_string(d.step) +
                  "; accepted: 0.." + std::to_string(rs.lanes[d.lane].step_count - 1);
      if (!problem.empty())
        return Finding{Violation::malformed,
                       r,
                       rs.lanes[l].step,
                       -1,
                       "",
                       "",
                       lane_prefix(r, l) + "dependency on lane " + std::to_string(d.lane) +
                           " step " + std::to_string(d.step) + ": " + problem};
    }
    return std::nullopt;
  }

  // Builds lane l's next step once, with the checks that do not depend on data.
  std::optional<Finding> build(int r, int l) {
    LaneState& lane = ranks_[r].lanes[l];
    lane.current.clear();
    schedule_.build_lane_step(r, l, lane.step, lane.current);
    lane.built = true;
    if (!structural_checks_) return std::nullopt;
    if (auto f = check_step_shape(info_, options_, r, lane.step, lane.current)) {
      f->what = lane_prefix(r, l) + f->what;
      return f;
    }
    if (auto f = dependency_problem(r, l, lane.current)) return f;
    if (!records_.empty() && records_[r].active()) records_[r].add_step(l, lane.step, lane.current);
    return std::nullopt;
  }

  bool dependencies_met(const RankState& rs, const Step& s) const {
    return std::all_of(s.after.begin(), s.after.end(),
                       [&](const Dependency& d) { return rs.lanes[d.lane].step > d.step; });
  }

  // The ports in use at this instant: every lane's posted step together.
  std::optional<Finding> check_instant_ports(int r, int l) const {
    const RankState& rs = ranks_[r];
    const int ports = std::max(1, info_.ports);
    for (auto [count, direction] :
         {std::pair{rs.sends_active, "sends"}, std::pair{rs.recvs_active, "receives"}}) {
      if (count <= ports) continue;
      return Finding{Violation::ports_exceeded,
                     r,
                     rs.lanes[l].step,
                     -1,
                     "at most " + std::to_string(info_.ports),
                     std::to_string(count),
                     lane_prefix(r, l) + "starts while other lanes run: " + std::to_string(count) +
                         " concurrent " + direction +
                         " exceed ports = " + std::to_string(info_.ports)};
    }
    return std::nullopt;
  }

  std::optional<Finding> post_lane(int r, int l) {
    RankState& rs = ranks_[r];
    LaneState& lane = rs.lanes[l];
    const auto n = lane.current.ops.size();
    lane.matched.assign(n, 0);
    for (std::size_t i = n; i < lane.data.size(); ++i) rs.recycle(lane.data[i]);
    lane.data.resize(n);
    lane.pending = lane.sends = lane.recvs = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const Operation& op = lane.current.ops[i];
      // A receive's slot takes the sender's buffer in pair(): it needs none of its own.
      rs.recycle(lane.data[i]);
      if (op.kind == OpKind::send) {
        if (auto f = snapshot(r, lane.step, op, op.blocks, lane.data[i])) return f;
        ++lane.sends;
      } else if (op.kind == OpKind::copy && !op.after_receives()) {
        if (auto f = snapshot(r, lane.step, op, op.source, lane.data[i])) return f;
      } else if (op.kind == OpKind::recv) {
        ++lane.recvs;
      }
      if (op.kind != OpKind::copy) ++lane.pending;
    }
    lane.posted = lane.fresh = true;
    rs.sends_active += lane.sends;
    rs.recvs_active += lane.recvs;
    if (structural_checks_ && rs.lanes.size() > 1) return check_instant_ports(r, l);
    return std::nullopt;
  }

  // Posts every lane of the rank that is free to start its next step.
  std::optional<Finding> post(int r) {
    RankState& rs = ranks_[r];
    for (int l = 0; l < static_cast<int>(rs.lanes.size()); ++l) {
      LaneState& lane = rs.lanes[l];
      if (lane.posted || lane.finished()) continue;
      if (!lane.built)
        if (auto f = build(r, l)) return f;
      if (!dependencies_met(rs, lane.current)) continue;
      if (auto f = post_lane(r, l)) return f;
    }
    return std::nullopt;
  }

  std::optional<Finding> post_all(const std::vector<int>& to_post) {
    std::vector<std::optional<Finding>> findings(to_post.size());
    parallel_for(to_post.size(), threads_, [&](std::size_t i) { findings[i] = post(to_post[i]); });
    for (auto& f : findings)
      if (f) return f;
    return std::nullopt;
  }

  std::optional<Finding> pair(Pending send, Pending recv, VerifyReport& stats) {
    LaneState& sender = ranks_[send.rank].lanes[send.lane];
    LaneState& receiver = ranks_[recv.rank].lanes[recv.lane];
    const Operation& sop = sender.current.ops[send.op];
    const Operation& rop = receiver.current.ops[recv.op];
    const bool same = info_.keeps_positions ? sop.blocks == rop.blocks
                                            : sop.blocks.block_count() == rop.blocks.block_count();
    if (!same) {
      return Finding{Violation::block_mismatch,
                     recv.rank,
                     receiver.step,
                     -1,
                     sop.blocks.to_string(),
                     rop.blocks.to_string(),
                     lane_prefix(recv.rank, recv.lane) + rop.to_string() +
                         " matched the send of rank " + std::to_string(send.rank) + " " +
                         lane_prefix(send.rank, send.lane) + "step " + std::to_string(sender.step) +
                         ", which carries blocks " + sop.blocks.to_string()};
    }
    // Swap rather than move, so both ranks keep allocated buffers for their next steps.
    std::swap(receiver.data[recv.op], sender.data[send.op]);
    stats.messages += 1;
    stats.block_transfers += sop.blocks.block_count();
    stats.ranges += sop.blocks.range_count();
    for (Pending p : {send, recv}) {
      LaneState& lane = ranks_[p.rank].lanes[p.lane];
      lane.matched[p.op] = 1;
      --lane.pending;
    }
    return std::nullopt;
  }

  std::optional<Finding> match_lane(int r, int l, std::vector<int>& touched, VerifyReport& stats) {
    const LaneState& lane = ranks_[r].lanes[l];
    for (int i = 0; i < static_cast<int>(lane.current.ops.size()); ++i) {
      const Operation& op = lane.current.ops[i];
      if (op.kind == OpKind::copy) continue;
      const bool is_send = op.kind == OpKind::send;
      const int receiver = is_send ? op.peer : r;
      const int sender = is_send ? r : op.peer;
      std::vector<InboxEntry>& inbox = inboxes_[static_cast<std::size_t>(receiver)];
      const auto partner = std::find_if(inbox.begin(), inbox.end(), [&](const InboxEntry& e) {
        return e.from == sender && e.port == op.port && e.is_send != is_send;
      });
      if (partner == inbox.end()) {
        inbox.push_back({sender, op.port, is_send, {r, l, i}});
        continue;
      }
      const Pending other = partner->op;
      inbox.erase(partner);
      touched.push_back(other.rank);
      auto f = is_send ? pair({r, l, i}, other, stats) : pair(other, {r, l, i}, stats);
      if (f) return f;
    }
    return std::nullopt;
  }

  std::optional<Finding> match_all(const std::vector<int>& to_post, std::vector<int>& to_complete,
                                   VerifyReport& stats) {
    std::vector<int> touched;
    for (int r : to_post) {
      touched.push_back(r);
      for (int l = 0; l < static_cast<int>(ranks_[r].lanes.size()); ++l) {
        LaneState& lane = ranks_[r].lanes[l];
        if (!lane.fresh) continue;
        lane.fresh = false;
        if (auto f = match_lane(r, l, touched, stats)) return f;
      }
    }
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    for (int r : touched) {
      const auto& lanes = ranks_[r].lanes;
      if (std::any_of(lanes.begin(), lanes.end(),
                      [](const LaneState& lane) { return lane.posted && lane.pending == 0; }))
        to_complete.push_back(r);
    }
    return std::nullopt;
  }

  std::optional<Finding> apply(int r, int step, const Operation& op, Values& incoming) {
    auto in = incoming.begin();
    for (const auto& range : op.blocks.ranges()) {
      const auto [b0, b1] = range.clipped(w0_, w1_);
      if (b0 == b1) continue;
      Value* target = &slot(r, b0);
      const std::size_t length = b1 - b0;
      if (op.combine == Combine::copy) {
        std::move(in, in + static_cast<std::ptrdiff_t>(length), target);
        in += static_cast<std::ptrdiff_t>(length);
        continue;
      }
      for (std::size_t k = 0; k < length; ++k, ++in) {
        if (!Content::defined(target[k])) {
          const BlockIndex b = b0 + static_cast<BlockIndex>(k);
          return Finding{Violation::read_undefined,
                         r,
                         step,
                         b,
                         "a written slot",
                         "a slot never written",
                         op.to_string() + " reduces into block " + std::to_string(b) +
                             ", which holds no data yet"};
        }
        target[k] = content_.reduce(*in, target[k], op.order);
      }
    }
    return std::nullopt;
  }

  std::optional<Finding> complete_lane(int r, int l) {
    RankState& rs = ranks_[r];
    LaneState& lane = rs.lanes[l];
    if (structural_checks_)
      if (auto f = check_write_conflicts(r, lane.step, lane.current)) {
        f->what = lane_prefix(r, l) + f->what;
        return f;
      }
    const auto n = lane.current.ops.size();
    for (std::size_t i = 0; i < n; ++i) {
      const Operation& op = lane.current.ops[i];
      if (op.kind == OpKind::send || op.after_receives()) continue;
      if (auto f = apply(r, lane.step, op, lane.data[i])) return f;
      rs.recycle(lane.data[i]);
    }
    // Local work between rounds: every after-receives copy reads what the step left, then
    // they apply in list order.
    for (std::size_t i = 0; i < n; ++i) {
      const Operation& op = lane.current.ops[i];
      if (op.after_receives())
        if (auto f = snapshot(r, lane.step, op, op.source, lane.data[i])) return f;
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (!lane.current.ops[i].after_receives()) continue;
      if (auto f = apply(r, lane.step, lane.current.ops[i], lane.data[i])) return f;
      rs.recycle(lane.data[i]);
    }
    rs.sends_active -= lane.sends;
    rs.recvs_active -= lane.recvs;
    lane.posted = lane.built = false;
    if (++lane.step == lane.step_count) --rs.unfinished;
    return std::nullopt;
  }

  std::optional<Finding> complete(int r) {
    RankState& rs = ranks_[r];
    for (int l = 0; l < static_cast<int>(rs.lanes.size()); ++l) {
      const LaneState& lane = rs.lanes[l];
      if (lane.posted && lane.pending == 0)
        if (auto f = complete_lane(r, l)) return f;
    }
    return std::nullopt;
  }

  std::optional<Finding> complete_all(const std::vector<int>& to_complete) {
    std::vector<std::optional<Finding>> findings(to_complete.size());
    parallel_for(to_complete.size(), threads_,
                 [&](std::size_t i) { findings[i] = complete(to_complete[i]); });
    for (auto& f : findings)
      if (f) return f;
    return std::nullopt;
  }

  // The first unmatched operation of a rank's posted lanes, or nullptr.
  const Operation* first_unmatched(int r) const {
    for (const LaneState& lane : ranks_[r].lanes) {
      if (!lane.posted) continue;
      for (std::size_t i = 0; i < lane.current.ops.size(); ++i)
        if (lane.current.ops[i].kind != OpKind::copy && !lane.matched[i])
          return &lane.current.ops[i];
    }
    return nullptr;
  }

  // A stalled rank none of whose lanes has an operation in flight: its lanes wait for each
  // other's steps.
  Finding dependency_stall(int r) const {
    const RankState& rs = ranks_[r];
    for (int l = 0; l < static_cast<int>(rs.lanes.size()); ++l) {
      const LaneState& lane = rs.lanes[l];
      if (lane.finished() || !lane.built) continue;
      for (const Dependency& d : lane.current.after) {
        if (rs.lanes[d.lane].step > d.step) continue;
        return Finding{
            Violation::unmatched,
            r,
            lane.step,
            -1,
            "lane " + std::to_string(d.lane) + " step " + std::to_string(d.step) + " completed",
            "never",
            lane_prefix(r, l) + "step " + std::to_string(lane.step) + " waits for lane " +
                std::to_string(d.lane) + " step " + std::to_string(d.step) +
                ", which never completes (the lanes' dependencies form a cycle: "
                "deadlock)"};
      }
    }
    return Finding{Violation::unmatched,
                   r,
                   -1,
                   -1,
                   "",
                   "",
                   "rank " + std::to_string(r) + " stopped before its last step"};
  }

  int current_step(int r) const {
    for (const LaneState& lane : ranks_[r].lanes)
      if (lane.posted) return lane.step;
    return -1;
  }

  // The first unmatched operation of a stalled rank, and the chain of ranks it waits on.
  std::optional<Finding> diagnose_stall() {
    int stalled = -1;
    for (int r = 0; r < info_.ranks && stalled < 0; ++r)
      if (!ranks_[r].finished()) stalled = r;
    if (stalled < 0) return std::nullopt;
    // A rank whose lanes all wait for each other is where a chain of waits would end.
    for (int r = stalled; r < info_.ranks; ++r)
      if (!ranks_[r].finished() && first_unmatched(r) == nullptr) return dependency_stall(r);
    const Operation* op = first_unmatched(stalled);
    if (op == nullptr) return dependency_stall(stalled);
    std::string chain = std::to_string(stalled);
    std::vector<char> seen(static_cast<std::size_t>(info_.ranks), 0);
    int r = stalled;
    std::string ending;
    while (true) {
      seen[r] = 1;
      const Operation* waiting = first_unmatched(r);
      if (!waiting) break;
      const int q = waiting->peer;
      chain += " -> " + std::to_string(q);
      if (ranks_[q].finished()) {
        ending =
            "; rank " + std::to_string(q) + " finished all its steps without a matching operation";
        break;
      }
      if (seen[q]) {
        ending = "; the ranks wait on each other in a cycle (deadlock)";
        break;
      }
      r = q;
    }
    return Finding{Violation::unmatched,
                   stalled,
                   current_step(stalled),
                   -1,
                   "a matching operation at rank " + std::to_string(op->peer),
                   "none",
                   op->to_string() + " is never matched (waits: " + chain + ending + ")"};
  }

  // Under a proven translation symmetry the lane order is checked at one rank per orbit: the
  // proof maps every rank's lanes, steps, dependencies, peers, ports and block sets one to one
  // onto its representative's, and a one-to-one map keeps which accesses overlap, so the
  // verdict is the representative's. The records of every rank held all their block ranges
  // (4 of 4.2 GB verifying bucket's allgather on 64x64, 2026-11-30).
  bool records_lane_order(int r) const {
    return symmetry_ == nullptr || symmetry_->representative(r) == r;
  }

  // Runs once all lanes finished, in the first window: the order the engine took was one of
  // many, and a conflict between unordered lanes would show in another.
  std::optional<Finding> check_lane_order() {
    if (records_.empty()) return std::nullopt;
    std::vector<std::optional<Finding>> findings(records_.size());
    parallel_for(records_.size(), threads_, [&](std::size_t r) {
      if (records_[r].active()) findings[r] = records_[r].check(static_cast<int>(r));
    });
    for (auto& f : findings)
      if (f) return f;
    return std::nullopt;
  }

  int last_step(int r) const {
    int n = 0;
    for (const LaneState& lane : ranks_[r].lanes) n = std::max(n, lane.step_count);
    return n;
  }

  std::optional<Finding> check_rank(int r) {
    for (BlockIndex s = w0_; s < w1_; ++s) {
      const SlotExpectation e = expected_content(info_, r, s);
      if (e.kind == SlotExpectation::Kind::dont_care) continue;
      // A cheap yes/no first where the content offers one; the diagnosis only for failures.
      if constexpr (requires { content_.matches(slot(r, s), e); })
        if (content_.matches(slot(r, s), e)) continue;
      std::string found = content_.mismatch(slot(r, s), e);
      if (found.empty()) continue;
      std::string expected = describe(e);
      return Finding{Violation::wrong_result,
                     r,
                     last_step(r),
                     s,
                     expected,
                     found,
                     "block " + std::to_string(s) + " holds " + found + "; expected " + expected};
    }
    return std::nullopt;
  }

  std::optional<Finding> check_result() {
    std::vector<std::optional<Finding>> findings(ranks_.size());
    const int threads = Content::kConcurrentChecks ? threads_ : 1;
    parallel_for(ranks_.size(), threads,
                 [&](std::size_t r) { findings[r] = check_rank(static_cast<int>(r)); });
    for (auto& f : findings)
      if (f) return f;
    return std::nullopt;
  }

  std::string describe(const SlotExpectation& e) const {
    if (e.kind == SlotExpectation::Kind::single) {
      return "the contribution of rank " + std::to_string(e.origin) + " block " +
             std::to_string(e.block);
    }
    std::string out = "block " + std::to_string(e.block) + " of all " +
                      std::to_string(info_.ranks) + " ranks, each once";
    if (!options_.commutative) out += ", in rank order";
    return out;
  }

  const Schedule& schedule_;
  const ScheduleInfo& info_;
  const VerifyOptions& options_;
  Content& content_;
  BlockIndex w0_, w1_;
  std::size_t width_;
  // Steps do not depend on the window: their shape is checked in the first pass only.
  bool structural_checks_ = w0_ == 0;
  int threads_;
  std::vector<RankState>& ranks_;
  Values& state_;
  std::vector<std::vector<InboxEntry>> inboxes_;
  const TranslationGroup* symmetry_;
  std::vector<LaneRecord> records_;  // first pass of a schedule with lanes: per recorded rank
};

}  // namespace topocoll::detail
