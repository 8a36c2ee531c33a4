// libtopocoll_pmpi: the C bindings of nine MPI collectives, served by the runtime with the
// algorithm TOPOCOLL_<COLL>_ALGORITHM names (default auto); the MPI library's own
// collective is reached through PMPI_* (docs/mpi.md). Only C bindings are intercepted.
#include <mpi.h>

#include "runtime/collectives.hpp"

namespace rt = topocoll::mpi;

extern "C" {

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm) {
  return rt::allreduce(sendbuf, recvbuf, count, datatype, op, comm, nullptr);
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return rt::reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, nullptr);
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return rt::reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, nullptr);
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return rt::allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, nullptr);
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return rt::bcast(buffer, count, datatype, root, comm, nullptr);
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm) {
  return rt::reduce(sendbuf, recvbuf, count, datatype, op, root, comm, nullptr);
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return rt::gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                    nullptr);
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return rt::scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                     nullptr);
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return rt::alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, nullptr);
}

}  // extern "C"
