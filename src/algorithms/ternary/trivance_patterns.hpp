#pragma once
// One-dimensional communication patterns of the Trivance and Bruck families (trivance.txt
// sections 2.4, 4 and 4.4). A ring pattern is written on ring coordinates 0..n-1; the torus
// schedules in trivance_torus.hpp lift it to one dimension of a torus.
#include <memory>
#include <vector>

#include "core/block_set.hpp"
#include "core/operation.hpp"

namespace topocoll::algorithms {

// 3^k (k <= 39 fits).
[[nodiscard]] constexpr long long pow3(int k) {
  long long p = 1;
  while (k-- > 0) p *= 3;
  return p;
}

// Ring coordinates first + i * stride for i < count, all in [0, n): a piece of a block set that
// does not wrap around the ring.
struct Progression {
  long long first = 0;
  long long count = 0;
  long long stride = 1;
};

// A reduce-scatter on a ring whose time reverse is the matching allgather. Block d is owned by
// coordinate d. At step k every coordinate q sends on port p to q + offset(k, p) the partial
// sums of the blocks sends(q, k, p), and so receives sends(q - offset(k, p), k, p) on port p.
class RingPattern {
 public:
  virtual ~RingPattern() = default;
  [[nodiscard]] virtual int size() const = 0;
  [[nodiscard]] virtual int steps() const = 0;
  [[nodiscard]] virtual long long offset(int k, int port) const = 0;
  // Blocks sent (may be empty: then there is no message).
  virtual void sends(int q, int k, int port, std::vector<Progression>& out) const = 0;
  // Blocks q still holds before step k (k = steps(): only q).
  virtual void held(int q, int k, std::vector<Progression>& out) const = 0;
};

// Where the blocks of a ring sit in the vector. The patterns send residue classes modulo 3^(k+1)
// in step k; grouping the blocks by their residue modulo 3^t, the groups ordered by the reversed
// ternary digits of the residue, makes the classes of the first t steps few contiguous ranges
// and leaves n / 3^(k+1) single blocks in the later steps. t = 0 is the identity (MPI's layout,
// for reduce-scatter and allgather); allreduce may place its blocks freely and takes
// 3^t ~ sqrt(n), so messages have O(sqrt(n)) ranges instead of O(n).
class RingLayout {
 public:
  RingLayout(int n, int t);
  [[nodiscard]] static int balanced_digits(int n);  // the t above for an allreduce
  [[nodiscard]] long long position(long long d) const;
  // The coordinate at each position: the inverse of position().
  [[nodiscard]] std::vector<int> coordinates() const;
  // The positions of the blocks of `pieces`, as sorted disjoint ranges, touching ones merged.
  void positions(const std::vector<Progression>& pieces, std::vector<BlockRange>& out) const;

 private:
  void append(const Progression& p, std::vector<BlockRange>& out) const;
  long long n_;
  long long modulus_;             // 3^t
  std::vector<long long> start_;  // start_[r]: position of the first block of residue r
};

// Trivance reduce-scatter (sections 4.1, 4.3, 4.4): peers q +- 3^k, any n.
[[nodiscard]] std::shared_ptr<const RingPattern> trivance_ring(int n);
// Bruck reduce-scatter with both ports to the same side (section 2.4): peers q + 3^k and
// q + 2 * 3^k, any n.
[[nodiscard]] std::shared_ptr<const RingPattern> bruck_ring(int n);

// A latency-optimal allreduce on a ring that moves the whole vector: per step and coordinate,
// a list of sends, receives and local copies of whole (lane) vectors. Slot 0 is the user vector;
// slots 1 .. slots() - 1 are scratch (partial sums kept between steps).
struct LatencyOp {
  OpKind kind = OpKind::send;
  int peer = 0;                       // send and recv
  int port = 0;                       // send and recv
  Combine combine = Combine::reduce;  // recv and copy
  int slot = 0;                       // send: slot read; recv and copy: slot written
  int source = 0;                     // copy only
  bool after_receives = false;        // copy only: reads its source after the step's receives
};

class LatencyRing {
 public:
  virtual ~LatencyRing() = default;
  [[nodiscard]] virtual int size() const = 0;
  [[nodiscard]] virtual int steps() const = 0;
  // Slots per coordinate. With scratch (> 1) the ring keeps state between its steps, so a
  // torus must not interleave another dimension's steps with it.
  [[nodiscard]] virtual int slots() const { return 1; }
  virtual void ops(int q, int k, std::vector<LatencyOp>& out) const = 0;
};

// Whole-vector Trivance (section 4.2) and Bruck (section 2.4), ceil(log3 n) steps. n = 3^s and
// n = 2 * 3^(s-1) tile with whole windows; other n end with one step of partial sums (section
// 4.4), see trivance_patterns.cpp. The n where no such last step exists (Trivance only: 84 of
// 2..243, e.g. 25, 26 and all n in (8 * 3^(s-2), 3^s)) fold onto a core of 3^(s-1) ranks,
// ceil(log3 n) + 1 steps.
[[nodiscard]] std::shared_ptr<const LatencyRing> trivance_latency_ring(int n);
[[nodiscard]] std::shared_ptr<const LatencyRing> bruck_latency_ring(int n);

}  // namespace topocoll::algorithms
