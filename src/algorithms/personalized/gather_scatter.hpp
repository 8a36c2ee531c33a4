#pragma once
// Gather and scatter on distance-halving trees whose subtrees are circular rank ranges
// (bine-trees-sc25.txt sections 4.1-4.2): every transfer is one range of ranks, so at most
// two block ranges once the range wraps past the end of the buffer.
//
// Other families build on these (large-vector broadcast = scatter + allgather, reduce =
// reduce-scatter + gather, section 4.5): call make_gather / make_scatter and put the result
// in a PhaseSequence. The schedules use B = ranks * blocks_per_rank blocks, no scratch slots,
// keep positions, MPI's chunk layout (rank r's chunk is [r*S, (r+1)*S)), and any root.
#include <string>

#include "core/schedule.hpp"

namespace topocoll::algorithms {

enum class GatherTree {
  binomial,  // MPICH's binomial tree: a rank holding k blocks receives the next k
  bine,      // Bine tree: ranges grow downward or upward, alternating (section 4.1)
};

// Gather of every rank's chunk to `root`. The root ends with the whole vector; non-roots'
// slots outside their own chunk are used as staging and end with partial data.
[[nodiscard]] SchedulePtr make_gather(GatherTree tree, int ranks, int root,
                                      int blocks_per_rank = 1);
// Scatter of root's vector: rank r ends with chunk r (the gather run backwards).
[[nodiscard]] SchedulePtr make_scatter(GatherTree tree, int ranks, int root,
                                       int blocks_per_rank = 1);

[[nodiscard]] std::string_view gather_tree_name(GatherTree tree);

}  // namespace topocoll::algorithms
