#pragma once
// Combinators that build schedules out of schedules, so each family writes only its own
// peers and block sets:
//  - PhaseSequence: one phase after the other (allreduce = reduce-scatter, then allgather).
//  - LaneSet: concurrent sub-collectives on disjoint slices of the vector, one per port
//    (multi-port algorithms, bidirectional rings, mirrored collectives).
#include <vector>

#include "core/schedule.hpp"

namespace topocoll::algorithms {

class PhaseSequence final : public Schedule {
 public:
  // Every phase must use the same slots and ranks as `info`.
  PhaseSequence(ScheduleInfo info, std::vector<SchedulePtr> phases);
  [[nodiscard]] int step_count(int rank) const override;
  void build_step(int rank, int step, Step& out) const override;

 private:
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
};

class LaneSet final : public Schedule {
 public:
  // Lane j runs `lanes[j]` (built for the same ranks, on its own block space of B / L blocks).
  // Its operations move to port j * lane_ports + their own port.
  LaneSet(ScheduleInfo info, std::vector<SchedulePtr> lanes, LaneLayout layout);
  [[nodiscard]] int step_count(int rank) const override;
  void build_step(int rank, int step, Step& out) const override;

 private:
  std::vector<SchedulePtr> lanes_;
  LaneLayout layout_;
  int lane_ports_;
};

// Info for a schedule that combines `lanes` copies of `lane_info` with the given layout.
[[nodiscard]] ScheduleInfo lanes_info(const ScheduleInfo& lane_info, int lanes);

}  // namespace topocoll::algorithms
