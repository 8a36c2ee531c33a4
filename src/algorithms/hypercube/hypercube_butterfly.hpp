#pragma once
// Butterfly emulation on a binary d-cube with d rotated binomial trees
// (cm200-all-to-all-tr0293.txt section 5, alternative 4 and Fig. 21). Node space: node n holds
// chunk n; every message crosses one dimension on that dimension's port.
#include "core/schedule.hpp"

namespace topocoll::algorithms::hypercube {

// Reduce-and-spread (Fig. 21): the blocks are cut into d slices; slice i is exchanged whole and
// reduced across dimension (u + i) mod d in step u, so after d steps every node holds every
// reduced block. `info.ports` must be d.
class ReduceAndSpread final : public Schedule {
 public:
  ReduceAndSpread(ScheduleInfo info, int d) : Schedule(std::move(info)), d_(d) {}
  [[nodiscard]] int step_count(int) const override { return d_; }
  void build_step(int node, int step, Step& out) const override;

 private:
  int d_;
};

// Spread (all-to-all broadcast over d rotated binomial trees, alternative 4): part i of every
// chunk (block n*d + i) doubles along dimensions i, i + 1, ... (mod d), as recursive doubling
// does, so the d parts use the d dimensions concurrently. B = P * d, `info.ports` = d.
class RotatedSpread final : public Schedule {
 public:
  RotatedSpread(ScheduleInfo info, int d) : Schedule(std::move(info)), d_(d) {}
  [[nodiscard]] int step_count(int) const override { return d_; }
  void build_step(int node, int step, Step& out) const override;

 private:
  int d_;
};

}  // namespace topocoll::algorithms::hypercube
