#include "algorithms/trees/tree_family.hpp"

#include <string>

namespace topocoll::algorithms {

AlgorithmInfo tree_variant_info(const char* family, const TreeVariant& v) {
  AlgorithmInfo info = described(family, v.text);
  info.collectives = {Collective::bcast, Collective::reduce};
  info.requirements.commutative_op = v.commutative_only;
  info.build = [name = info.name, kind = v.kind](const ScheduleRequest& request) {
    return build_tree_collective(request, name, kind);
  };
  return info;
}

AlgorithmInfo large_variant_info(const char* family, const LargeVariant& v) {
  AlgorithmInfo info = described(family, v.text);
  info.collectives = {Collective::bcast, Collective::reduce};
  info.requirements.commutative_op = true;
  info.build = [name = info.name, large = v.family](const ScheduleRequest& request) {
    return build_large_collective(request, name, large);
  };
  return info;
}

}  // namespace topocoll::algorithms
