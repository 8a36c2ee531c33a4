#pragma once
// The latency-optimal Bine allreduce (bine-trees-sc25.txt section 4.4): recursive doubling on a
// Bine butterfly, every rank exchanging its partial result at each of the ceil(log2 P) steps
// (distance doubling), on a ring or a torus of even dimensions.
#include "algorithms/bine/bine_butterfly.hpp"
#include "core/schedule.hpp"

namespace topocoll::algorithms::bine {

// info: allreduce on grid->ranks() ranks; blocks and slots are set here.
[[nodiscard]] SchedulePtr latency_optimal(ScheduleInfo info, std::shared_ptr<const BineGrid> grid);

}  // namespace topocoll::algorithms::bine
