#include "arguments.hpp"

namespace topocoll::mpi {

std::string invalid_argument(const Call& call, int* size, int* inter) {
  if (call.comm == MPI_COMM_NULL) return "MPI_COMM_NULL";
  if (call.count < 0) return "negative count";
  if (call.type == MPI_DATATYPE_NULL) return "MPI_DATATYPE_NULL";
  if (is_reduction(core_collective(call.collective)) && call.op == MPI_OP_NULL)
    return "MPI_OP_NULL";
  if (PMPI_Comm_test_inter(call.comm, inter) != MPI_SUCCESS) return "invalid communicator";
  PMPI_Comm_size(call.comm, size);
  // An intercommunicator's roots (MPI_ROOT, MPI_PROC_NULL, a remote rank) are the library's.
  if (!*inter && is_rooted(core_collective(call.collective)) &&
      (call.root < 0 || call.root >= *size))
    return "root " + std::to_string(call.root) + " out of range";
  return "";
}

bool aliased(const void* sendbuf, const void* recvbuf, MPI_Count count) {
  return count > 0 && sendbuf == recvbuf && sendbuf != MPI_BOTTOM && sendbuf != MPI_IN_PLACE;
}

void check_buffers(Call& call, const void* sendbuf, const void* recvbuf, MPI_Count count,
                   bool in_place_send_forbidden, bool recv_significant) {
  if (in_place_send_forbidden && sendbuf == MPI_IN_PLACE) {
    forbid_in_place(call, "MPI_IN_PLACE as sendbuf on a rank other than the root");
  } else if (recv_significant && recvbuf == MPI_IN_PLACE) {
    call.misuse = "MPI_IN_PLACE as recvbuf";
  } else if (recv_significant && aliased(sendbuf, recvbuf, count)) {
    call.misuse = "sendbuf and recvbuf are the same buffer (MPI_IN_PLACE is the way to say it)";
  }
}

void forbid_in_place(Call& call, const std::string& what) {
  call.misuse = what;
  call.raise_misuse = true;
}

int forbidden_in_place_class() {
  static const int error_class = [] {
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    PMPI_Get_library_version(version, &length);
    return std::string(version, static_cast<std::size_t>(length)).find("Open MPI") !=
                   std::string::npos
               ? MPI_ERR_ARG
               : MPI_ERR_BUFFER;
  }();
  return error_class;
}

int rank_in(MPI_Comm comm) {
  int rank = -1;
  if (comm != MPI_COMM_NULL) PMPI_Comm_rank(comm, &rank);
  return rank;
}

}  // namespace topocoll::mpi
