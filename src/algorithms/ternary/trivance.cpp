// Trivance (trivance.txt sections 4-5): both ring directions at once, peers r +- 3^k, so every
// step triples what a rank has reduced; log3(n) steps per phase. Any n (section 4.4) and
// D-dimensional tori (section 5: one collective per dimension on 1/D of the vector, mirrored).
// The ring math is in trivance_patterns.cpp, the lifting to tori in trivance_torus.cpp.
#include "algorithms/families.hpp"
#include "algorithms/ternary/trivance_torus.hpp"

namespace topocoll::algorithms {
void register_trivance(Registry& registry) {
  AlgorithmInfo bw;
  bw.name = "trivance-bw";
  bw.family = "trivance";
  bw.variant = "bandwidth-optimal";
  bw.paper = "trivance.txt sections 4.1, 4.3, 4.4, 5";
  bw.summary =
      "reduce-scatter + allgather, peers r +- 3^k, m/3^(k+1) per side in step k; any n, "
      "D-dim tori with one collective per dimension";
  bw.collectives = {Collective::allreduce, Collective::reduce_scatter, Collective::allgather};
  bw.requirements = ternary_requirements();
  bw.build = [](const ScheduleRequest& request) {
    return torus_bandwidth_schedule(request, "trivance-bw", trivance_ring);
  };
  registry.add(std::move(bw));

  AlgorithmInfo lat;
  lat.name = "trivance-lat";
  lat.family = "trivance";
  lat.variant = "latency-optimal";
  lat.paper = "trivance.txt sections 4.2, 4.4, 5";
  lat.summary =
      "whole vector to r +- 3^k, then one step of partial sums (section 4.4): ceil(log3 n) "
      "steps, one more (fold) for the n with no such last step (e.g. 25, 26); D-dim tori";
  lat.collectives = {Collective::allreduce};
  lat.requirements = ternary_requirements();
  lat.build = [](const ScheduleRequest& request) {
    return torus_latency_schedule(request, "trivance-lat", trivance_latency_ring);
  };
  registry.add(std::move(lat));
}

}  // namespace topocoll::algorithms
