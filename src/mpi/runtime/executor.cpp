#include "executor.hpp"

#include <algorithm>
#include <vector>

namespace topocoll::mpi {
namespace {

// Nonblocking operations of one step.
class StepRequests {
 public:
  // `message` numbers the plan's multi-range messages in execution order (TypeCache index).
  StepRequests(const ExecutionContext& context, std::size_t& message)
      : context_(context), message_(message) {}
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
    context_.types->release_transient();
    return rc;
  }

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
      type = context_.types->get(message_++, lengths, displacements, context_.type.type);
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
  std::size_t& message_;
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

int run_step(const CompiledStep& step, const ExecutionContext& c, std::size_t& message) {
  StepRequests requests(c, message);
  for (const Transfer& t : step.receives) {
    const Segments target = t.staged ? Segments{t.staging} : t.segments;
    if (const int rc = requests.post(target, t.count, t.peer, t.port, false); rc != MPI_SUCCESS)
      return rc;
  }
  for (const Transfer& t : step.sends)
    if (const int rc = requests.post(t.segments, t.count, t.peer, t.port, true); rc != MPI_SUCCESS)
      return rc;
  // Snapshots of step-start copies: nothing writes their sources before Waitall returns.
  for (const LocalOp& op : step.copies)
    if (op.snapshot) copy(c, op.source, Segments{op.staging});
  if (const int rc = requests.wait(); rc != MPI_SUCCESS) return rc;
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

}  // namespace

int execute_plan(const Plan& plan, const ExecutionContext& context) {
  std::size_t message = 0;
  for (const CompiledStep& step : plan.steps)
    if (const int rc = run_step(step, context, message); rc != MPI_SUCCESS) return rc;
  return MPI_SUCCESS;
}

}  // namespace topocoll::mpi
