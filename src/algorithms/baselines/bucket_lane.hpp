#pragma once
// One of the concurrent bucket collectives (swing-nsdi24.txt section 2.3.4): a ring
// reduce-scatter along each torus dimension in turn, each on the part of the data still being
// reduced, then ring allgathers in the reverse order. The lane owns one block per rank (the
// block that rank ends up reducing) and numbers those blocks in one of two ways.
#include <vector>

#include "core/schedule.hpp"

namespace topocoll::algorithms {

// How a lane numbers its P blocks.
enum class BucketNumbering {
  // Block t belongs to rank t: MPI's chunk layout, which reduce-scatter and allgather need.
  by_rank,
  // Mixed radix with the lane's first dimension as the most significant digit: every set the
  // lane sends is one contiguous range (allreduce, where the layout is free).
  by_visit_order,
};

struct BucketLanePlan {
  std::vector<int> order;  // torus dimensions in visiting order (sizes >= 2 only)
  int direction = +1;      // ring direction along every dimension: +1 or -1
  BucketNumbering numbering = BucketNumbering::by_rank;
  // Steps of each dimension phase, indexed like `order`: the longest ring any lane runs in
  // that phase, so every lane's phases start at the same step indices. A lane on a shorter
  // dimension has empty steps for the rest (section 5.2's idling when the lanes wait for each
  // other there, as in `bucket`).
  std::vector<int> phase_steps;
};

class BucketLane final : public Schedule {
 public:
  // info.collective selects the phases: reduce-scatter, allgather, or both (allreduce).
  // info.dims is the torus shape; info.blocks must be the rank count.
  BucketLane(ScheduleInfo info, BucketLanePlan plan);
  [[nodiscard]] int step_count(int rank) const override;
  void build_step(int rank, int step, Step& out) const override;

 private:
  struct Phase {
    int position;  // index into plan_.order
    bool reduce;   // reduce-scatter (true) or allgather
    int first_step;
  };
  // Blocks whose owners agree with `coords` on the dimensions visited before `position`, have
  // coordinate `value` on the dimension at `position`, and anything on the later ones.
  [[nodiscard]] BlockSet group(const std::vector<int>& coords, int position, int value) const;
  [[nodiscard]] BlockSet group_by_rank(const std::vector<int>& coords, int position,
                                       int value) const;
  [[nodiscard]] std::vector<int> coords_of(int rank) const;
  [[nodiscard]] int neighbour(int rank, const std::vector<int>& coords, int dim, int delta) const;

  BucketLanePlan plan_;
  std::vector<int> sizes_;       // torus dimension sizes
  std::vector<int> strides_;     // rank = sum of coords[i] * strides_[i]
  std::vector<long long> span_;  // span_[i]: blocks that share the first i visited coordinates
  std::vector<Phase> phases_;
  int total_steps_ = 0;
};

}  // namespace topocoll::algorithms
