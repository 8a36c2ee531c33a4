#pragma once
// Runs a compiled plan over MPI point-to-point (docs/design.md, "5.2 Execution"): per step of a
// lane, every receive and send is posted nonblocking (one message per operation; an operation
// whose slots are not contiguous in memory is one message all the same: packed by the runtime
// into a contiguous staging buffer and unpacked on receipt, or described by an hindexed datatype
// over the element type (PackMode); messages above 1 GiB or INT_MAX elements are split in pieces
// both sides cut identically); once they all completed, the receives and copies are applied in list
// order with MPI_Reduce_local in the declared operand order. A one-lane plan waits with
// Waitall per step; with several lanes every lane keeps its step in flight and moves on as
// soon as that step (and the steps of other lanes it waits for) completed (Waitsome over all
// lanes), never waiting for the slowest lane.
// Pipelining (reducing collectives, segment_bytes > 0): every message is cut in segments of
// segment_bytes (both sides cut the same count of the same type the same way), and in a
// one-lane plan a staged receive whose destination no other item of its step touches is
// reduced segment by segment as the segments arrive (once the sends that read the same
// elements completed), while the later segments are still in flight: per element the same
// operations in the same order, so the bytes are those of the unpipelined run.
#include <mpi.h>

#include <array>
#include <memory>
#include <vector>

#include "element_type.hpp"
#include "pack_mode.hpp"
#include "plan.hpp"

namespace topocoll::mpi {

struct ExecutionContext {
  MPI_Comm comm = MPI_COMM_NULL;  // the private duplicate
  ElementType type;
  MPI_Op op = MPI_OP_NULL;  // reductions only
  bool commutative = true;
  std::uint64_t max_message_bytes = std::uint64_t{1} << 30;
  // Reducing collectives (op set): messages are cut in segments of this size, 0: not cut.
  std::uint64_t segment_bytes = 0;
  std::array<char*, region_count> bases{};  // element 0 of each region
  TypeCache* types = nullptr;               // multi-range datatypes and staging, kept between calls
  // Messages of several ranges; every rank must use the same (the signatures must match).
  PackMode pack = PackMode::datatype;
  // Request arrays per lane, kept between calls so that a call's path allocates none
  // (docs/mpi-benchmark.md, "Small messages"); grown as needed. nullptr: the call's own.
  std::vector<std::vector<MPI_Request>>* requests = nullptr;
};

// Returns an MPI error code.
int execute_plan(const Plan& plan, const ExecutionContext& context);

}  // namespace topocoll::mpi
