#pragma once
// Odd sides served by an even-sided schedule, with the extra line's work spread around the torus.
//
// Swing and Bine pair ranks along every side, so an odd side has one rank too many. The papers
// send that rank's blocks straight to their owners (swing-nsdi24.txt section 3.2), and those
// messages cross the whole ring. Here instead:
//  - SideFold runs a schedule built for the torus with every odd side s >= 3 cut to s - 1. On
//    each such side one coordinate e is left out; a rank with e in one or more of its
//    coordinates is a guest. The inner torus's neighbours across e are two hops apart and
//    their messages pass through the guest's links.
//  - A guest hands the first half of the vector to its host one step down every excluded
//    coordinate (e - 1) and the second half to its host one step up (e + 1), before the inner
//    schedule starts there, and gets both halves of the result back after it ends. A host
//    reduces every guest's half into its vector before its first inner step (on every lane)
//    and returns it after its last one (on every lane); the other ranks start at once.
//  - spread_side_fold runs k such folds as independent lanes on k slices of the vector, each
//    leaving out a different coordinate, so each guest line carries the fold of 1/k of the
//    vector and no link carries more than about 1/(2k) of it in each direction.
// Allreduce only (blocks are alike on every rank, so a host adds a guest's data block by block).
#include <functional>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "core/schedule.hpp"

namespace topocoll::algorithms {

class SideFold final : public Schedule {
 public:
  // `inner`: an allreduce built for `inner_dims`; `excluded[i]`: the coordinate side i leaves
  // out, or -1 when side i is kept whole (inner_dims[i] == dims[i]).
  SideFold(ScheduleInfo info, SchedulePtr inner, std::vector<int> excluded);

  [[nodiscard]] int lane_count(int rank) const override;
  [[nodiscard]] int lane_step_count(int rank, int lane) const override;
  void build_lane_step(int rank, int lane, int step, Step& out) const override;
  // Lock-step view: a guest's two steps; a host's fold-in, the inner lock-step view, fold-out.
  [[nodiscard]] int step_count(int rank) const override;
  void build_step(int rank, int step, Step& out) const override;

 private:
  struct Guest {
    int rank;
    BlockSet half;  // the blocks it hands to this host
  };
  [[nodiscard]] int inner_of(int rank) const { return inner_rank_[static_cast<std::size_t>(rank)]; }
  [[nodiscard]] bool is_host(int rank) const;
  // The ranks that hold `rank`'s halves (guest only): {down, up}.
  [[nodiscard]] std::vector<int> hosts_of(int rank) const;
  [[nodiscard]] std::vector<Guest> guests_of(int host) const;
  [[nodiscard]] BlockSet half(bool upper) const;
  void build_inner_step(int rank, int lane, int step, Step& out) const;
  void build_fold_in(int rank, Step& out) const;
  void build_fold_out(int rank, Step& out) const;
  void build_guest_step(int rank, int step, Step& out) const;

  SchedulePtr inner_;
  std::vector<int> excluded_;
  std::vector<int> inner_rank_;  // per outer rank: its inner rank, or -1 for a guest
  std::vector<int> outer_rank_;  // per inner rank
  std::vector<std::vector<Guest>> guests_;  // per outer rank (hosts only)
};

using InnerBuilder = std::function<SchedulePtr(const ScheduleRequest&)>;

// `parts` SideFolds of `build` (an allreduce for the request with every odd side >= 3 cut by one)
// on `parts` slices of the vector, part j leaving out coordinate j * s / parts of each odd side
// s. Throws UnsupportedRequest when no side is odd and >= 3 or the collective is not allreduce.
// The schedule is named `name`.
[[nodiscard]] SchedulePtr spread_side_fold(const ScheduleRequest& request, const std::string& name,
                                           int parts, const InnerBuilder& build);

}  // namespace topocoll::algorithms
