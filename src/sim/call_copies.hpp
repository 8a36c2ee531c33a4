#pragma once
// The copies the MPI runtime makes outside a schedule: an out-of-place call first copies the
// user's input where the schedule works on it and, for some collectives, copies its result out
// after the schedule ends (src/mpi/runtime/reductions.cpp and data_movement.cpp, contiguous
// datatypes). The schedule's own copies are steps; these are not, so the simulator charges them
// from here (docs/host-costs.md, "The call's own copies").
#include <cstdint>

#include "core/schedule.hpp"

namespace topocoll::sim {

// Bytes one rank copies before its first step and after its last.
struct CallCopyBytes {
  std::uint64_t before = 0;
  std::uint64_t after = 0;
};

// What the runtime knows of one rank when it decides on its copies.
struct CallCopyRank {
  bool root = false;                  // the collective's root (rooted collectives)
  bool writes_user_blocks = false;    // the rank's schedule writes user blocks [0, B)
  std::uint64_t vector_bytes = 0;     // the user vector (alltoall: one buffer)
  std::uint64_t own_block_bytes = 0;  // the rank's chunk (chunked collectives)
};

// `in_place`: the call passes MPI_IN_PLACE (the root's recvbuf for scatter).
[[nodiscard]] CallCopyBytes call_copy_bytes(Collective collective, const CallCopyRank& rank,
                                            bool in_place);

// Whether a rank's schedule ever receives into or copies onto a user block (blocks [0, B)):
// the runtime then gives it a copy of the input instead of the caller's send buffer.
[[nodiscard]] bool writes_user_blocks(const Schedule& schedule, int rank);

}  // namespace topocoll::sim
