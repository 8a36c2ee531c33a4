#pragma once
// What a call says on stderr: the TOPOCOLL_VERBOSE line, and errors, which are then raised on
// the user's communicator as the MPI library's own collectives report them.
#include <mpi.h>

#include <string>

#include "call.hpp"

namespace topocoll::mpi {

// "topocoll: <collective> comm_size=P count=N type=T [root=R] <what>"
void log_call(const Call& call, int size, const std::string& what);
// "topocoll: error: <collective> comm_size=P count=N type=T [root=R]: <what>"
void report_error(const Call& call, int size, const std::string& what);
// The MPI error string of `code`'s class.
[[nodiscard]] std::string error_text(int code);
// Calls `comm`'s error handler with `code` (MPI_ERRORS_ARE_FATAL ends the job) and returns it.
int raise_on(MPI_Comm comm, int code);

}  // namespace topocoll::mpi
