#pragma once
// One-dimensional communication patterns of the Trivance and Bruck families (trivance.txt
// sections 2.4, 4 and 4.4). A ring pattern is written on ring coordinates 0..n-1; the torus
// schedules in trivance_torus.hpp lift it to one dimension of a torus.
#include <memory>
#include <vector>

#include "core/block_set.hpp"
#include "core/operation.hpp"

namespace topocoll::algorithms {

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
  // The positions of the blocks of `pieces`, as sorted disjoint ranges.
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
// a list of sends and receives of the whole (lane) vector.
struct LatencyOp {
  OpKind kind = OpKind::send;  // send or recv
  int peer = 0;
  int port = 0;
  Combine combine = Combine::reduce;  // receives only
};

class LatencyRing {
 public:
  virtual ~LatencyRing() = default;
  [[nodiscard]] virtual int size() const = 0;
  [[nodiscard]] virtual int steps() const = 0;
  virtual void ops(int q, int k, std::vector<LatencyOp>& out) const = 0;
};

// Whole-vector Trivance (section 4.2) and Bruck (section 2.4). Both are exact in ceil(log3 n)
// steps when n is 3^s or 2 * 3^(s-1); other n fold the extra ranks onto a core of 3^(s-1)
// ranks first and back last (ceil(log3 n) + 1 steps), see trivance_patterns.cpp for why.
[[nodiscard]] std::shared_ptr<const LatencyRing> trivance_latency_ring(int n);
[[nodiscard]] std::shared_ptr<const LatencyRing> bruck_latency_ring(int n);

}  // namespace topocoll::algorithms
