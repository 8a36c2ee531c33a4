#pragma once
// Large-vector broadcast and reduce (bine-trees-sc25.txt section 4.5): broadcast = scatter +
// allgather, reduce = reduce-scatter + gather, built from trees and their superpositions.
#include <string>

#include "core/registry.hpp"

namespace topocoll::algorithms {

enum class LargeFamily { binomial, bine };

[[nodiscard]] SchedulePtr build_large_collective(const ScheduleRequest& request,
                                                 const std::string& algorithm, LargeFamily family);

}  // namespace topocoll::algorithms
