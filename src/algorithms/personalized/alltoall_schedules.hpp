#pragma once
// Alltoall schedules. Buffer layout (core/schedule.hpp): slots [0, B) are the send buffer
// (chunk d goes to rank d), [B, 2B) the receive buffer (chunk s came from rank s), and the
// slots past 2B are scratch. B = ranks * blocks_per_rank. Data changes slots on the way, so
// every schedule sets keeps_positions = false.
#include "core/schedule.hpp"

namespace topocoll::algorithms {

// Linear exchange: P - 1 steps; at step k rank r sends chunk r + k to r + k and receives
// chunk r - k from r - k.
[[nodiscard]] SchedulePtr make_pairwise_alltoall(int ranks, int blocks_per_rank = 1);
// Bruck's log-step alltoall: local rotation, ceil(log2 P) exchanges at distance 2^k, inverse
// rotation. Any P.
[[nodiscard]] SchedulePtr make_bruck_alltoall(int ranks, int blocks_per_rank = 1);
// Bine alltoall (bine-trees-sc25.txt section 4.4): Bine butterfly, contiguous sends, final
// permutation. Any P (odd P folds one rank in and out).
[[nodiscard]] SchedulePtr make_bine_alltoall(int ranks, int blocks_per_rank = 1);

}  // namespace topocoll::algorithms
