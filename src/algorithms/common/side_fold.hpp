#pragma once
// Sides an algorithm does not serve natively (odd for Swing and Bine, not a power of three for
// Trivance), run by the schedule built for shorter sides, with the left-out lines' work spread
// around the torus.
//
// Swing and Bine pair ranks along every side, so an odd side has one rank too many; Trivance
// needs powers of three. The papers send the extra ranks' blocks straight to their owners
// (swing-nsdi24.txt section 3.2) or add steps (trivance.txt section 4.4), and those messages
// cross the whole ring. Here instead:
//  - SideFold runs a schedule built for the torus with side i cut by cut[i] ranks. On each cut
//    side the coordinates [e, e + cut) are left out; a rank with such a coordinate is a guest.
//    Inner neighbours across the gap are cut + 1 hops apart; their messages pass through the
//    guests' links.
//  - A guest hands the first half of the vector to its host below the gap (e - 1 in every cut
//    coordinate it sits in) and the second half to its host above it (e + cut), before the
//    inner schedule starts there, and gets both halves of the result back after it ends. A host
//    reduces every guest's half into its vector before its first inner step (on every lane)
//    and returns it after its last one (on every lane); the other ranks start at once.
//  - spread_side_fold runs k such folds as independent lanes on k slices of the vector, each
//    leaving out different coordinates, so each guest line carries the fold of 1/k of the
//    vector and no link carries much more than cut/(2k) of it in each direction.
// Allreduce only (blocks are alike on every rank, so a host adds a guest's data block by block).
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "core/schedule.hpp"

namespace topocoll::algorithms {

class SideFold final : public Schedule {
 public:
  // `inner`: an allreduce built for the sides dims[i] - cut[i]; side i leaves out the
  // coordinates [first[i], first[i] + cut[i]) (0 < first[i], first[i] + cut[i] <= dims[i] when
  // cut[i] > 0).
  // The parts of a spread fold share one inner schedule.
  SideFold(ScheduleInfo info, std::shared_ptr<const Schedule> inner, std::vector<int> first,
           std::vector<int> cut);

  [[nodiscard]] int lane_count(int rank) const override;
  [[nodiscard]] int lane_step_count(int rank, int lane) const override;
  [[nodiscard]] std::uint64_t lane_steps_total(int rank) const override;
  void build_lane_step(int rank, int lane, int step, Step& out) const override;
  // Lock-step view: a guest's two steps; a host's fold-in, the inner lock-step view, fold-out.
  [[nodiscard]] int step_count(int rank) const override;
  void build_step(int rank, int step, Step& out) const override;

 private:
  struct Guest {
    int rank;
    bool upper;  // it hands this host the upper half of the blocks (else the lower)
  };
  [[nodiscard]] int inner_of(int rank) const { return inner_rank_[static_cast<std::size_t>(rank)]; }
  [[nodiscard]] bool is_host(int rank) const;
  [[nodiscard]] const std::vector<Guest>& guests_of(int host) const;
  // The ranks that hold `rank`'s halves (guest only): {down, up}.
  [[nodiscard]] std::vector<int> hosts_of(int rank) const;
  [[nodiscard]] BlockSet half(bool upper) const;
  void build_inner_step(int rank, int lane, int step, Step& out) const;
  void build_fold_in(int rank, Step& out) const;
  void build_fold_out(int rank, Step& out) const;
  void build_guest_step(int rank, int step, Step& out) const;

  std::shared_ptr<const Schedule> inner_;
  std::vector<int> first_;
  std::vector<int> cut_;
  std::vector<int> inner_rank_;  // per outer rank: its inner rank, or -1 for a guest
  std::vector<int> outer_rank_;  // per inner rank
  // Per host: the guests it folds in. Hosts are few (two per guest), the ranks up to 2^24.
  std::map<int, std::vector<Guest>> guests_;
};

using InnerBuilder = std::function<SchedulePtr(const ScheduleRequest&)>;
// How many ranks to leave out of a side of the given size (0: keep it whole).
using SideCut = std::function<int(int side)>;

// Cuts: one rank off every odd side >= 3 (Swing, Bine); a side just above a power of three
// p >= 9 (p < n <= p + p/3) down to p (Trivance; further above, the gap costs more than it
// saves).
[[nodiscard]] int cut_to_even(int side);
[[nodiscard]] int cut_to_power_of_three(int side);

// `parts` SideFolds of `build` (an allreduce for the request with every side s cut by cut(s))
// on `parts` slices of the vector, part j leaving out the coordinates from about j * s / parts.
// The schedule is named `name`. Throws UnsupportedRequest when no side is cut or the collective
// is not allreduce.
[[nodiscard]] SchedulePtr spread_side_fold(const ScheduleRequest& request, const std::string& name,
                                           int parts, const SideCut& cut,
                                           const InnerBuilder& build);

}  // namespace topocoll::algorithms
