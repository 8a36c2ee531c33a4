#pragma once
// Serving one MPI call: choose the algorithm (selection.hpp), then run topocoll's schedule
// (`body`) or the MPI library's collective (`fallback`), log it (TOPOCOLL_VERBOSE) and record
// what ran (topocoll_last_algorithm).
#include <mpi.h>

#include <cstdint>
#include <functional>

#include "comm_state.hpp"
#include "config.hpp"
#include "selection.hpp"

namespace topocoll::mpi {

struct Call {
  MpiCollective collective = MpiCollective::allreduce;
  MPI_Comm comm = MPI_COMM_NULL;
  const char* algorithm = nullptr;
  MPI_Count count = 0;  // the MPI count argument, for the log
  MPI_Datatype type = MPI_DATATYPE_NULL;
  int root = -1;
  MPI_Op op = MPI_OP_NULL;
  std::uint64_t bytes = 0;  // one rank's vector, for the rules
};

// `body` runs when topocoll serves the call; it builds its plan before touching user data, so
// that an exception it raises (a schedule that cannot be built) can still fall back.
using Body = std::function<int(CommState&, const Choice&)>;
using Fallback = std::function<int()>;

int serve(const Call& call, const Body& body, const Fallback& fallback);

}  // namespace topocoll::mpi
