#pragma once
// Runs a compiled plan over MPI point-to-point (DESIGN.md "MPI runtime"): per step of a lane,
// every receive and send is posted nonblocking (one message per operation; an operation whose
// slots are not contiguous in memory is sent as one message with an hindexed datatype over
// the element type, and messages above 1 GiB or INT_MAX elements are split in pieces both
// sides cut identically); once they all completed, the receives and copies are applied in list
// order with MPI_Reduce_local in the declared operand order. A one-lane plan waits with
// Waitall per step; with several lanes every lane keeps its step in flight and moves on as
// soon as that step (and the steps of other lanes it waits for) completed (Waitsome over all
// lanes), never waiting for the slowest lane.
#include <mpi.h>

#include <array>

#include "element_type.hpp"
#include "plan.hpp"

namespace topocoll::mpi {

struct ExecutionContext {
  MPI_Comm comm = MPI_COMM_NULL;  // the private duplicate
  ElementType type;
  MPI_Op op = MPI_OP_NULL;  // reductions only
  bool commutative = true;
  std::uint64_t max_message_bytes = std::uint64_t{1} << 30;
  std::array<char*, region_count> bases{};  // element 0 of each region
  TypeCache* types = nullptr;               // where multi-range datatypes are kept between calls
};

// Returns an MPI error code.
int execute_plan(const Plan& plan, const ExecutionContext& context);

}  // namespace topocoll::mpi
