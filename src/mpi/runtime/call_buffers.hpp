#pragma once
// What the collectives share between building a plan and running it: slot sizes from counts,
// the cached plan of a call, running it over the user's regions (padded when the plan needs
// it), and views of user buffers as packed bytes.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "comm_state.hpp"
#include "element_type.hpp"
#include "plan.hpp"
#include "selection.hpp"

namespace topocoll::mpi {

// Chunk r holds counts[r] elements, split into S = B / P blocks by the early/late rule.
[[nodiscard]] SlotSizes chunk_offsets(const ScheduleInfo& info,
                                      const std::vector<std::uint64_t>& counts);
[[nodiscard]] ProgramKey key_of(const Choice& c);
// The plan of the chosen algorithm for `count` elements (BlockPartition's meaning of count).
const Plan& uniform_plan(CommState& state, const Choice& c, std::uint64_t count);
// Runs `plan` with the user slots at `user` and the alltoall receive slots at `receive`.
int run(CommState& state, const Choice& choice, const Plan& plan, const ElementType& type,
        MPI_Op op, char* user, char* receive);

[[nodiscard]] inline char* writable(const void* p) {
  return static_cast<char*>(const_cast<void*>(p));
}
// Bytes of one rank's data (count x type size).
[[nodiscard]] std::uint64_t bytes_of(MPI_Count count, MPI_Datatype type);
// A user buffer of packed bytes: the buffer itself when the type is contiguous, else `area`
// (packed from the buffer when `pack`).
char* packed_view(char* buffer, MPI_Count count, const ElementType& type, ElementBuffer& area,
                  std::uint64_t area_bytes, bool pack);

}  // namespace topocoll::mpi
