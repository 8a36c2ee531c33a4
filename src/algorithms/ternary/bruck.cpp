// Bruck's concatenation pattern generalised to allreduce with both ports (trivance.txt section
// 2.4): in step k a rank exchanges with the peers at distance 3^k and 2 * 3^k, all traffic in one
// ring direction. The latency-optimal variant moves the whole vector; the bandwidth-optimal one
// is a reduce-scatter followed by its reverse, the allgather. On a D-dimensional torus, one
// collective per dimension (section 2.4, last paragraph), both ports of each in one dimension.
#include "algorithms/families.hpp"
#include "algorithms/ternary/trivance_torus.hpp"

namespace topocoll::algorithms {
void register_bruck(Registry& registry) {
  AlgorithmInfo bw;
  bw.name = "bruck-bw";
  bw.family = "bruck";
  bw.variant = "bandwidth-optimal";
  bw.paper = "trivance.txt section 2.4";
  bw.summary =
      "reduce-scatter + allgather, peers r + 3^k and r + 2*3^k, 2 ceil(log3 n) steps; any n, "
      "D-dim tori";
  bw.collectives = {Collective::allreduce, Collective::reduce_scatter, Collective::allgather};
  bw.requirements = ternary_requirements();
  bw.build = [](const ScheduleRequest& request) {
    return torus_bandwidth_schedule(request, "bruck-bw", bruck_ring);
  };
  registry.add(std::move(bw));

  AlgorithmInfo lat;
  lat.name = "bruck-lat";
  lat.family = "bruck";
  lat.variant = "latency-optimal";
  lat.paper = "trivance.txt section 2.4";
  lat.summary =
      "whole vector from r + 3^k and r + 2*3^k, then one step of partial sums: ceil(log3 n) "
      "steps for every n; D-dim tori";
  lat.collectives = {Collective::allreduce};
  lat.requirements = ternary_requirements();
  lat.build = [](const ScheduleRequest& request) {
    return torus_latency_schedule(request, "bruck-lat", bruck_latency_ring);
  };
  registry.add(std::move(lat));
}

}  // namespace topocoll::algorithms
