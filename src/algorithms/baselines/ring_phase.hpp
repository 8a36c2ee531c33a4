#pragma once
// The ring algorithm (swing-nsdi24.txt section 2.3.1) along any cyclic order of the ranks: the
// plain ring (ring.cpp) walks 0, 1, ..., P-1, the Hamiltonian rings (hamiltonian_rings.cpp)
// walk the cycles of a 2D torus. The rank at position t of the order behaves as rank t of the
// plain ring: P - 1 steps per phase, one block to the next rank and one from the previous.
#include <memory>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "core/schedule.hpp"

namespace topocoll::algorithms {

enum class RingPhase { reduce_scatter, allgather };

// A cyclic order of the ranks.
class RingOrder {
 public:
  // 0, 1, ..., ranks - 1, without tables (a ring of 2^24 ranks would hold two of 64 MiB).
  explicit RingOrder(int ranks);
  // nodes[t]: the rank at position t; a permutation of 0..P-1.
  explicit RingOrder(std::vector<int> nodes);

  // The rank at `position` (any integer, taken modulo the ranks).
  [[nodiscard]] int node(long long position) const;
  [[nodiscard]] int position(int rank) const;

 private:
  int ranks_;
  std::shared_ptr<const std::vector<int>> nodes_;      // empty: the identity
  std::shared_ptr<const std::vector<int>> positions_;  // inverse of nodes_
};

// One direction (+1/-1) of the ring along `order`, named `algorithm`, for the request's
// collective: its reduce-scatter or allgather phase, or both in sequence for allreduce. Block q
// is rank q's chunk.
[[nodiscard]] SchedulePtr ring_direction(const ScheduleRequest& request,
                                         const std::string& algorithm, const RingOrder& order,
                                         int direction);

}  // namespace topocoll::algorithms
