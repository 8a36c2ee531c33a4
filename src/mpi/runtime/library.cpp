#include "library.hpp"

#include <climits>
#include <vector>

namespace topocoll::mpi {
namespace {

bool fits(MPI_Count n) { return n >= INT_MIN && n <= INT_MAX; }
int narrow(MPI_Count n) { return static_cast<int>(n); }

// No binding of this MPI library takes the count: the error a large-count call gets.
int count_too_large(MPI_Comm comm) {
  if (comm != MPI_COMM_NULL) PMPI_Comm_call_errhandler(comm, MPI_ERR_COUNT);
  return MPI_ERR_COUNT;
}

#if MPI_VERSION >= 4
constexpr bool has_large_count = true;
#else
constexpr bool has_large_count = false;
#endif

}  // namespace

// Each function: the int binding, the _c binding, or the error (see library.hpp).
#if MPI_VERSION >= 4
#define TOPOCOLL_LARGE(call) return call
#else
#define TOPOCOLL_LARGE(call) return count_too_large(comm)
#endif

int library_allreduce(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type,
                      MPI_Op op, MPI_Comm comm) {
  if (fits(count)) return PMPI_Allreduce(sendbuf, recvbuf, narrow(count), type, op, comm);
  TOPOCOLL_LARGE(PMPI_Allreduce_c(sendbuf, recvbuf, count, type, op, comm));
}

int library_reduce_scatter_block(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                 MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  if (fits(recvcount))
    return PMPI_Reduce_scatter_block(sendbuf, recvbuf, narrow(recvcount), type, op, comm);
  TOPOCOLL_LARGE(PMPI_Reduce_scatter_block_c(sendbuf, recvbuf, recvcount, type, op, comm));
}

int library_reduce_scatter(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                           MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  int size = 0;
  if (comm != MPI_COMM_NULL) PMPI_Comm_size(comm, &size);
  std::vector<int> counts;
  bool all_fit = true;
  for (int r = 0; r < size && recvcounts; ++r) {
    all_fit = all_fit && fits(recvcounts[r]);
    counts.push_back(narrow(recvcounts[r]));
  }
  if (all_fit || !has_large_count)
    return all_fit ? PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts ? counts.data() : nullptr,
                                         type, op, comm)
                   : count_too_large(comm);
  TOPOCOLL_LARGE(PMPI_Reduce_scatter_c(sendbuf, recvbuf, recvcounts, type, op, comm));
}

int library_allgather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (fits(sendcount) && fits(recvcount))
    return PMPI_Allgather(sendbuf, narrow(sendcount), sendtype, recvbuf, narrow(recvcount),
                          recvtype, comm);
  TOPOCOLL_LARGE(
      PMPI_Allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
}

int library_bcast(void* buffer, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm) {
  if (fits(count)) return PMPI_Bcast(buffer, narrow(count), type, root, comm);
  TOPOCOLL_LARGE(PMPI_Bcast_c(buffer, count, type, root, comm));
}

int library_reduce(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type,
                   MPI_Op op, int root, MPI_Comm comm) {
  if (fits(count)) return PMPI_Reduce(sendbuf, recvbuf, narrow(count), type, op, root, comm);
  TOPOCOLL_LARGE(PMPI_Reduce_c(sendbuf, recvbuf, count, type, op, root, comm));
}

int library_gather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (fits(sendcount) && fits(recvcount))
    return PMPI_Gather(sendbuf, narrow(sendcount), sendtype, recvbuf, narrow(recvcount), recvtype,
                       root, comm);
  TOPOCOLL_LARGE(
      PMPI_Gather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm));
}

int library_scatter(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (fits(sendcount) && fits(recvcount))
    return PMPI_Scatter(sendbuf, narrow(sendcount), sendtype, recvbuf, narrow(recvcount), recvtype,
                        root, comm);
  TOPOCOLL_LARGE(
      PMPI_Scatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm));
}

int library_alltoall(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (fits(sendcount) && fits(recvcount))
    return PMPI_Alltoall(sendbuf, narrow(sendcount), sendtype, recvbuf, narrow(recvcount), recvtype,
                         comm);
  TOPOCOLL_LARGE(PMPI_Alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
}

#undef TOPOCOLL_LARGE

}  // namespace topocoll::mpi
