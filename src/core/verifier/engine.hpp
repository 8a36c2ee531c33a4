#pragma once
// The symbolic executor behind verify(). It runs every rank's steps asynchronously, as MPI
// would: a rank posts step k, each send and receive waits for its partner (matched per
// (sender, receiver, port) in posting order), and the rank moves on when every operation of
// the step has completed. Sends are treated as synchronous, so a schedule that only works
// with eager buffering is reported as a deadlock.
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
#include "core/verifier/verifier.hpp"

namespace topocoll::detail {

struct Finding {
  Violation violation = Violation::none;
  int rank = -1;
  int step = -1;
  long long block = -1;
  std::string expected;
  std::string found;
  std::string what;  // the sentence, without the location prefix
};

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
  struct RankState {
    int step_count = 0;
    int step = 0;
    Step current;
    int pending = 0;
    std::vector<char> matched;  // per op of the current step
    std::vector<Values> data;   // per op: outgoing (send) or incoming data
    // Emptied buffers kept for the rank's next snapshots. A send hands its buffer to the
    // receiver, which keeps it once applied, so in balanced exchanges a rank holds one buffer
    // per send of a step, not one per operation (the footprint is first-touched memory).
    std::vector<Values> spare;
    bool finished = false;
    // Back to the start of the schedule; the data buffers keep their capacity.
    void reset() {
      step_count = step = pending = 0;
      current.clear();
      matched.clear();
      for (auto& d : data) recycle(d);
      finished = false;
    }
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

 public:
  Engine(const Schedule& schedule, const VerifyOptions& options, Content& content, Space& space,
         BlockIndex window_begin, BlockIndex window_end)
      : schedule_(schedule),
        info_(schedule.info()),
        options_(options),
        content_(content),
        w0_(window_begin),
        w1_(window_end),
        width_(window_end - window_begin),
        threads_(resolve_threads(options.threads)),
        ranks_(space.ranks),
        state_(space.state) {
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
      ranks_[r].step_count = schedule_.step_count(r);
      stats.max_steps = std::max(stats.max_steps, ranks_[r].step_count);
      // A rank without steps has nothing to wait for (a loaded file may list none).
      if (ranks_[r].step_count > 0)
        to_post.push_back(r);
      else
        ranks_[r].finished = true;
    }
    while (!to_post.empty()) {
      if (auto f = post_all(to_post)) return f;
      std::vector<int> to_complete;
      if (auto f = match_all(to_post, to_complete, stats)) return f;
      if (auto f = complete_all(to_complete)) return f;
      to_post.clear();
      for (int r : to_complete)
        if (!ranks_[r].finished) to_post.push_back(r);
    }
    if (auto f = diagnose_stall()) return f;
    return check_result();
  }

 private:
  struct Pending {
    int rank;
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

  std::string location(int rank, int step) const {
    return "rank " + std::to_string(rank) + " step " + std::to_string(step);
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

  std::optional<Finding> post(int r) {
    RankState& rs = ranks_[r];
    rs.current.clear();
    schedule_.build_step(r, rs.step, rs.current);
    if (structural_checks_)
      if (auto f = check_step_shape(info_, options_, r, rs.step, rs.current)) return f;
    const auto n = rs.current.ops.size();
    rs.matched.assign(n, 0);
    for (std::size_t i = n; i < rs.data.size(); ++i) rs.recycle(rs.data[i]);
    rs.data.resize(n);
    rs.pending = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const Operation& op = rs.current.ops[i];
      // A receive's slot takes the sender's buffer in pair(): it needs none of its own.
      rs.recycle(rs.data[i]);
      if (op.kind == OpKind::send) {
        if (auto f = snapshot(r, rs.step, op, op.blocks, rs.data[i])) return f;
      } else if (op.kind == OpKind::copy && !op.after_receives()) {
        if (auto f = snapshot(r, rs.step, op, op.source, rs.data[i])) return f;
      }
      if (op.kind != OpKind::copy) ++rs.pending;
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
    RankState& sender = ranks_[send.rank];
    RankState& receiver = ranks_[recv.rank];
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
                     rop.to_string() + " matched the send of rank " + std::to_string(send.rank) +
                         " step " + std::to_string(sender.step) + ", which carries blocks " +
                         sop.blocks.to_string()};
    }
    // Swap rather than move, so both ranks keep allocated buffers for their next steps.
    std::swap(receiver.data[recv.op], sender.data[send.op]);
    stats.messages += 1;
    stats.block_transfers += sop.blocks.block_count();
    stats.ranges += sop.blocks.range_count();
    for (Pending p : {send, recv}) {
      ranks_[p.rank].matched[p.op] = 1;
      --ranks_[p.rank].pending;
    }
    return std::nullopt;
  }

  std::optional<Finding> match_all(const std::vector<int>& to_post, std::vector<int>& to_complete,
                                   VerifyReport& stats) {
    std::vector<int> touched;
    for (int r : to_post) {
      RankState& rs = ranks_[r];
      touched.push_back(r);
      for (int i = 0; i < static_cast<int>(rs.current.ops.size()); ++i) {
        const Operation& op = rs.current.ops[i];
        if (op.kind == OpKind::copy) continue;
        const bool is_send = op.kind == OpKind::send;
        const int receiver = is_send ? op.peer : r;
        const int sender = is_send ? r : op.peer;
        std::vector<InboxEntry>& inbox = inboxes_[static_cast<std::size_t>(receiver)];
        const auto partner = std::find_if(inbox.begin(), inbox.end(), [&](const InboxEntry& e) {
          return e.from == sender && e.port == op.port && e.is_send != is_send;
        });
        if (partner == inbox.end()) {
          inbox.push_back({sender, op.port, is_send, {r, i}});
          continue;
        }
        const Pending other = partner->op;
        inbox.erase(partner);
        touched.push_back(other.rank);
        auto f = is_send ? pair({r, i}, other, stats) : pair(other, {r, i}, stats);
        if (f) return f;
      }
    }
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    for (int r : touched)
      if (ranks_[r].pending == 0 && !ranks_[r].finished) to_complete.push_back(r);
    return std::nullopt;
  }

  std::optional<Finding> apply(int r, const Operation& op, Values& incoming) {
    RankState& rs = ranks_[r];
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
                         rs.step,
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

  std::optional<Finding> complete(int r) {
    RankState& rs = ranks_[r];
    if (structural_checks_)
      if (auto f = check_write_conflicts(r, rs.step, rs.current)) return f;
    const auto n = rs.current.ops.size();
    for (std::size_t i = 0; i < n; ++i) {
      const Operation& op = rs.current.ops[i];
      if (op.kind == OpKind::send || op.after_receives()) continue;
      if (auto f = apply(r, op, rs.data[i])) return f;
      rs.recycle(rs.data[i]);
    }
    // Local work between rounds: every after-receives copy reads what the step left, then
    // they apply in list order.
    for (std::size_t i = 0; i < n; ++i) {
      const Operation& op = rs.current.ops[i];
      if (op.after_receives())
        if (auto f = snapshot(r, rs.step, op, op.source, rs.data[i])) return f;
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (!rs.current.ops[i].after_receives()) continue;
      if (auto f = apply(r, rs.current.ops[i], rs.data[i])) return f;
      rs.recycle(rs.data[i]);
    }
    if (++rs.step == rs.step_count) rs.finished = true;
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

  // The first unmatched operation of a stalled rank, and the chain of ranks it waits on.
  std::optional<Finding> diagnose_stall() {
    int stalled = -1;
    for (int r = 0; r < info_.ranks && stalled < 0; ++r)
      if (!ranks_[r].finished) stalled = r;
    if (stalled < 0) return std::nullopt;
    auto first_unmatched = [&](int r) -> const Operation* {
      const RankState& rs = ranks_[r];
      for (std::size_t i = 0; i < rs.current.ops.size(); ++i)
        if (rs.current.ops[i].kind != OpKind::copy && !rs.matched[i]) return &rs.current.ops[i];
      return nullptr;
    };
    const Operation* op = first_unmatched(stalled);
    if (op == nullptr) {
      // Defensive: an unfinished rank whose operations all matched cannot stall; report it
      // rather than dereference nothing.
      return Finding{Violation::unmatched,
                     stalled,
                     ranks_[stalled].step,
                     -1,
                     "",
                     "",
                     "rank " + std::to_string(stalled) + " stopped before its last step"};
    }
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
      if (ranks_[q].finished) {
        ending = "; rank " + std::to_string(q) + " finished all " +
                 std::to_string(ranks_[q].step_count) + " steps without a matching operation";
        break;
      }
      if (seen[q]) {
        ending = "; the ranks wait on each other in a cycle (deadlock)";
        break;
      }
      r = q;
    }
    const RankState& rs = ranks_[stalled];
    return Finding{Violation::unmatched,
                   stalled,
                   rs.step,
                   -1,
                   "a matching operation at rank " + std::to_string(op->peer),
                   "none",
                   op->to_string() + " is never matched (waits: " + chain + ending + ")"};
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
                     ranks_[r].step_count,
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
};

}  // namespace topocoll::detail
