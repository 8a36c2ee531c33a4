#include "algorithms/trees/tree_family.hpp"

#include <string>

namespace topocoll::algorithms {

AlgorithmInfo tree_variant_info(const char* family, const TreeVariant& v) {
  AlgorithmInfo info;
  info.name = v.name;
  info.family = family;
  info.variant = v.variant;
  info.paper = v.paper;
  info.summary = v.summary;
  info.collectives = {Collective::bcast, Collective::reduce};
  info.requirements.commutative_op = v.commutative_only;
  info.build = [name = std::string(v.name), kind = v.kind](const ScheduleRequest& request) {
    return build_tree_collective(request, name, kind);
  };
  return info;
}

AlgorithmInfo large_variant_info(const char* family, const LargeVariant& v) {
  AlgorithmInfo info;
  info.name = v.name;
  info.family = family;
  info.variant = "large-vector";
  info.paper = v.paper;
  info.summary = v.summary;
  info.collectives = {Collective::bcast, Collective::reduce};
  info.requirements.commutative_op = true;
  info.build = [name = std::string(v.name), large = v.family](const ScheduleRequest& request) {
    return build_large_collective(request, name, large);
  };
  return info;
}

}  // namespace topocoll::algorithms
