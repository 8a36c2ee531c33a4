// One collective timed as a program calls it (the C API with an algorithm name, so the
// selection is the runtime's own), on MPI_INT data that depends on rank and element, with
// every repetition's output checked; each repetition started on every rank at one instant of
// a common clock and timed to the end of the last rank's call (start_window.hpp).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "call.hpp"
#include "collectives.hpp"
#include "core/registry.hpp"
#include "measure.hpp"
#include "measure_support.hpp"
#include "mpi_collective.hpp"
#include "start_window.hpp"

namespace topocoll::mpi {
namespace {

using namespace measuring;

const MpiCollectiveInfo* find_collective(const char* name) {
  if (!name) return nullptr;
  std::string n(name);
  std::replace(n.begin(), n.end(), '-', '_');
  for (const auto& c : kMpiCollectives)
    if (n == c.name) return &c;
  return nullptr;
}

std::string collective_names() {
  std::string out;
  for (const auto& c : kMpiCollectives) out += (out.empty() ? "" : ", ") + std::string(c.name);
  return out;
}

// Chunked collectives move P blocks of count / P elements.
bool chunked(MpiCollective c) {
  return c == MpiCollective::reduce_scatter_block || c == MpiCollective::allgather ||
         c == MpiCollective::gather || c == MpiCollective::scatter || c == MpiCollective::alltoall;
}

// Rank r's contribution at element j of the whole vector: small, so sums stay exact.
int value(int r, std::uint64_t j) { return static_cast<int>((r * 7 + j) % 61) + 1; }

// The buffers of one rank and the output every call must produce (root 0, MPI_SUM).
class Case {
 public:
  Case(MpiCollective c, int me, int p, std::uint64_t bytes) : c_(c), me_(me), p_(p) {
    n_ = bytes / sizeof(int);
    if (chunked(c)) n_ -= n_ % static_cast<std::uint64_t>(p);
    b_ = n_ / static_cast<std::uint64_t>(p);
    fill();
  }

  // The buffers as a call finds them: outside the timed region, since at 64 MiB resetting them
  // takes as long as the collective itself (docs/validation.md).
  void reset() {
    std::copy(send_initial_.begin(), send_initial_.end(), send_.begin());
    std::fill(recv_.begin(), recv_.end(), -1);  // never a contribution nor a sum
    if (c_ == MpiCollective::bcast && me_ == 0) recv_ = expected_;
  }

  int run(MPI_Comm comm, const char* algorithm) {
    int* s = send_.data();
    int* r = recv_.data();
    const auto n = static_cast<MPI_Count>(n_), b = static_cast<MPI_Count>(b_);
    switch (c_) {
      case MpiCollective::allreduce: return allreduce(s, r, n, MPI_INT, MPI_SUM, comm, algorithm);
      case MpiCollective::reduce_scatter_block:
        return reduce_scatter_block(s, r, b, MPI_INT, MPI_SUM, comm, algorithm);
      case MpiCollective::reduce_scatter:
        return reduce_scatter(s, r, counts_.data(), MPI_INT, MPI_SUM, comm, algorithm);
      case MpiCollective::allgather:
        return allgather(s, b, MPI_INT, r, b, MPI_INT, comm, algorithm);
      case MpiCollective::bcast: return bcast(r, n, MPI_INT, 0, comm, algorithm);
      case MpiCollective::reduce: return reduce(s, r, n, MPI_INT, MPI_SUM, 0, comm, algorithm);
      case MpiCollective::gather: return gather(s, b, MPI_INT, r, b, MPI_INT, 0, comm, algorithm);
      case MpiCollective::scatter: return scatter(s, b, MPI_INT, r, b, MPI_INT, 0, comm, algorithm);
      case MpiCollective::alltoall: return alltoall(s, b, MPI_INT, r, b, MPI_INT, comm, algorithm);
    }
    return MPI_ERR_INTERN;
  }

  // Elements of this rank's output that differ from the expected ones.
  [[nodiscard]] std::uint64_t wrong() const {
    if (c_ == MpiCollective::reduce && me_ != 0) return 0;
    std::uint64_t bad = 0;
    for (std::size_t i = 0; i < expected_.size(); ++i) bad += recv_[i] != expected_[i];
    return bad;
  }

 private:
  int sum(std::uint64_t j) const {
    int total = 0;
    for (int r = 0; r < p_; ++r) total += value(r, j);
    return total;
  }

  void fill() {
    const std::uint64_t n = n_, b = b_;
    const auto me = static_cast<std::uint64_t>(me_);
    auto send = [&](std::uint64_t count, auto f) {
      for (std::uint64_t j = 0; j < count; ++j) send_initial_.push_back(f(j));
    };
    auto expect = [&](std::uint64_t count, auto f) {
      for (std::uint64_t j = 0; j < count; ++j) expected_.push_back(f(j));
    };
    switch (c_) {
      case MpiCollective::allreduce:
      case MpiCollective::reduce:
        send(n, [&](std::uint64_t j) { return value(me_, j); });
        expect(n, [&](std::uint64_t j) { return sum(j); });
        break;
      case MpiCollective::reduce_scatter_block:
        send(n, [&](std::uint64_t j) { return value(me_, j); });
        expect(b, [&](std::uint64_t j) { return sum(me * b + j); });
        break;
      case MpiCollective::reduce_scatter: {
        // Uneven on purpose: the first n % P ranks get one element more.
        std::uint64_t first = 0;
        for (int r = 0; r < p_; ++r) {
          counts_.push_back(static_cast<int>(b + (static_cast<std::uint64_t>(r) < n % p_)));
          if (r < me_) first += static_cast<std::uint64_t>(counts_.back());
        }
        send(n, [&](std::uint64_t j) { return value(me_, j); });
        expect(static_cast<std::uint64_t>(counts_[me]),
               [&](std::uint64_t j) { return sum(first + j); });
        break;
      }
      case MpiCollective::allgather:
        send(b, [&](std::uint64_t j) { return value(me_, me * b + j); });
        expect(n, [&](std::uint64_t j) { return value(static_cast<int>(j / b), j); });
        break;
      case MpiCollective::bcast: expect(n, [&](std::uint64_t j) { return value(0, j); }); break;
      case MpiCollective::gather:
        send(b, [&](std::uint64_t j) { return value(me_, me * b + j); });
        if (me_ == 0) expect(n, [&](std::uint64_t j) { return value(static_cast<int>(j / b), j); });
        break;
      case MpiCollective::scatter:
        if (me_ == 0) send(n, [&](std::uint64_t j) { return value(0, j); });
        expect(b, [&](std::uint64_t j) { return value(0, me * b + j); });
        break;
      case MpiCollective::alltoall:
        send(n, [&](std::uint64_t j) { return value(me_, j); });
        expect(n, [&](std::uint64_t j) { return value(static_cast<int>(j / b), me * b + j % b); });
        break;
    }
    send_.resize(std::max<std::size_t>(send_initial_.size(), 1));
    recv_.resize(std::max<std::size_t>(expected_.size(), 1));
  }

  MpiCollective c_;
  int me_, p_;
  std::uint64_t n_ = 0, b_ = 0;
  std::vector<int> send_initial_, send_, recv_, expected_, counts_;
};

// A registry name must name an algorithm of the collective; "auto", "mpi", "file:PATH" and
// NULL (TOPOCOLL_<COLL>_ALGORITHM) are the runtime's to resolve.
void check_algorithm(const MpiCollectiveInfo& c, const char* algorithm) {
  if (!algorithm) return;
  const std::string name(algorithm);
  if (name == "auto" || name == "mpi" || name.starts_with("file:")) return;
  const AlgorithmInfo* a = registry().find(name);
  if (!a || !a->supports(c.core))
    throw BadArgument(MPI_ERR_ARG, "algorithm '" + name + "' " +
                                       (a ? "does not implement " : "is unknown for ") + c.name +
                                       "; accepted: auto, mpi, file:PATH or a registry name "
                                       "(topocoll algorithms)");
}

bool is_registry_name(const char* algorithm) {
  if (!algorithm) return false;
  const std::string name(algorithm);
  return name != "auto" && name != "mpi" && !name.starts_with("file:");
}

}  // namespace

int time_collective(MPI_Comm comm, const char* collective, const char* algorithm, MPI_Count bytes,
                    int warmup, int repetitions, double* times, MPI_Count* wrong) {
  return guarded([&] {
    const MpiCollectiveInfo* c = find_collective(collective);
    if (!c)
      throw BadArgument(MPI_ERR_ARG, "unknown collective '" +
                                         std::string(collective ? collective : "(null)") +
                                         "'; accepted: " + collective_names());
    if (bytes < 0 || bytes > (MPI_Count{1} << 40))
      throw BadArgument(MPI_ERR_COUNT, "bytes must be from 0 to 2^40");
    if (warmup < 0 || repetitions < 1)
      throw BadArgument(MPI_ERR_ARG, "warmup must be >= 0 and repetitions >= 1");
    if (!times || !wrong) throw BadArgument(MPI_ERR_ARG, "times and wrong must not be NULL");
    PrivateComm pc(comm, 1);
    require_agreement(
        pc.get(),
        {static_cast<std::int64_t>(c->id), bytes, warmup, repetitions,
         static_cast<std::int64_t>(std::hash<std::string>{}(algorithm ? algorithm : ""))},
        "collective, bytes, warmup, repetitions or algorithm");
    check_algorithm(*c, algorithm);
    Case call(c->id, pc.rank(), pc.size(), static_cast<std::uint64_t>(bytes));
    std::vector<double> t;
    std::uint64_t bad = 0;
    StartWindow window(pc.get());
    for (int i = 0; i < warmup + repetitions; ++i) {
      int rc = MPI_SUCCESS;
      const double elapsed =
          window.time([&] { call.reset(); }, [&] { return call.run(comm, algorithm); }, rc);
      if (rc != MPI_SUCCESS) {
        set_error(std::string(c->name) + " returned an MPI error: " + last_reason());
        return rc;
      }
      if (i == 0 && is_registry_name(algorithm)) {
        int fell_back = std::string(last_algorithm()) != algorithm;
        check(PMPI_Allreduce(MPI_IN_PLACE, &fell_back, 1, MPI_INT, MPI_MAX, pc.get()),
              "MPI_Allreduce");
        if (fell_back)
          throw BadArgument(MPI_ERR_ARG, std::string(algorithm) + " did not serve " + c->name +
                                             " (served by " + last_algorithm() + ": " +
                                             last_reason() + ")");
      }
      bad += call.wrong();
      if (i >= warmup) t.push_back(elapsed);
    }
    long long total = static_cast<long long>(bad);
    check(PMPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_LONG_LONG, MPI_SUM, pc.get()),
          "MPI_Allreduce");
    std::copy(t.begin(), t.end(), times);
    *wrong = static_cast<MPI_Count>(total);
    return MPI_SUCCESS;
  });
}

}  // namespace topocoll::mpi
