#include "checks.hpp"

#include <vector>

#include "topocoll_mpi.h"

namespace topocoll::mpitest {
namespace {

// Bytes of guard before and after every buffer: a write outside the buffer shows there.
constexpr std::size_t guard_bytes = 64;

// A buffer of `elements` elements between two guards. Every byte starts as a pattern no test
// value produces (chosen so that a double read from it stays finite and small); the bytes the
// call may define are then filled, the whole buffer is photographed just before the call, and
// after it every byte outside the data of the defined elements must be what it was.
class GuardedBuffer {
 public:
  GuardedBuffer(const TypeCase& t, std::uint64_t elements)
      : type_(t),
        elements_(elements),
        bytes_(guard_bytes +
               static_cast<std::size_t>(elements * static_cast<std::uint64_t>(t.extent)) +
               guard_bytes) {
    for (std::size_t i = 0; i < bytes_.size(); ++i) bytes_[i] = static_cast<char>(0x40 + i % 3);
  }
  char* data() { return bytes_.data() + guard_bytes; }
  [[nodiscard]] const char* data() const { return bytes_.data() + guard_bytes; }
  void photograph() { before_ = bytes_; }

  // The first byte that changed outside the data of elements [first, first + n).
  [[nodiscard]] std::optional<std::string> changed_outside(std::uint64_t first, std::uint64_t n,
                                                           const std::string& name) const {
    const auto extent = static_cast<std::uint64_t>(type_.extent);
    for (std::size_t i = 0; i < bytes_.size(); ++i) {
      if (bytes_[i] == before_[i]) continue;
      if (i < guard_bytes)
        return name + ": guard byte " + std::to_string(guard_bytes - i) +
               " before the buffer was overwritten";
      const std::uint64_t at = i - guard_bytes;
      const std::uint64_t element = at / extent;
      if (element >= elements_)
        return name + ": guard byte " + std::to_string(at - elements_ * extent) +
               " after the buffer (of " + std::to_string(elements_) + " elements) was overwritten";
      const auto in_element = static_cast<MPI_Aint>(at % extent);
      if (type_.is_gap(in_element))
        return name + " element " + std::to_string(element) +
               ": a gap byte of the datatype was overwritten";
      if (element < first || element >= first + n)
        return name + " element " + std::to_string(element) +
               " changed, which the call does not define (defined: " + std::to_string(first) +
               " to " + std::to_string(first + n) + ")";
    }
    return std::nullopt;
  }

 private:
  const TypeCase& type_;
  std::uint64_t elements_;
  std::vector<char> bytes_;
  std::vector<char> before_;
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
    r.rc = call();
    r.ran = topocoll_last_algorithm();
    r.mismatch = mismatch_;
    return r;
  }

 private:
  struct Watched {
    const GuardedBuffer* buffer;
    std::string name;
    std::uint64_t first, n;  // the elements the call defines
  };

  [[nodiscard]] Value value(int rank, std::uint64_t index) const {
    return test_value(kind_, rank, index, c_.type->width);
  }
  // Reduction over all ranks in rank order of element `index`.
  [[nodiscard]] Value reduced(std::uint64_t index) const {
    Value acc = value(0, index);
    for (int r = 1; r < size_; ++r) acc = combine(kind_, acc, value(r, index), c_.type->width);
    return acc;
  }
  void fill(GuardedBuffer& buffer, int rank, std::uint64_t first, std::uint64_t n,
            std::uint64_t at = 0) const {
    for (std::uint64_t i = 0; i < n; ++i)
      c_.type->write(buffer.data(), at + i, value(rank, first + i));
  }
  // Photographs `buffer` (call it after filling, right before the call); after the call only
  // the data of elements [first, first + n) may differ.
  void watch(GuardedBuffer& buffer, const std::string& name, std::uint64_t first = 0,
             std::uint64_t n = 0) {
    buffer.photograph();
    watched_.push_back({&buffer, name, first, n});
  }
  void expect(const GuardedBuffer& buffer, std::uint64_t index, const Value& want,
              const char* what) {
    if (mismatch_) return;
    const Value got = c_.type->read(buffer.data(), index);
    for (int k = 0; k < c_.type->width; ++k) {
      const auto i = static_cast<std::size_t>(k);
      if (got[i] != want[i]) {
        mismatch_ = std::string(what) + " element " + std::to_string(index) + " component " +
                    std::to_string(k) + ": expected " + std::to_string(want[i]) + " found " +
                    std::to_string(got[i]);
        return;
      }
    }
  }
  // Every watched buffer unchanged outside what the call defines.
  int finish(int rc) {
    for (const Watched& w : watched_) {
      if (mismatch_) break;
      mismatch_ = w.buffer->changed_outside(w.first, w.n, w.name);
    }
    watched_.clear();
    return rc;
  }

  int call() {
    const auto n = c_.count;
    const auto p = static_cast<std::uint64_t>(size_);
    const auto me = static_cast<std::uint64_t>(rank_);
    const TypeCase& type = *c_.type;
    const MPI_Datatype t = type.type;
    const char* algo = c_.algorithm.c_str();
    const MPI_Op op = c_.op ? c_.op->op : MPI_OP_NULL;
    const bool root = rank_ == c_.root;
    // Where the standard says a buffer is not significant (a non-root rank's receive buffer of
    // reduce and gather, its send buffer of scatter): a real buffer that must stay untouched
    // with root P-1, NULL with root 0.
    const bool pass_unused = c_.root != 0;
    switch (c_.coll) {
      case Coll::allreduce: {
        GuardedBuffer send(type, n), recv(type, n);
        fill(c_.in_place ? recv : send, rank_, 0, n);
        watch(send, "sendbuf");
        watch(recv, "recvbuf", 0, n);
        const int rc = topocoll_allreduce(c_.in_place ? MPI_IN_PLACE : send.data(), recv.data(),
                                          static_cast<MPI_Count>(n), t, op, c_.comm, algo);
        for (std::uint64_t i = 0; i < n; ++i) expect(recv, i, reduced(i), "recvbuf");
        return finish(rc);
      }
      case Coll::reduce: {
        GuardedBuffer send(type, n), recv(type, n);
        fill(root && c_.in_place ? recv : send, rank_, 0, n);
        watch(send, "sendbuf");
        watch(recv, "recvbuf", 0, root ? n : 0);
        const void* sbuf = root && c_.in_place ? MPI_IN_PLACE : send.data();
        void* rbuf = root || pass_unused ? recv.data() : nullptr;
        const int rc =
            topocoll_reduce(sbuf, rbuf, static_cast<MPI_Count>(n), t, op, c_.root, c_.comm, algo);
        if (root)
          for (std::uint64_t i = 0; i < n; ++i) expect(recv, i, reduced(i), "recvbuf");
        return finish(rc);
      }
      case Coll::reduce_scatter_block: {
        // In place, the input is the whole receive buffer and only its first n elements are
        // the result: the rest stays as the caller left it.
        GuardedBuffer send(type, p * n), recv(type, c_.in_place ? p * n : n);
        fill(c_.in_place ? recv : send, rank_, 0, p * n);
        watch(send, "sendbuf");
        watch(recv, "recvbuf", 0, n);
        const int rc =
            topocoll_reduce_scatter_block(c_.in_place ? MPI_IN_PLACE : send.data(), recv.data(),
                                          static_cast<MPI_Count>(n), t, op, c_.comm, algo);
        for (std::uint64_t j = 0; j < n; ++j) expect(recv, j, reduced(me * n + j), "recvbuf");
        return finish(rc);
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
        const auto own = static_cast<std::uint64_t>(counts[me]);
        GuardedBuffer send(type, total), recv(type, c_.in_place ? total : own);
        fill(c_.in_place ? recv : send, rank_, 0, total);
        watch(send, "sendbuf");
        watch(recv, "recvbuf", 0, own);
        const int rc = topocoll_reduce_scatter(c_.in_place ? MPI_IN_PLACE : send.data(),
                                               recv.data(), counts.data(), t, op, c_.comm, algo);
        for (std::uint64_t j = 0; j < own; ++j) expect(recv, j, reduced(mine + j), "recvbuf");
        return finish(rc);
      }
      case Coll::allgather: {
        GuardedBuffer send(type, n), recv(type, p * n);
        if (c_.in_place) {
          fill(recv, rank_, 0, n, me * n);
        } else {
          fill(send, rank_, 0, n);
        }
        watch(send, "sendbuf");
        watch(recv, "recvbuf", 0, p * n);
        const int rc =
            topocoll_allgather(c_.in_place ? MPI_IN_PLACE : send.data(), static_cast<MPI_Count>(n),
                               t, recv.data(), static_cast<MPI_Count>(n), t, c_.comm, algo);
        for (std::uint64_t r = 0; r < p; ++r)
          for (std::uint64_t j = 0; j < n; ++j)
            expect(recv, r * n + j, value(static_cast<int>(r), j), "recvbuf");
        return finish(rc);
      }
      case Coll::bcast: {
        GuardedBuffer buffer(type, n);
        if (root) fill(buffer, rank_, 0, n);
        watch(buffer, "buffer", 0, root ? 0 : n);
        const int rc =
            topocoll_bcast(buffer.data(), static_cast<MPI_Count>(n), t, c_.root, c_.comm, algo);
        for (std::uint64_t i = 0; i < n; ++i) expect(buffer, i, value(c_.root, i), "buffer");
        return finish(rc);
      }
      case Coll::gather: {
        GuardedBuffer send(type, n), recv(type, p * n);
        if (root && c_.in_place) {
          fill(recv, rank_, 0, n, me * n);
        } else {
          fill(send, rank_, 0, n);
        }
        watch(send, "sendbuf");
        watch(recv, "recvbuf", 0, root ? p * n : 0);
        const void* sbuf = root && c_.in_place ? MPI_IN_PLACE : send.data();
        void* rbuf = root || pass_unused ? recv.data() : nullptr;
        const int rc = topocoll_gather(sbuf, static_cast<MPI_Count>(n), t, rbuf,
                                       static_cast<MPI_Count>(n), t, c_.root, c_.comm, algo);
        if (root)
          for (std::uint64_t r = 0; r < p; ++r)
            for (std::uint64_t j = 0; j < n; ++j)
              expect(recv, r * n + j, value(static_cast<int>(r), j), "recvbuf");
        return finish(rc);
      }
      case Coll::scatter: {
        GuardedBuffer send(type, p * n), recv(type, n);
        if (root) fill(send, rank_, 0, p * n);
        // In place, the root's chunk stays where it is in sendbuf and recvbuf is not used.
        const bool in_place = root && c_.in_place;
        watch(send, "sendbuf");
        watch(recv, "recvbuf", 0, in_place ? 0 : n);
        void* sbuf = root || pass_unused ? send.data() : nullptr;
        void* rbuf = in_place ? MPI_IN_PLACE : recv.data();
        const int rc = topocoll_scatter(sbuf, static_cast<MPI_Count>(n), t, rbuf,
                                        static_cast<MPI_Count>(n), t, c_.root, c_.comm, algo);
        const GuardedBuffer& mine = in_place ? send : recv;
        const std::uint64_t at = in_place ? me * n : 0;
        for (std::uint64_t j = 0; j < n; ++j)
          expect(mine, at + j, value(c_.root, me * n + j), "recvbuf");
        return finish(rc);
      }
      case Coll::alltoall: {
        GuardedBuffer send(type, p * n), recv(type, p * n);
        fill(c_.in_place ? recv : send, rank_, 0, p * n);
        watch(send, "sendbuf");
        watch(recv, "recvbuf", 0, p * n);
        const int rc =
            topocoll_alltoall(c_.in_place ? MPI_IN_PLACE : send.data(), static_cast<MPI_Count>(n),
                              t, recv.data(), static_cast<MPI_Count>(n), t, c_.comm, algo);
        for (std::uint64_t s = 0; s < p; ++s)
          for (std::uint64_t j = 0; j < n; ++j)
            expect(recv, s * n + j, value(static_cast<int>(s), me * n + j), "recvbuf");
        return finish(rc);
      }
    }
    return MPI_ERR_INTERN;
  }

  const CheckCase& c_;
  int rank_ = 0, size_ = 0;
  TestOp kind_ = TestOp::sum;
  std::optional<std::string> mismatch_;
  std::vector<Watched> watched_;
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
