// Bruck's concatenation pattern generalised to allreduce with both ports (trivance.txt section
// 2.4): in step k a rank exchanges with the peers at distance 3^k and 2 * 3^k, all traffic in one
// ring direction. The latency-optimal variant moves the whole vector; the bandwidth-optimal one
// is a reduce-scatter followed by its reverse, the allgather. On a D-dimensional torus, one
// collective per dimension (section 2.4, last paragraph), both ports of each in one dimension.
#include "algorithms/families.hpp"
#include "algorithms/ternary/ternary_family.hpp"

namespace topocoll::algorithms {

void register_bruck(Registry& registry) {
  register_ternary_family(
      registry,
      {.family = "bruck",
       .baseline = true,
       .bandwidth = {"trivance.txt section 2.4",
                     "reduce-scatter + allgather, peers r + 3^k and r + 2*3^k, 2 ceil(log3 n) "
                     "steps; any n, D-dim tori"},
       .pattern = bruck_ring,
       .latency = {"trivance.txt section 2.4",
                   "whole vector from r + 3^k and r + 2*3^k, then one step of partial sums: "
                   "ceil(log3 n) steps for every n; D-dim tori"},
       .latency_ring = bruck_latency_ring});
}

}  // namespace topocoll::algorithms
