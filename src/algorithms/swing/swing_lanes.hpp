#pragma once
// One Swing collective on a D-dimensional torus (swing-nsdi24.txt section 4): a "lane", the
// unit the multi-port schedule runs 2D of concurrently (D plain, D mirrored). Each step works
// on one dimension, in the order start, start+1, ... (mod D), skipping the dimensions whose
// steps are exhausted (sections 4.1, 4.2). In a step on dimension k a node does what its line
// (swing_lines.hpp) prescribes for its coordinate k, on the blocks whose other coordinates it
// still holds.
#include <memory>
#include <vector>

#include "algorithms/swing/swing_lines.hpp"
#include "core/schedule.hpp"

namespace topocoll::algorithms::swing {

struct LaneStep {
  int dim = 0;
  int local = 0;  // step index within the dimension
};

// The dimension of every step, for lines with the given step counts.
[[nodiscard]] std::vector<LaneStep> dimension_order(const std::vector<int>& steps_per_dim,
                                                    int start);

// A lane whose blocks are the torus ranks in natural order (block b = rank b's data, dimension
// 0 fastest, MPI's layout), or, for the latency-optimal algorithm, the single block 0.
class TorusLane final : public Schedule {
 public:
  enum class Blocks { per_rank, whole_vector };
  TorusLane(ScheduleInfo info, std::vector<std::shared_ptr<const Line>> lines, int start,
            Blocks blocks);
  [[nodiscard]] int step_count(int) const override { return static_cast<int>(position_.size()); }
  void build_step(int rank, int step, Step& out) const override;

 private:
  // Blocks whose coordinate j lies in sets[j] for every j, as ranges in rank order.
  void product(const std::vector<const BlockSet*>& sets, BlockSet& out) const;
  void product_from(const std::vector<const BlockSet*>& sets, int fused, int dim, BlockIndex base,
                    BlockSet& out) const;

  std::vector<int> dims_;
  std::vector<BlockIndex> strides_;
  std::vector<std::shared_ptr<const Line>> lines_;
  Blocks blocks_;
  std::vector<LaneStep> order_;
  std::vector<int> progress_;  // steps done per dimension before each logical step (T x D)
  struct Position {
    int logical;
    int sub;
  };
  std::vector<Position> position_;  // schedule step -> logical step and sub-step
};

// The bandwidth-optimal reduce-scatter of an allreduce on a torus whose sizes are all powers of
// two, with the blocks remapped so that every message is one contiguous range (section 3.1.1,
// last paragraph): a block's index is its rank's label, the bits of the per-dimension labels
// interleaved in step order, so the blocks a node holds before step t are the labels that share
// its top t bits.
class LabelLane final : public Schedule {
 public:
  LabelLane(ScheduleInfo info, int start, bool mirrored);
  [[nodiscard]] int step_count(int) const override { return static_cast<int>(order_.size()); }
  void build_step(int rank, int step, Step& out) const override;
  // Block l stands for the rank whose label is l.
  [[nodiscard]] std::vector<int> block_ranks() const override;

 private:
  [[nodiscard]] std::uint32_t label_of(const std::vector<int>& coords) const;

  std::vector<int> dims_;
  std::vector<int> log_dims_;
  std::vector<int> strides_;
  bool mirrored_;
  std::vector<LaneStep> order_;
  std::vector<std::vector<std::uint32_t>> labels_;  // per dimension and coordinate
};

// The time reverse of a phase whose ranks all have the same number of steps, with sends and
// receives swapped and receives copying: the allgather that undoes a reduce-scatter.
class Reversed final : public Schedule {
 public:
  Reversed(ScheduleInfo info, SchedulePtr forward);
  [[nodiscard]] int step_count(int rank) const override { return forward_->step_count(rank); }
  void build_step(int rank, int step, Step& out) const override;
  [[nodiscard]] std::vector<int> block_ranks() const override { return forward_->block_ranks(); }

 private:
  SchedulePtr forward_;
};

}  // namespace topocoll::algorithms::swing
