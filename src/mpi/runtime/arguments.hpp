#pragma once
// The arguments of a call that the MPI standard forbids, found before topocoll serves it: the
// MPI library reports them (invalid_argument, Call::misuse), or topocoll raises them itself
// where a library would crash on them (Call::raise_misuse). docs/mpi.md, "Errors".
#include <mpi.h>

#include <string>

#include "call.hpp"

namespace topocoll::mpi {

// Arguments the MPI library rejects before anything else (a null handle, a negative count, a
// root out of range); empty when there are none. When the communicator is valid, its size and
// whether it is an intercommunicator are left in *size and *inter (asked once per call).
[[nodiscard]] std::string invalid_argument(const Call& call, int* size, int* inter);
// `sendbuf` and `recvbuf` are the same memory (and not MPI_BOTTOM / NULL for count 0).
[[nodiscard]] bool aliased(const void* sendbuf, const void* recvbuf, MPI_Count count);
// Sets Call::misuse from the buffer arguments: `in_place_send_forbidden` (MPI_IN_PLACE as
// sendbuf where this rank may not use it: raised by topocoll), recvbuf == MPI_IN_PLACE where
// `recv_significant`, and aliased buffers of `count` elements where both are significant.
void check_buffers(Call& call, const void* sendbuf, const void* recvbuf, MPI_Count count,
                   bool in_place_send_forbidden, bool recv_significant);
// MPI_IN_PLACE where `what` says it is forbidden and a library may read it as an address.
void forbid_in_place(Call& call, const std::string& what);
// The class the MPI library gives a forbidden MPI_IN_PLACE: Open MPI 4.1 checks it and
// answers MPI_ERR_ARG; MPICH answers MPI_ERR_BUFFER for its buffer checks.
[[nodiscard]] int forbidden_in_place_class();
// The calling rank in `comm` (-1 for MPI_COMM_NULL).
[[nodiscard]] int rank_in(MPI_Comm comm);

}  // namespace topocoll::mpi
