// libtopocoll_pmpi: the C bindings of nine MPI collectives, served by the runtime with the
// algorithm TOPOCOLL_<COLL>_ALGORITHM names (default auto); the MPI library's own
// collective is reached through PMPI_* (docs/mpi.md). Only C bindings are intercepted: the
// int ones, and the MPI-4 large-count ones (MPI_<Collective>_c) where mpi.h declares them.
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

#if MPI_VERSION >= 4
// The MPI-4 large-count bindings (MPI_Count counts): mpi4py 4 calls these under an MPI-4
// library such as MPICH 4, so a drop-in that only replaced the int ones would serve none of
// its calls.
int MPI_Allreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm) {
  return rt::allreduce(sendbuf, recvbuf, count, datatype, op, comm, nullptr);
}

int MPI_Reduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return rt::reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, nullptr);
}

int MPI_Reduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return rt::reduce_scatter_c(sendbuf, recvbuf, recvcounts, datatype, op, comm, nullptr);
}

int MPI_Allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return rt::allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, nullptr);
}

int MPI_Bcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return rt::bcast(buffer, count, datatype, root, comm, nullptr);
}

int MPI_Reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, int root, MPI_Comm comm) {
  return rt::reduce(sendbuf, recvbuf, count, datatype, op, root, comm, nullptr);
}

int MPI_Gather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                 MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return rt::gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                    nullptr);
}

int MPI_Scatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return rt::scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                     nullptr);
}

int MPI_Alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return rt::alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, nullptr);
}
#endif

}  // extern "C"
