#include "checks.hpp"

#include <vector>

#include "topocoll_mpi.h"

namespace topocoll::mpitest {
namespace {

constexpr char sentinel = 0x5A;

struct Buffer {
  std::vector<char> bytes;
  Buffer(const TypeCase& t, std::uint64_t elements)
      : bytes(static_cast<std::size_t>(elements * static_cast<std::uint64_t>(t.extent)) + 64,
              sentinel) {}
  char* data() { return bytes.data(); }
};

class Checker {
 public:
  explicit Checker(const CheckCase& c) : c_(c) {
    MPI_Comm_rank(c.comm, &rank_);
    MPI_Comm_size(c.comm, &size_);
    kind_ = c.op ? c.op->kind : TestOp::sum;
  }

  CheckResult run() {
    CheckResult r;
    r.rc = call(r);
    r.ran = topocoll_last_algorithm();
    r.mismatch = mismatch_;
    return r;
  }

 private:
  [[nodiscard]] Value value(int rank, std::uint64_t index) const {
    return test_value(kind_, rank, index, c_.type->width);
  }
  // Reduction over all ranks in rank order of element `index`.
  [[nodiscard]] Value reduced(std::uint64_t index) const {
    Value acc = value(0, index);
    for (int r = 1; r < size_; ++r) acc = combine(kind_, acc, value(r, index), c_.type->width);
    return acc;
  }
  void fill(char* buffer, int rank, std::uint64_t first, std::uint64_t n,
            std::uint64_t at = 0) const {
    for (std::uint64_t i = 0; i < n; ++i) c_.type->write(buffer, at + i, value(rank, first + i));
  }
  void expect(const char* buffer, std::uint64_t index, const Value& want, const char* what) {
    if (mismatch_) return;
    const Value got = c_.type->read(buffer, index);
    for (int k = 0; k < c_.type->width; ++k) {
      const auto i = static_cast<std::size_t>(k);
      if (got[i] != want[i]) {
        mismatch_ = std::string(what) + " element " + std::to_string(index) + " component " +
                    std::to_string(k) + ": expected " + std::to_string(want[i]) + " found " +
                    std::to_string(got[i]);
        return;
      }
    }
    const char* element = buffer + static_cast<MPI_Aint>(index) * c_.type->extent;
    for (MPI_Aint b = 0; b < c_.type->extent; ++b) {
      if (c_.type->is_gap(b) && element[b] != sentinel) {
        mismatch_ = std::string(what) + " element " + std::to_string(index) +
                    ": a gap byte of the datatype was overwritten";
        return;
      }
    }
  }

  int call(CheckResult&) {
    const auto n = c_.count;
    const auto p = static_cast<std::uint64_t>(size_);
    const auto me = static_cast<std::uint64_t>(rank_);
    const MPI_Datatype t = c_.type->type;
    const char* algo = c_.algorithm.c_str();
    const MPI_Op op = c_.op ? c_.op->op : MPI_OP_NULL;
    switch (c_.coll) {
      case Coll::allreduce: {
        Buffer send(*c_.type, n), recv(*c_.type, n);
        fill(c_.in_place ? recv.data() : send.data(), rank_, 0, n);
        const int rc = topocoll_allreduce(c_.in_place ? MPI_IN_PLACE : send.data(), recv.data(),
                                          static_cast<MPI_Count>(n), t, op, c_.comm, algo);
        for (std::uint64_t i = 0; i < n; ++i) expect(recv.data(), i, reduced(i), "recvbuf");
        return rc;
      }
      case Coll::reduce: {
        const bool root = rank_ == c_.root;
        Buffer send(*c_.type, n), recv(*c_.type, n);
        fill(root && c_.in_place ? recv.data() : send.data(), rank_, 0, n);
        const void* sbuf = root && c_.in_place ? MPI_IN_PLACE : send.data();
        const int rc = topocoll_reduce(sbuf, root ? recv.data() : nullptr,
                                       static_cast<MPI_Count>(n), t, op, c_.root, c_.comm, algo);
        if (root)
          for (std::uint64_t i = 0; i < n; ++i) expect(recv.data(), i, reduced(i), "recvbuf");
        return rc;
      }
      case Coll::reduce_scatter_block: {
        Buffer send(*c_.type, p * n), recv(*c_.type, c_.in_place ? p * n : n);
        fill(c_.in_place ? recv.data() : send.data(), rank_, 0, p * n);
        const int rc =
            topocoll_reduce_scatter_block(c_.in_place ? MPI_IN_PLACE : send.data(), recv.data(),
                                          static_cast<MPI_Count>(n), t, op, c_.comm, algo);
        for (std::uint64_t j = 0; j < n; ++j)
          expect(recv.data(), j, reduced(me * n + j), "recvbuf");
        return rc;
      }
      case Coll::reduce_scatter: {
        // Uneven counts, some zero: chunk r holds counts[r] elements.
        std::vector<int> counts(p);
        std::uint64_t total = 0, mine = 0;
        for (std::uint64_t r = 0; r < p; ++r) {
          counts[r] = n == 0 || r % 3 == 1 ? 0 : static_cast<int>(n + r % 2);
          if (r == me) mine = total;
          total += static_cast<std::uint64_t>(counts[r]);
        }
        Buffer send(*c_.type, total), recv(*c_.type, c_.in_place ? total : counts[me]);
        fill(c_.in_place ? recv.data() : send.data(), rank_, 0, total);
        const int rc = topocoll_reduce_scatter(c_.in_place ? MPI_IN_PLACE : send.data(),
                                               recv.data(), counts.data(), t, op, c_.comm, algo);
        for (int j = 0; j < counts[me]; ++j)
          expect(recv.data(), static_cast<std::uint64_t>(j),
                 reduced(mine + static_cast<std::uint64_t>(j)), "recvbuf");
        return rc;
      }
      case Coll::allgather: {
        Buffer send(*c_.type, n), recv(*c_.type, p * n);
        if (c_.in_place) {
          fill(recv.data(), rank_, 0, n, me * n);
        } else {
          fill(send.data(), rank_, 0, n);
        }
        const int rc =
            topocoll_allgather(c_.in_place ? MPI_IN_PLACE : send.data(), static_cast<MPI_Count>(n),
                               t, recv.data(), static_cast<MPI_Count>(n), t, c_.comm, algo);
        for (std::uint64_t r = 0; r < p; ++r)
          for (std::uint64_t j = 0; j < n; ++j)
            expect(recv.data(), r * n + j, value(static_cast<int>(r), j), "recvbuf");
        return rc;
      }
      case Coll::bcast: {
        Buffer buffer(*c_.type, n);
        if (rank_ == c_.root) fill(buffer.data(), rank_, 0, n);
        const int rc =
            topocoll_bcast(buffer.data(), static_cast<MPI_Count>(n), t, c_.root, c_.comm, algo);
        for (std::uint64_t i = 0; i < n; ++i) expect(buffer.data(), i, value(c_.root, i), "buffer");
        return rc;
      }
      case Coll::gather: {
        const bool root = rank_ == c_.root;
        Buffer send(*c_.type, n), recv(*c_.type, p * n);
        if (root && c_.in_place) {
          fill(recv.data(), rank_, 0, n, me * n);
        } else {
          fill(send.data(), rank_, 0, n);
        }
        const void* sbuf = root && c_.in_place ? MPI_IN_PLACE : send.data();
        const int rc =
            topocoll_gather(sbuf, static_cast<MPI_Count>(n), t, root ? recv.data() : nullptr,
                            static_cast<MPI_Count>(n), t, c_.root, c_.comm, algo);
        if (root)
          for (std::uint64_t r = 0; r < p; ++r)
            for (std::uint64_t j = 0; j < n; ++j)
              expect(recv.data(), r * n + j, value(static_cast<int>(r), j), "recvbuf");
        return rc;
      }
      case Coll::scatter: {
        const bool root = rank_ == c_.root;
        Buffer send(*c_.type, p * n), recv(*c_.type, n);
        if (root) fill(send.data(), rank_, 0, p * n);
        void* rbuf = root && c_.in_place ? MPI_IN_PLACE : recv.data();
        const int rc = topocoll_scatter(root ? send.data() : nullptr, static_cast<MPI_Count>(n), t,
                                        rbuf, static_cast<MPI_Count>(n), t, c_.root, c_.comm, algo);
        const char* mine = root && c_.in_place ? send.data() : recv.data();
        const std::uint64_t at = root && c_.in_place ? me * n : 0;
        for (std::uint64_t j = 0; j < n; ++j)
          expect(mine, at + j, value(c_.root, me * n + j), "recvbuf");
        return rc;
      }
      case Coll::alltoall: {
        Buffer send(*c_.type, p * n), recv(*c_.type, p * n);
        fill(c_.in_place ? recv.data() : send.data(), rank_, 0, p * n);
        const int rc =
            topocoll_alltoall(c_.in_place ? MPI_IN_PLACE : send.data(), static_cast<MPI_Count>(n),
                              t, recv.data(), static_cast<MPI_Count>(n), t, c_.comm, algo);
        for (std::uint64_t s = 0; s < p; ++s)
          for (std::uint64_t j = 0; j < n; ++j)
            expect(recv.data(), s * n + j, value(static_cast<int>(s), me * n + j), "recvbuf");
        return rc;
      }
    }
    return MPI_ERR_INTERN;
  }

  const CheckCase& c_;
  int rank_ = 0, size_ = 0;
  TestOp kind_ = TestOp::sum;
  std::optional<std::string> mismatch_;
};

}  // namespace

std::string describe(const CheckCase& c) {
  std::string s = c.algorithm + " " + coll_name(c.coll) + " type=" + c.type->name;
  if (c.op) s += " op=" + c.op->name;
  s += " count=" + std::to_string(c.count) + " in_place=" + (c.in_place ? "1" : "0");
  if (is_rooted(c.coll)) s += " root=" + std::to_string(c.root);
  return s;
}

CheckResult run_check(const CheckCase& c) { return Checker(c).run(); }

}  // namespace topocoll::mpitest
