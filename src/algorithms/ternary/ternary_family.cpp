#include "algorithms/ternary/ternary_family.hpp"

#include <string>

namespace topocoll::algorithms {
namespace {

AlgorithmInfo variant_info(const std::string& family, const char* suffix, const char* variant,
                           const TernaryVariant& data) {
  AlgorithmInfo info;
  info.name = family + suffix;
  info.family = family;
  info.variant = variant;
  info.paper = data.paper;
  info.summary = data.summary;
  info.requirements = ternary_requirements();
  return info;
}

}  // namespace

void register_ternary_family(Registry& registry, const TernaryFamily& family) {
  AlgorithmInfo bw = variant_info(family.family, "-bw", "bandwidth-optimal", family.bandwidth);
  bw.baseline = family.baseline;
  bw.collectives = {Collective::allreduce, Collective::reduce_scatter, Collective::allgather};
  bw.build = [name = bw.name, pattern = family.pattern](const ScheduleRequest& request) {
    return torus_bandwidth_schedule(request, name, pattern);
  };
  registry.add(std::move(bw));

  AlgorithmInfo lat = variant_info(family.family, "-lat", "latency-optimal", family.latency);
  lat.baseline = family.baseline;
  lat.collectives = {Collective::allreduce};
  lat.build = [name = lat.name, ring = family.latency_ring](const ScheduleRequest& request) {
    return torus_latency_schedule(request, name, ring);
  };
  registry.add(std::move(lat));
}

}  // namespace topocoll::algorithms
