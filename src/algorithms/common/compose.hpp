#pragma once
// Combinators that build schedules out of schedules, so each family writes only its own
// peers and block sets:
//  - PhaseSequence: one phase after the other (allreduce = reduce-scatter, then allgather).
//    Lane l of the sequence runs lane l of every phase; the lanes meet between phases (a
//    lane's first step of a phase waits for every other lane's steps of the earlier phases).
//  - LaneSet: concurrent sub-collectives on disjoint slices of the vector, one lane and its
//    own ports each (multi-port algorithms, bidirectional rings, mirrored collectives). They
//    touch disjoint data, so they never wait for each other.
#include <vector>

#include "core/schedule.hpp"

namespace topocoll::algorithms {

class PhaseSequence final : public Schedule {
 public:
  // Every phase must use the same slots and ranks as `info`.
  PhaseSequence(ScheduleInfo info, std::vector<SchedulePtr> phases);
  // The lock-step view runs the phases one after the other (its lanes depend on each other).
  [[nodiscard]] int step_count(int rank) const override;
  void build_step(int rank, int step, Step& out) const override;
  [[nodiscard]] int lane_count(int rank) const override;
  [[nodiscard]] int lane_step_count(int rank, int lane) const override;
  [[nodiscard]] std::uint64_t lane_steps_total(int rank) const override;
  void build_lane_step(int rank, int lane, int step, Step& out) const override;
  // The phases' own, when they all give the same.
  [[nodiscard]] std::vector<int> block_ranks() const override;

 private:
  // Steps of `lane` in the phases before `phase`.
  [[nodiscard]] int steps_before(int rank, int lane, std::size_t phase) const;
  std::vector<SchedulePtr> phases_;
};

// Where lane j's block i lands in the combined vector. Lane blocks come in chunks of
// `chunk` blocks; chunk c of lane j becomes outer chunk c's j-th part:
//   outer = (i / chunk) * (chunk * lanes) + j * chunk + i % chunk.
// With chunk = the lane's whole block count, lane j owns the contiguous slice j (allreduce,
// fewest messages); with chunk = the lane's blocks per rank, every rank's chunk is split among
// the lanes (reduce-scatter and allgather keep MPI's per-rank layout).
struct LaneLayout {
  int lanes = 1;
  int chunk = 1;
  [[nodiscard]] BlockIndex map(int lane, BlockIndex inner) const;
  [[nodiscard]] BlockSet map(int lane, const BlockSet& inner) const;
  // The same, in place.
  void place(int lane, BlockSet& blocks) const;
};

class LaneSet final : public Schedule {
 public:
  // Lane j runs `lanes[j]` (built for the same ranks, on its own block space of B / L blocks).
  // Its operations move to port j * lane_ports + their own port.
  LaneSet(ScheduleInfo info, std::vector<SchedulePtr> lanes, LaneLayout layout);
  [[nodiscard]] int lane_count(int rank) const override;
  // The lock-step view: step k holds every sub-collective's own lock-step step k (their lanes
  // may depend on each other; different sub-collectives never do).
  [[nodiscard]] int step_count(int rank) const override;
  void build_step(int rank, int step, Step& out) const override;
  [[nodiscard]] int lane_step_count(int rank, int lane) const override;
  [[nodiscard]] std::uint64_t lane_steps_total(int rank) const override;
  void build_lane_step(int rank, int lane, int step, Step& out) const override;
  // Each lane's, placed by the layout (a lane without its own stands for the ranks in order).
  [[nodiscard]] std::vector<int> block_ranks() const override;

 private:
  struct Part {
    int index;  // the sub-collective
    int lane;   // its lane
    int first;  // the first lane of the combined schedule it maps to
  };
  // Which sub-collective (and which of its own lanes) runs combined lane `lane`.
  [[nodiscard]] Part part_of(int rank, int lane) const;
  // Moves sub-collective `index`'s operations to its slice of the vector and its ports.
  void place(int index, Step& step) const;
  std::vector<SchedulePtr> lanes_;
  LaneLayout layout_;
  int lane_ports_;
};

// Info for a schedule that combines `lanes` copies of `lane_info` with the given layout.
[[nodiscard]] ScheduleInfo lanes_info(const ScheduleInfo& lane_info, int lanes);

}  // namespace topocoll::algorithms
