#pragma once
// Butterflies as superpositions of trees, one rooted at every node (bine-trees-sc25.txt section
// 3.1): at each step every node exchanges with one partner the data of all the trees whose edge
// runs between the two. An allgather broadcasts each node's chunk along its own tree; a
// reduce-scatter runs the same edges backwards, reducing each chunk towards its owner (section
// 4.3: "a distance-doubling butterfly reduce-scatter [is] a distance-doubling scatter and a
// distance-halving reduce"). Deriving the butterfly from the trees carries Appendix C's
// duplicate-subtree removal over to every even node count.
#include <memory>
#include <vector>

#include "algorithms/trees/tree_schedules.hpp"

namespace topocoll::algorithms {

class ButterflyFamily {
 public:
  // Trees of node x: node y of `shape` placed on x ^ y (recursive doubling and halving, n a
  // power of two) or on x + y, mirrored to x - y for odd x (Bine, Eq. 4, n even).
  enum class Placement { exclusive_or, rotate_mirror_odd };
  ButterflyFamily(Tree shape, Placement placement);

  [[nodiscard]] int nodes() const { return shape_.size(); }
  [[nodiscard]] int steps() const { return shape_.steps(); }
  [[nodiscard]] int partner(int u, int step) const;
  // Roots of the trees in which u sends to partner(u, step) at `step`, appended to `out`.
  void roots_sending(int u, int step, std::vector<int>& out) const;

 private:
  Tree shape_;
  Placement placement_;
  std::vector<long long> offset_;          // per step: the xor mask or the distance of node 0
  std::vector<std::vector<int>> senders_;  // per step: shape nodes that send
};

// Allgather (each node starts with chunk_of[node]) or reduce-scatter (each node ends with the
// reduced chunk_of[node]) over a ButterflyFamily run by Participants.
class ButterflyPhase final : public Schedule {
 public:
  enum class Kind { allgather, reduce_scatter };
  ButterflyPhase(ScheduleInfo info, std::shared_ptr<const ButterflyFamily> family,
                 std::vector<int> chunk_of, Participants where, Kind kind);
  [[nodiscard]] int step_count(int rank) const override;
  void build_step(int rank, int step, Step& out) const override;

 private:
  [[nodiscard]] BlockSet chunks_of_roots(int u, int step) const;
  std::shared_ptr<const ButterflyFamily> family_;
  std::vector<int> chunk_of_;
  Participants where_;
  Kind kind_;
  int per_chunk_;
};

}  // namespace topocoll::algorithms
