#include "executor.hpp"

#include <algorithm>
#include <memory>
#include <vector>

namespace topocoll::mpi {
namespace {

// Nonblocking operations of one step.
class StepRequests {
 public:
  // Multi-range messages are numbered per lane in the lane's order, `lane` of `lanes`, so a
  // message keeps its TypeCache index whatever order the lanes run in.
  StepRequests(const ExecutionContext& context, std::size_t lane = 0, std::size_t lanes = 1)
      : context_(context), lane_(lane), lanes_(lanes) {}
  StepRequests(const StepRequests&) = delete;
  StepRequests& operator=(const StepRequests&) = delete;

  int post(const Segments& segments, std::uint64_t count, int peer, int port, bool send) {
    const std::uint64_t piece = max_elements_per_call(context_.type, context_.max_message_bytes);
    std::size_t index = 0;
    std::uint64_t used = 0;  // elements of segments[index] already covered
    for (std::uint64_t done = 0; done < count; done += piece) {
      std::uint64_t want = std::min(piece, count - done);
      Segments part;
      while (want > 0) {
        const Segment& s = segments[index];
        const std::uint64_t take = std::min(want, s.count - used);
        part.push_back({s.region, s.offset + used, take});
        used += take;
        want -= take;
        if (used == s.count) {
          ++index;
          used = 0;
        }
      }
      if (const int rc = post_piece(part, peer, port, send); rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
  }

  int wait() {
    if (requests_.empty()) return MPI_SUCCESS;
    const int rc =
        PMPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    requests_.clear();
    context_.types->release_transient();
    return rc;
  }

  // The step's requests, for a wait over several lanes; completed ones become
  // MPI_REQUEST_NULL.
  [[nodiscard]] std::vector<MPI_Request>& requests() { return requests_; }
  [[nodiscard]] bool complete() const {
    return std::all_of(requests_.begin(), requests_.end(),
                       [](MPI_Request r) { return r == MPI_REQUEST_NULL; });
  }
  void clear() { requests_.clear(); }

 private:
  char* address(const Segment& s) const {
    return context_.type.at(context_.bases[s.region], s.offset);
  }

  int post_piece(const Segments& part, int peer, int port, bool send) {
    void* buffer = nullptr;
    int count = 0;
    MPI_Datatype type = context_.type.type;
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
    MPI_Request request = MPI_REQUEST_NULL;
    const int rc = send ? PMPI_Isend(buffer, count, type, peer, port, context_.comm, &request)
                        : PMPI_Irecv(buffer, count, type, peer, port, context_.comm, &request);
    requests_.push_back(request);
    return rc;
  }

  const ExecutionContext& context_;
  std::size_t lane_, lanes_;
  std::size_t message_ = 0;
  std::vector<MPI_Request> requests_;
};

// Calls f(src, dst, n) over the pieces where two segment lists line up.
template <typename F>
int zip(const ExecutionContext& c, const Segments& from, const Segments& to, F&& f) {
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

int copy(const ExecutionContext& c, const Segments& from, const Segments& to) {
  return zip(c, from, to, [&](char* src, char* dst, std::uint64_t n) {
    copy_elements(dst, src, n, c.type);
    return MPI_SUCCESS;
  });
}

// `in` may be overwritten when it is a staging area (scratch = true).
int combine(const ExecutionContext& c, const Segments& in, const Segments& inout, Combine how,
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
    return combine(c, Segments{op.staging}, op.destination, op.combine, op.order, true);
  return combine(c, op.source, op.destination, op.combine, op.order, false);
}

// Posts the step's receives and sends, and takes the snapshots of its step-start copies.
int post_step(const CompiledStep& step, const ExecutionContext& c, StepRequests& requests) {
  for (const Transfer& t : step.receives) {
    const Segments target = t.staged ? Segments{t.staging} : t.segments;
    if (const int rc = requests.post(target, t.count, t.peer, t.port, false); rc != MPI_SUCCESS)
      return rc;
  }
  for (const Transfer& t : step.sends)
    if (const int rc = requests.post(t.segments, t.count, t.peer, t.port, true); rc != MPI_SUCCESS)
      return rc;
  // Snapshots of step-start copies: nothing writes their sources before the step completes.
  for (const LocalOp& op : step.copies)
    if (op.snapshot) copy(c, op.source, Segments{op.staging});
  return MPI_SUCCESS;
}

// Once every operation of the step completed: receives and copies apply in list order.
int finish_step(const CompiledStep& step, const ExecutionContext& c) {
  for (const ApplyItem& item : step.apply) {
    int rc = MPI_SUCCESS;
    if (item.is_receive) {
      const Transfer& t = step.receives[item.index];
      if (t.staged) rc = combine(c, Segments{t.staging}, t.segments, t.combine, t.order, true);
    } else {
      rc = apply_local(c, step.copies[item.index]);
    }
    if (rc != MPI_SUCCESS) return rc;
  }
  for (const LocalOp& op : step.after)
    if (op.snapshot) copy(c, op.source, Segments{op.staging});
  for (const LocalOp& op : step.after)
    if (const int rc = apply_local(c, op); rc != MPI_SUCCESS) return rc;
  return MPI_SUCCESS;
}

int run_lane(const CompiledLane& lane, const ExecutionContext& c) {
  StepRequests requests(c);
  for (const CompiledStep& step : lane.steps) {
    if (const int rc = post_step(step, c, requests); rc != MPI_SUCCESS) return rc;
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
  LaneScheduler(const Plan& plan, const ExecutionContext& c) : plan_(plan), c_(c) {
    const std::size_t n = plan.lanes.size();
    done_.assign(n, 0);
    in_flight_.assign(n, 0);
    for (std::size_t l = 0; l < n; ++l)
      requests_.push_back(std::make_unique<StepRequests>(c, l, n));
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
