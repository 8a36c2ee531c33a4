#pragma once
// The inner phase of a composition: a schedule built by the registry for N ranks, run by the
// ranks of equal local index across the N nodes (rank (n, l) acts as inner rank n), on the
// blocks its layout gives that local index. Lanes, dependencies and ports pass through
// unchanged; peers and blocks are translated. Nothing here depends on which algorithm it is.
#include <memory>

#include "algorithms/hierarchical/node_map.hpp"
#include "algorithms/hierarchical/part_layout.hpp"
#include "core/schedule.hpp"

namespace topocoll::algorithms::hierarchical {

class OnNodes final : public Schedule {
 public:
  // `inner` may be null (one node: the inner collective has nothing to do). `only_local`: the
  // one local index that runs the inner (leader forms), or -1 for every local index.
  OnNodes(ScheduleInfo info, SchedulePtr inner, std::shared_ptr<const NodeMap> nodes,
          std::shared_ptr<const PartLayout> layout, int only_local);

  [[nodiscard]] int lane_count(int rank) const override;
  [[nodiscard]] int lane_step_count(int rank, int lane) const override;
  void build_lane_step(int rank, int lane, int step, Step& out) const override;
  [[nodiscard]] int step_count(int rank) const override;
  void build_step(int rank, int step, Step& out) const override;

 private:
  [[nodiscard]] bool runs(int rank) const;
  void translate(int rank, Step& step) const;

  SchedulePtr inner_;
  std::shared_ptr<const NodeMap> nodes_;
  std::shared_ptr<const PartLayout> layout_;
  int only_local_;
};

}  // namespace topocoll::algorithms::hierarchical
