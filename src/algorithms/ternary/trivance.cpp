// Trivance (trivance.txt sections 4-5): both ring directions at once, peers r +- 3^k, so every
// step triples what a rank has reduced; log3(n) steps per phase. Any n (section 4.4) and
// D-dimensional tori (section 5: one collective per dimension on 1/D of the vector, mirrored).
// The ring math is in trivance_patterns.cpp, the lifting to tori in trivance_torus.cpp.
#include "algorithms/common/side_fold.hpp"
#include "algorithms/families.hpp"
#include "algorithms/ternary/ternary_family.hpp"

namespace topocoll::algorithms {
namespace {

// Slices of trivance-bw-fold, each leaving out different lines (side_fold.hpp).
constexpr int kFoldParts = 16;

}  // namespace

void register_trivance(Registry& registry) {
  register_ternary_family(
      registry,
      {.family = "trivance",
       .baseline = false,
       .bandwidth = {"trivance.txt sections 4.1, 4.3, 4.4, 5",
                     "reduce-scatter + allgather, peers r +- 3^k, m/3^(k+1) per side in step k; "
                     "any n, D-dim tori with one collective per dimension"},
       .pattern = trivance_ring,
       .latency = {"trivance.txt sections 4.2, 4.4, 5",
                   "whole vector to r +- 3^k, then one step of partial sums (section 4.4): "
                   "ceil(log3 n) steps, one more (fold) for the n with no such last step (e.g. "
                   "25, 26); D-dim tori"},
       .latency_ring = trivance_latency_ring});

  // Sides that are not powers of three: the paper's own method (section 4.4, trivance-bw) sends
  // more than the log3 steps of a power of three; this one runs the power-of-three schedule and
  // folds the left-out lines in (side_fold.hpp).
  AlgorithmInfo fold;
  fold.name = "trivance-bw-fold";
  fold.family = "trivance";
  fold.variant = "bandwidth-optimal, sides folded to powers of three";
  fold.paper = "trivance.txt sections 4.1, 4.3, 5; other sides: not the paper's (side_fold.hpp)";
  fold.summary =
      "trivance-bw on the torus with every side just above a power of three p >= 9 (to p + p/3) "
      "cut to p; the gap's ranks fold half the vector into each side of it, over 16 slices";
  fold.collectives = {Collective::allreduce};
  fold.requirements = ternary_requirements();
  fold.requirements.sides = SideRule::some_just_above_power_of_three;
  fold.build = [](const ScheduleRequest& r) {
    return spread_side_fold(r, "trivance-bw-fold", kFoldParts, cut_to_power_of_three,
                            [](const ScheduleRequest& inner) {
                              return torus_bandwidth_schedule(inner, "trivance-bw", trivance_ring);
                            });
  };
  registry.add(std::move(fold));
}

}  // namespace topocoll::algorithms
