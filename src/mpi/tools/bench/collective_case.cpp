#include "collective_case.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

#include "topocoll_mpi.h"

namespace topocoll::bench {
namespace {

// The vector of these is P blocks of count / P elements (MPI_Reduce_scatter takes any counts).
bool chunked(Call c) {
  return c == Call::reduce_scatter_block || c == Call::allgather || c == Call::gather ||
         c == Call::scatter || c == Call::alltoall;
}

const std::vector<CollectiveSpec>& specs() {
  static const std::vector<CollectiveSpec> all = [] {
    std::vector<CollectiveSpec> out;
    for (const auto& c : mpi::kMpiCollectives)  // Open MPI's tuned names are MPI's names
      out.push_back(
          {c.name, c.id, c.core, is_reduction(c.core), is_rooted(c.core), chunked(c.id), c.name});
    return out;
  }();
  return all;
}

int as_int(std::uint64_t n) { return n > INT_MAX ? -1 : static_cast<int>(n); }

}  // namespace

double CollectiveSpec::busbw_factor(int ranks) const {
  const double n = ranks;
  switch (call) {
    case Call::allreduce: return 2 * (n - 1) / n;
    case Call::bcast:
    case Call::reduce: return 1;
    default: return (n - 1) / n;  // reduce-scatter, allgather, alltoall; gather, scatter alike
  }
}

const CollectiveSpec* find_collective(std::string name) {
  std::replace(name.begin(), name.end(), '-', '_');
  for (const auto& s : specs())
    if (s.name == name) return &s;
  return nullptr;
}

std::string collective_names() {
  std::string out;
  for (const auto& s : specs()) out += (out.empty() ? "" : ", ") + s.name;
  return out;
}

CollectiveCase::CollectiveCase(const CollectiveSpec& spec, const Pattern& pattern, int rank,
                               int ranks, int root, std::uint64_t bytes)
    : spec_(spec), pattern_(pattern), rank_(rank), ranks_(ranks), root_(root) {
  const std::uint64_t size = pattern.type().size;
  count_ = bytes / size;
  if (spec.chunked) {
    block_ = count_ / ranks;
    count_ = block_ * ranks;
  }
  const auto& p = pattern_;
  const std::uint64_t n = count_, b = block_;
  const int me = rank;
  std::uint64_t send_n = n, recv_n = n;
  switch (spec.call) {
    case Call::allreduce: break;
    case Call::reduce_scatter_block: recv_n = b; break;
    case Call::reduce_scatter:
      build_uneven_counts();
      recv_n = recv_counts_[rank];
      break;
    case Call::allgather: send_n = b; break;
    case Call::bcast: send_n = 0; break;
    case Call::reduce: check_output_ = rank == root; break;
    case Call::gather:
      send_n = b;
      recv_n = rank == root ? n : 0;
      break;
    case Call::scatter:
      send_n = rank == root ? n : 0;
      recv_n = b;
      break;
    case Call::alltoall: break;
  }
  send_.resize(send_n * size);
  send_pristine_.resize(send_n * size);
  recv_.resize(recv_n * size);
  expected_.resize(recv_n * size);
  poison_.resize(recv_n * size);
  p.poison(poison_.data(), recv_n);

  auto fill_send = [&](auto f) { p.fill(send_pristine_.data(), send_n, f); };
  auto fill_expected = [&](auto f) { p.fill(expected_.data(), recv_n, f); };
  switch (spec.call) {
    case Call::allreduce:
    case Call::reduce:
      fill_send([&](std::uint64_t j) { return p.value(me, j); });
      if (check_output_) fill_expected([&](std::uint64_t j) { return p.reduced(j); });
      break;
    case Call::reduce_scatter_block:
    case Call::reduce_scatter: {
      const std::uint64_t first = spec.call == Call::reduce_scatter ? recv_offset_ : me * b;
      fill_send([&](std::uint64_t j) { return p.value(me, j); });
      fill_expected([&](std::uint64_t j) { return p.reduced(first + j); });
      break;
    }
    case Call::allgather:
    case Call::gather:
      fill_send([&](std::uint64_t j) { return p.value(me, me * b + j); });
      fill_expected([&](std::uint64_t j) { return p.value(static_cast<int>(j / b), j); });
      break;
    case Call::bcast:
      // The buffer is both input (at the root) and output (everywhere).
      fill_expected([&](std::uint64_t j) { return p.value(root, j); });
      break;
    case Call::scatter:
      fill_send([&](std::uint64_t j) { return p.value(root, j); });
      fill_expected([&](std::uint64_t j) { return p.value(root, me * b + j); });
      break;
    case Call::alltoall:
      // Block d of rank s is meant for d; it arrives as block s of rank d.
      fill_send([&](std::uint64_t j) { return p.value(me, j); });
      fill_expected(
          [&](std::uint64_t j) { return p.value(static_cast<int>(j / b), me * b + j % b); });
      break;
  }
}

void CollectiveCase::build_uneven_counts() {
  // Uneven on purpose: the first count % P ranks get one element more.
  recv_counts_.assign(ranks_, static_cast<int>(count_ / ranks_));
  for (std::uint64_t r = 0; r < count_ % ranks_; ++r) ++recv_counts_[r];
  recv_offset_ = 0;
  for (int r = 0; r < rank_; ++r) recv_offset_ += recv_counts_[r];
}

void CollectiveCase::prepare() {
  std::memcpy(send_.data(), send_pristine_.data(), send_.size());
  if (spec_.call == Call::bcast && rank_ == root_)
    std::memcpy(recv_.data(), expected_.data(), recv_.size());
  else
    std::memcpy(recv_.data(), poison_.data(), recv_.size());
}

int CollectiveCase::run(MPI_Comm comm, const char* algorithm, MPI_Op op) {
  const MPI_Datatype t = pattern_.type().mpi;
  void* s = send_.data();
  void* r = recv_.data();
  const std::uint64_t n = count_, b = block_;
  const bool mpi = algorithm == nullptr;
  if (mpi && as_int(n) < 0) return MPI_ERR_COUNT;  // MPI-3 collectives take int counts
  switch (spec_.call) {
    case Call::allreduce:
      return mpi ? MPI_Allreduce(s, r, as_int(n), t, op, comm)
                 : topocoll_allreduce(s, r, n, t, op, comm, algorithm);
    case Call::reduce_scatter_block:
      return mpi ? MPI_Reduce_scatter_block(s, r, as_int(b), t, op, comm)
                 : topocoll_reduce_scatter_block(s, r, b, t, op, comm, algorithm);
    case Call::reduce_scatter:
      return mpi ? MPI_Reduce_scatter(s, r, recv_counts_.data(), t, op, comm)
                 : topocoll_reduce_scatter(s, r, recv_counts_.data(), t, op, comm, algorithm);
    case Call::allgather:
      return mpi ? MPI_Allgather(s, as_int(b), t, r, as_int(b), t, comm)
                 : topocoll_allgather(s, b, t, r, b, t, comm, algorithm);
    case Call::bcast:
      return mpi ? MPI_Bcast(r, as_int(n), t, root_, comm)
                 : topocoll_bcast(r, n, t, root_, comm, algorithm);
    case Call::reduce:
      return mpi ? MPI_Reduce(s, r, as_int(n), t, op, root_, comm)
                 : topocoll_reduce(s, r, n, t, op, root_, comm, algorithm);
    case Call::gather:
      return mpi ? MPI_Gather(s, as_int(b), t, r, as_int(b), t, root_, comm)
                 : topocoll_gather(s, b, t, r, b, t, root_, comm, algorithm);
    case Call::scatter:
      return mpi ? MPI_Scatter(s, as_int(b), t, r, as_int(b), t, root_, comm)
                 : topocoll_scatter(s, b, t, r, b, t, root_, comm, algorithm);
    case Call::alltoall:
      return mpi ? MPI_Alltoall(s, as_int(b), t, r, as_int(b), t, comm)
                 : topocoll_alltoall(s, b, t, r, b, t, comm, algorithm);
  }
  return MPI_ERR_OTHER;
}

std::uint64_t CollectiveCase::wrong() const {
  const std::uint64_t size = pattern_.type().size;
  std::uint64_t bad =
      pattern_.count_wrong(send_.data(), send_pristine_.data(), send_.size() / size);
  if (check_output_)
    bad += pattern_.count_wrong(recv_.data(), expected_.data(), recv_.size() / size);
  return bad;
}

}  // namespace topocoll::bench
