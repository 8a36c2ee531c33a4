// Trivance (trivance.txt sections 4-5): both ring directions at once, peers r +- 3^k, so every
// step triples what a rank has reduced; log3(n) steps per phase. Any n (section 4.4) and
// D-dimensional tori (section 5: one collective per dimension on 1/D of the vector, mirrored).
// The ring math is in trivance_patterns.cpp, the lifting to tori in trivance_torus.cpp.
#include "algorithms/families.hpp"
#include "algorithms/ternary/ternary_family.hpp"

namespace topocoll::algorithms {

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
}

}  // namespace topocoll::algorithms
