#pragma once
// Relabeled: runs a schedule written for virtual ranks (e.g. the positions of a hypercube or a
// ring) with real rank r acting as virtual rank label(r). Peers map back through the inverse;
// with `remap_chunks`, virtual chunk v (blocks [v*S, (v+1)*S)) becomes real chunk rank_of(v), so
// every real rank starts and ends with its own chunk (reduce-scatter, allgather); without, blocks
// keep their index (allreduce, whose blocks are alike on every rank).
#include <memory>

#include "core/schedule.hpp"

namespace topocoll::algorithms {

// A bijection between the ranks 0..P-1 and the virtual ranks 0..P-1.
class RankLabels {
 public:
  virtual ~RankLabels() = default;
  [[nodiscard]] virtual int label(int rank) const = 0;
  [[nodiscard]] virtual int rank_of(int label) const = 0;
};

class Relabeled final : public Schedule {
 public:
  // `info` describes the real schedule (its shape may differ from the inner's); the inner must
  // have no local copies when `remap_chunks` is set.
  Relabeled(ScheduleInfo info, SchedulePtr inner, std::shared_ptr<const RankLabels> labels,
            bool remap_chunks);
  [[nodiscard]] int step_count(int rank) const override;
  void build_step(int rank, int step, Step& out) const override;

 private:
  [[nodiscard]] BlockSet relabel(const BlockSet& blocks) const;
  SchedulePtr inner_;
  std::shared_ptr<const RankLabels> labels_;
  bool remap_chunks_;
};

}  // namespace topocoll::algorithms
