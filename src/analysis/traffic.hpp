#pragma once
// Bytes a schedule puts on the wire, and how many of them cross group boundaries (the global
// links of a Dragonfly, bine-trees-sc25.txt section 2.4 and 5.1.1).
#include <cstdint>
#include <vector>

#include "core/schedule.hpp"

namespace topocoll {

struct TrafficTotals {
  std::uint64_t bytes = 0;
  std::uint64_t inter_group_bytes = 0;
  std::uint64_t messages = 0;
  std::uint64_t inter_group_messages = 0;
};

// `group_of[r]` is the group of rank r. `vector_bytes` is the size of the whole user vector:
// the allreduce/bcast/reduce buffer, or the P chunks together for the chunked collectives
// (alltoall: one rank's send buffer). Block sizes follow the early/late partition.
[[nodiscard]] TrafficTotals measure_traffic(const Schedule& schedule,
                                            const std::vector<int>& group_of,
                                            std::uint64_t vector_bytes, int threads = 0);

}  // namespace topocoll
