#include "executor.hpp"

#include <algorithm>
#include <memory>
#include <span>
#include <vector>

#include "config.hpp"

namespace topocoll::mpi {
namespace {

// Views of segment lists: a small call's path builds no vector (docs/mpi-benchmark.md,
// "Small messages").
using SegmentSpan = std::span<const Segment>;

// Elements per message: a reducing collective's messages are cut in segments (pipelining);
// every message below max_message_bytes and INT_MAX elements. The same on every rank: it
// depends only on the call's type, operator and settings.
std::uint64_t piece_elements(const ExecutionContext& c) {
  return max_elements_per_call(
      c.type, message_piece_bytes(c.max_message_bytes, c.segment_bytes, c.op != MPI_OP_NULL));
}

// One posted message: elements [first, first + count) of transfer `transfer` of the step,
// at `part`.
struct Piece {
  bool send = false;
  std::size_t transfer = 0;
  std::uint64_t first = 0;
  std::uint64_t count = 0;
  Segments part;
};

// Nonblocking operations of one step.
class StepRequests {
 public:
  // Multi-range messages are numbered per lane in the lane's order, `lane` of `lanes`, so a
  // message keeps its TypeCache index whatever order the lanes run in.
  // `requests`: where the step's requests live (empty; its capacity is kept between calls).
  StepRequests(const ExecutionContext& context, std::vector<MPI_Request>& requests,
               std::size_t lane = 0, std::size_t lanes = 1)
      : context_(context),
        lane_(lane),
        lanes_(lanes),
        piece_(piece_elements(context)),
        requests_(requests) {}
  StepRequests(const StepRequests&) = delete;
  StepRequests& operator=(const StepRequests&) = delete;

  // `blocking`: a send of one piece goes out with a blocking send (no request; see post_step).
  int post(SegmentSpan segments, std::uint64_t count, int peer, int port, bool send,
           std::size_t transfer, bool blocking = false) {
    blocking_ = blocking && send && count <= piece_;
    std::size_t index = 0;
    std::uint64_t used = 0;  // elements of segments[index] already covered
    for (std::uint64_t done = 0; done < count; done += piece_) {
      const std::uint64_t n = std::min(piece_, count - done);
      int rc = MPI_SUCCESS;
      if (segments[index].count - used >= n && !record_) {  // within one range: no list
        const Segment& s = segments[index];
        const Segment one{s.region, s.offset + used, n};
        rc = post_piece(SegmentSpan(&one, 1), peer, port, send);
        used += n;
        if (used == s.count) ++index, used = 0;
      } else {
        Segments part;
        for (std::uint64_t want = n; want > 0;) {
          const Segment& s = segments[index];
          const std::uint64_t take = std::min(want, s.count - used);
          part.push_back({s.region, s.offset + used, take});
          used += take;
          want -= take;
          if (used == s.count) ++index, used = 0;
        }
        rc = post_piece(part, peer, port, send);
        if (record_) record_->push_back({send, transfer, done, n, std::move(part)});
      }
      if (rc != MPI_SUCCESS) return rc;
    }
    blocking_ = false;
    return MPI_SUCCESS;
  }

  // While set, every posted message is also appended to `pieces` (same order as requests()).
  void record(std::vector<Piece>* pieces) { record_ = pieces; }
  [[nodiscard]] std::uint64_t piece() const { return piece_; }

  int wait() {
    if (requests_.empty()) return MPI_SUCCESS;
    const int rc =
        PMPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    clear();
    context_.types->release_transient();
    return rc;
  }

  // Once the step's messages completed: packed receives go to their slots, before the step
  // applies anything (as if the MPI library had written them there).
  void unpack() {
    const ElementType& t = context_.type;
    for (const Unpack& u : unpacks_) {
      const char* at = u.staging;
      for (const Segment& s : u.part) {
        unpack_elements(address(s), at, s.count, t);
        at += s.count * t.size;
      }
    }
    unpacks_.clear();
  }

  // The step's requests, for a wait over several lanes; completed ones become
  // MPI_REQUEST_NULL.
  [[nodiscard]] std::vector<MPI_Request>& requests() { return requests_; }
  [[nodiscard]] bool complete() const {
    return std::all_of(requests_.begin(), requests_.end(),
                       [](MPI_Request r) { return r == MPI_REQUEST_NULL; });
  }
  // The step is over: its packed receives are unpacked, its requests and staging released.
  void clear() {
    unpack();
    requests_.clear();
    staged_ = 0;
  }

 private:
  char* address(const Segment& s) const {
    return context_.type.at(context_.bases[s.region], s.offset);
  }

  int post_piece(SegmentSpan part, int peer, int port, bool send) {
    void* buffer = nullptr;
    int count = 0;
    MPI_Datatype type = context_.type.type;
    // Only contiguous element types are packed: the packed bytes of any other type could only
    // travel as MPI_PACKED, and MPICH 4.0.2 (ch4:ucx) truncates an MPI_PACKED message above its
    // eager size that a receive of the element type takes (MPI_DOUBLE_INT, about 12 KB:
    // MPI_ERR_TRUNCATE in MPI_Waitsome). Typed on both sides, every message matches anywhere.
    if (part.size() > 1 && context_.pack == PackMode::copy && context_.type.contiguous)
      return post_packed(part, peer, port, send);
    if (part.size() == 1) {
      buffer = address(part[0]);
      count = static_cast<int>(part[0].count);
    } else {
      std::vector<int> lengths;
      std::vector<MPI_Aint> displacements;
      for (const Segment& s : part) {
        MPI_Aint where = 0;
        PMPI_Get_address(address(s), &where);
        lengths.push_back(static_cast<int>(s.count));
        displacements.push_back(where);
      }
      type = context_.types->get(message_++ * lanes_ + lane_, lengths, displacements,
                                 context_.type.type);
      buffer = MPI_BOTTOM;
      count = 1;
    }
    return post_message(buffer, count, type, peer, port, send);
  }

  int post_message(void* buffer, int count, MPI_Datatype type, int peer, int port, bool send) {
    if (blocking_) return PMPI_Send(buffer, count, type, peer, port, context_.comm);
    MPI_Request request = MPI_REQUEST_NULL;
    const int rc = send ? PMPI_Isend(buffer, count, type, peer, port, context_.comm, &request)
                        : PMPI_Irecv(buffer, count, type, peer, port, context_.comm, &request);
    requests_.push_back(request);
    return rc;
  }

  // PackMode::copy, contiguous element types: the ranges travel as one contiguous message from
  // a staging buffer, packed now (a send reads its slots as they are when the step starts) or
  // unpacked once the step's messages completed (unpack()); n elements of the element type, so
  // the signature matches a receiver that takes them into one range.
  int post_packed(SegmentSpan part, int peer, int port, bool send) {
    const ElementType& t = context_.type;
    std::uint64_t elements = 0;
    for (const Segment& s : part) elements += s.count;
    char* staging = context_.types->staging(staged_++ * lanes_ + lane_, elements * t.size);
    if (send) {
      char* at = staging;
      for (const Segment& s : part) {
        pack_elements(at, address(s), s.count, t);
        at += s.count * t.size;
      }
    } else {
      unpacks_.push_back({staging, Segments(part.begin(), part.end())});
    }
    return post_message(staging - t.true_lb, static_cast<int>(elements), t.type, peer, port, send);
  }

  const ExecutionContext& context_;
  std::size_t lane_, lanes_;
  std::uint64_t piece_;
  std::vector<Piece>* record_ = nullptr;
  bool blocking_ = false;  // the message being posted goes out with PMPI_Send
  std::size_t message_ = 0;
  std::vector<MPI_Request>& requests_;
  struct Unpack {
    const char* staging;
    Segments part;
  };
  std::vector<Unpack> unpacks_;  // packed receives of the step in flight
  std::size_t staged_ = 0;       // packed messages of the step in flight
};

// The request arrays of a call's lanes: the context's (kept between calls), else its own.
class RequestArrays {
 public:
  RequestArrays(const ExecutionContext& c, std::size_t lanes)
      : arrays_(c.requests ? *c.requests : own_) {
    if (arrays_.size() < lanes) arrays_.resize(lanes);
    for (std::size_t l = 0; l < lanes; ++l) arrays_[l].clear();
  }
  std::vector<MPI_Request>& operator[](std::size_t lane) { return arrays_[lane]; }

 private:
  std::vector<std::vector<MPI_Request>> own_;
  std::vector<std::vector<MPI_Request>>& arrays_;
};

// Calls f(src, dst, n) over the pieces where two segment lists line up.
template <typename F>
int zip(const ExecutionContext& c, SegmentSpan from, SegmentSpan to, F&& f) {
  std::size_t i = 0, j = 0;
  std::uint64_t used_i = 0, used_j = 0;
  while (i < from.size() && j < to.size()) {
    const std::uint64_t n = std::min(from[i].count - used_i, to[j].count - used_j);
    char* src = c.type.at(c.bases[from[i].region], from[i].offset + used_i);
    char* dst = c.type.at(c.bases[to[j].region], to[j].offset + used_j);
    if (const int rc = f(src, dst, n); rc != MPI_SUCCESS) return rc;
    used_i += n;
    used_j += n;
    if (used_i == from[i].count) ++i, used_i = 0;
    if (used_j == to[j].count) ++j, used_j = 0;
  }
  return MPI_SUCCESS;
}

int copy(const ExecutionContext& c, SegmentSpan from, SegmentSpan to) {
  return zip(c, from, to, [&](char* src, char* dst, std::uint64_t n) {
    copy_elements(dst, src, n, c.type);
    return MPI_SUCCESS;
  });
}

// `in` may be overwritten when it is a staging area (scratch = true).
int combine(const ExecutionContext& c, SegmentSpan in, SegmentSpan inout, Combine how,
            OperandOrder order, bool scratch) {
  if (how == Combine::copy) return copy(c, in, inout);
  if (order == OperandOrder::received_first || c.commutative) {
    return zip(c, in, inout, [&](char* src, char* dst, std::uint64_t n) {
      return reduce_elements(src, dst, n, c.type, c.op);
    });
  }
  // inout = inout ∘ in: compute into the staging copy of `in`, then copy back.
  if (!scratch) return MPI_ERR_INTERN;
  const int rc = zip(c, inout, in, [&](char* local, char* received, std::uint64_t n) {
    return reduce_elements(local, received, n, c.type, c.op);
  });
  return rc != MPI_SUCCESS ? rc : copy(c, in, inout);
}

int apply_local(const ExecutionContext& c, const LocalOp& op) {
  if (op.snapshot)
    return combine(c, SegmentSpan(&op.staging, 1), op.destination, op.combine, op.order, true);
  return combine(c, op.source, op.destination, op.combine, op.order, false);
}

// Messages up to this size may be the step's blocking last send: below the eager limits of
// Open MPI's shared-memory transport (4 KiB) and of MPICH's, so the send returns once the
// library copied it, without the request that an MPI_Isend creates, completes and frees
// (docs/mpi-benchmark.md, "Small messages").
constexpr std::uint64_t kBlockingSendBytes = 4096;

// Posts the step's receives and sends, and takes the snapshots of its step-start copies.
// `block_last_send` (one-lane plans): a last send of at most kBlockingSendBytes goes out with
// a blocking send after everything else of the step is posted, as Open MPI's sendrecv does.
// Even where the library would not send it eagerly it cannot deadlock: the blocked rank's peer
// posted its receives of this step before blocking in it (receives first, here too), and no
// rank leaves a step before its receives from the step's senders completed.
int post_step(const CompiledStep& step, const ExecutionContext& c, StepRequests& requests,
              bool block_last_send = false) {
  for (std::size_t i = 0; i < step.receives.size(); ++i) {
    const Transfer& t = step.receives[i];
    const SegmentSpan target = t.staged ? SegmentSpan(&t.staging, 1) : SegmentSpan(t.segments);
    if (const int rc = requests.post(target, t.count, t.peer, t.port, false, i); rc != MPI_SUCCESS)
      return rc;
  }
  for (std::size_t i = 0; i < step.sends.size(); ++i) {
    const Transfer& t = step.sends[i];
    const bool blocking = block_last_send && i + 1 == step.sends.size() &&
                          t.count * c.type.size <= kBlockingSendBytes;
    if (const int rc = requests.post(t.segments, t.count, t.peer, t.port, true, i, blocking);
        rc != MPI_SUCCESS)
      return rc;
  }
  // Snapshots of step-start copies: nothing writes their sources before the step completes.
  for (const LocalOp& op : step.copies)
    if (op.snapshot) copy(c, op.source, SegmentSpan(&op.staging, 1));
  return MPI_SUCCESS;
}

// Once every operation of the step completed: receives and copies apply in list order
// (receives marked in `applied` were applied segment by segment already).
int finish_step(const CompiledStep& step, const ExecutionContext& c,
                const std::vector<char>* applied = nullptr) {
  for (const ApplyItem& item : step.apply) {
    int rc = MPI_SUCCESS;
    if (item.is_receive) {
      const Transfer& t = step.receives[item.index];
      if (applied && (*applied)[item.index]) continue;
      if (t.staged)
        rc = combine(c, SegmentSpan(&t.staging, 1), t.segments, t.combine, t.order, true);
    } else {
      rc = apply_local(c, step.copies[item.index]);
    }
    if (rc != MPI_SUCCESS) return rc;
  }
  for (const LocalOp& op : step.after)
    if (op.snapshot) copy(c, op.source, SegmentSpan(&op.staging, 1));
  for (const LocalOp& op : step.after)
    if (const int rc = apply_local(c, op); rc != MPI_SUCCESS) return rc;
  return MPI_SUCCESS;
}

// --- Pipelining (one-lane plans) ---

// Elements [first, first + n) of the concatenation of `segments`.
Segments slice(const Segments& segments, std::uint64_t first, std::uint64_t n) {
  Segments out;
  for (const Segment& s : segments) {
    if (n == 0) break;
    if (first >= s.count) {
      first -= s.count;
      continue;
    }
    const std::uint64_t take = std::min(n, s.count - first);
    out.push_back({s.region, s.offset + first, take});
    first = 0;
    n -= take;
  }
  return out;
}

bool overlaps(const Segments& a, const Segments& b) {
  for (const Segment& x : a)
    for (const Segment& y : b)
      if (x.region == y.region && x.offset < y.offset + y.count && y.offset < x.offset + x.count)
        return true;
  return false;
}

// Whether staged receive i may be applied segment by segment as its segments arrive: no other
// receive and no copy of the step writes its destination, and no copy reads it at apply time,
// so the step's apply order (list order) never involves its elements. Sends that read them
// are waited for per segment (SendIndex).
bool streamable(const CompiledStep& step, std::size_t i) {
  const Transfer& t = step.receives[i];
  if (!t.staged) return false;
  for (std::size_t j = 0; j < step.receives.size(); ++j)
    if (j != i && overlaps(t.segments, step.receives[j].segments)) return false;
  for (const LocalOp& op : step.copies)
    if (overlaps(t.segments, op.destination) || (!op.snapshot && overlaps(t.segments, op.source)))
      return false;
  return true;
}

// Marks in `eager` the receives of the step to apply segment by segment; false when the step
// has none, or no message larger than a segment (then the step runs whole).
bool pipelined_receives(const CompiledStep& step, const ExecutionContext& c, std::uint64_t piece,
                        std::vector<char>& eager) {
  if (c.op == MPI_OP_NULL || c.segment_bytes == 0) return false;
  bool cut = false;
  for (const Transfer& t : step.receives) cut = cut || (t.staged && t.count > piece);
  if (!cut) return false;
  eager.assign(step.receives.size(), 0);
  bool any = false;
  for (std::size_t i = 0; i < step.receives.size(); ++i) {
    eager[i] = streamable(step, i) ? 1 : 0;
    any = any || eager[i];
  }
  return any;
}

// The send pieces of a step by the elements they read, to find those a received segment's
// destination overlaps (its reduction must wait for them: snapshot semantics).
class SendIndex {
 public:
  explicit SendIndex(const std::vector<Piece>& pieces) {
    for (std::size_t k = 0; k < pieces.size(); ++k)
      if (pieces[k].send)
        for (const Segment& s : pieces[k].part)
          spans_.push_back({s.region, s.offset, s.offset + s.count, k});
    std::sort(spans_.begin(), spans_.end(), [](const Span& a, const Span& b) {
      return a.region != b.region ? a.region < b.region : a.begin < b.begin;
    });
    reach_.resize(spans_.size());
    for (std::size_t k = 0; k < spans_.size(); ++k)
      reach_[k] = k > 0 && spans_[k - 1].region == spans_[k].region
                      ? std::max(reach_[k - 1], spans_[k].end)
                      : spans_[k].end;
  }

  // Appends the send pieces that read any element of `where`.
  void readers(const Segments& where, std::vector<std::size_t>& out) const {
    for (const Segment& s : where) {
      const std::uint64_t end = s.offset + s.count;
      // Spans of the region that begin before `end`, scanned backwards while one of them (or
      // an earlier one: reach_) still ends after s.offset.
      auto hi =
          std::lower_bound(spans_.begin(), spans_.end(), Span{s.region, end, 0, 0},
                           [](const Span& a, const Span& b) {
                             return a.region != b.region ? a.region < b.region : a.begin < b.begin;
                           });
      for (auto k = static_cast<std::size_t>(hi - spans_.begin()); k-- > 0;) {
        if (spans_[k].region != s.region || reach_[k] <= s.offset) break;
        if (spans_[k].end > s.offset) out.push_back(spans_[k].piece);
      }
    }
  }

 private:
  struct Span {
    Region region;
    std::uint64_t begin, end;
    std::size_t piece;
  };
  std::vector<Span> spans_;
  std::vector<std::uint64_t> reach_;  // the largest end of spans_[first of region .. k]
};

// A step with large messages: every received segment of an eager receive is applied as soon
// as it and the sends reading its destination completed, while the others are in flight
// (the overlap of Open MPI's ring: a block's reduction under the next block's transfer).
int run_pipelined_step(const CompiledStep& step, const ExecutionContext& c, StepRequests& requests,
                       const std::vector<char>& eager) {
  std::vector<Piece> pieces;
  requests.record(&pieces);
  const int posted = post_step(step, c, requests);
  requests.record(nullptr);
  std::vector<MPI_Request>& pending = requests.requests();
  if (posted != MPI_SUCCESS) return posted;
  struct Waiting {
    std::size_t piece;
    std::vector<std::size_t> sends;  // send pieces that read its destination
    Segments destination;
  };
  const SendIndex index(pieces);
  std::vector<Waiting> waiting;
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    const Piece& p = pieces[k];
    if (p.send || !eager[p.transfer]) continue;
    Waiting w{k, {}, slice(step.receives[p.transfer].segments, p.first, p.count)};
    index.readers(w.destination, w.sends);
    waiting.push_back(std::move(w));
  }
  const auto done = [&](std::size_t k) { return pending[k] == MPI_REQUEST_NULL; };
  const auto apply_ready = [&]() {
    for (std::size_t w = 0; w < waiting.size();) {
      const Waiting& item = waiting[w];
      if (!done(item.piece) || !std::all_of(item.sends.begin(), item.sends.end(), done)) {
        ++w;
        continue;
      }
      const Piece& p = pieces[item.piece];
      const Transfer& t = step.receives[p.transfer];
      Segment staged = t.staging;
      staged.offset += p.first;
      staged.count = p.count;
      if (const int rc =
              combine(c, SegmentSpan(&staged, 1), item.destination, t.combine, t.order, true);
          rc != MPI_SUCCESS)
        return rc;
      waiting[w] = std::move(waiting.back());
      waiting.pop_back();
    }
    return MPI_SUCCESS;
  };
  std::vector<int> indices(pending.size());
  for (;;) {
    if (const int rc = apply_ready(); rc != MPI_SUCCESS) return rc;
    int completed = 0;
    const int rc = PMPI_Waitsome(static_cast<int>(pending.size()), pending.data(), &completed,
                                 indices.data(), MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
    if (completed == MPI_UNDEFINED) break;  // every request completed
  }
  if (const int rc = apply_ready(); rc != MPI_SUCCESS) return rc;
  requests.clear();
  c.types->release_transient();
  return finish_step(step, c, &eager);
}

int run_lane(const CompiledLane& lane, const ExecutionContext& c) {
  RequestArrays arrays(c, 1);
  StepRequests requests(c, arrays[0]);
  std::vector<char> eager;
  for (const CompiledStep& step : lane.steps) {
    if (pipelined_receives(step, c, requests.piece(), eager)) {
      if (const int rc = run_pipelined_step(step, c, requests, eager); rc != MPI_SUCCESS) return rc;
      continue;
    }
    if (const int rc = post_step(step, c, requests, true); rc != MPI_SUCCESS) return rc;
    if (const int rc = requests.wait(); rc != MPI_SUCCESS) return rc;
    if (const int rc = finish_step(step, c); rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

// Several lanes: every lane whose next step is free to start (its previous step and the
// steps it waits for completed) has that step in flight; whichever step completes first is
// applied and its lane moves on, without waiting for the other lanes.
class LaneScheduler {
 public:
  LaneScheduler(const Plan& plan, const ExecutionContext& c)
      : plan_(plan), c_(c), arrays_(c, plan.lanes.size()) {
    const std::size_t n = plan.lanes.size();
    done_.assign(n, 0);
    in_flight_.assign(n, 0);
    for (std::size_t l = 0; l < n; ++l)
      requests_.push_back(std::make_unique<StepRequests>(c, arrays_[l], l, n));
  }

  int run() {
    for (;;) {
      if (const int rc = post_ready(); rc != MPI_SUCCESS) return rc;
      if (std::none_of(in_flight_.begin(), in_flight_.end(), [](char f) { return f != 0; }))
        return all_done() ? MPI_SUCCESS : MPI_ERR_INTERN;  // lanes waiting on each other
      // A step without messages (idle, or local copies only) is complete once posted. Blocking
      // on the other lanes' requests first would deadlock where a peer waits for this lane's
      // next step before it answers them.
      if (!any_complete())
        if (const int rc = wait_some(); rc != MPI_SUCCESS) return rc;
      if (const int rc = finish_completed(); rc != MPI_SUCCESS) return rc;
    }
  }

 private:
  [[nodiscard]] bool ready(std::size_t l) const {
    const auto& steps = plan_.lanes[l].steps;
    if (in_flight_[l] || done_[l] == steps.size()) return false;
    for (const Dependency& d : steps[done_[l]].waits_for)
      if (done_[static_cast<std::size_t>(d.lane)] <= static_cast<std::size_t>(d.step)) return false;
    return true;
  }

  [[nodiscard]] bool any_complete() const {
    for (std::size_t l = 0; l < done_.size(); ++l)
      if (in_flight_[l] && requests_[l]->complete()) return true;
    return false;
  }

  [[nodiscard]] bool all_done() const {
    for (std::size_t l = 0; l < done_.size(); ++l)
      if (done_[l] < plan_.lanes[l].steps.size()) return false;
    return true;
  }

  int post_ready() {
    for (std::size_t l = 0; l < done_.size(); ++l) {
      if (!ready(l)) continue;
      if (const int rc = post_step(plan_.lanes[l].steps[done_[l]], c_, *requests_[l]);
          rc != MPI_SUCCESS)
        return rc;
      in_flight_[l] = 1;
    }
    return MPI_SUCCESS;
  }

  // Blocks until at least one request of the steps in flight completed.
  int wait_some() {
    all_.clear();
    for (std::size_t l = 0; l < done_.size(); ++l)
      if (in_flight_[l])
        for (MPI_Request r : requests_[l]->requests())
          if (r != MPI_REQUEST_NULL) all_.push_back(r);
    if (all_.empty()) return MPI_SUCCESS;  // steps of local copies only
    indices_.resize(all_.size());
    int completed = 0;
    const int rc = PMPI_Waitsome(static_cast<int>(all_.size()), all_.data(), &completed,
                                 indices_.data(), MPI_STATUSES_IGNORE);
    // Write the completions back to each lane's requests (same order as gathered).
    std::size_t k = 0;
    for (std::size_t l = 0; l < done_.size(); ++l)
      if (in_flight_[l])
        for (MPI_Request& r : requests_[l]->requests())
          if (r != MPI_REQUEST_NULL) r = all_[k++];
    return rc;
  }

  int finish_completed() {
    for (std::size_t l = 0; l < done_.size(); ++l) {
      if (!in_flight_[l] || !requests_[l]->complete()) continue;
      requests_[l]->clear();
      if (const int rc = finish_step(plan_.lanes[l].steps[done_[l]], c_); rc != MPI_SUCCESS)
        return rc;
      in_flight_[l] = 0;
      ++done_[l];
    }
    c_.types->release_transient();  // MPI frees a type in use once its messages completed
    return MPI_SUCCESS;
  }

  const Plan& plan_;
  const ExecutionContext& c_;
  RequestArrays arrays_;
  std::vector<std::size_t> done_;  // steps completed per lane
  std::vector<char> in_flight_;
  std::vector<std::unique_ptr<StepRequests>> requests_;
  std::vector<MPI_Request> all_;
  std::vector<int> indices_;
};

}  // namespace

int execute_plan(const Plan& plan, const ExecutionContext& context) {
  if (plan.lanes.size() == 1) return run_lane(plan.lanes.front(), context);
  return LaneScheduler(plan, context).run();
}

}  // namespace topocoll::mpi
