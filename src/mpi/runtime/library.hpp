#pragma once
// The MPI library's own collectives (PMPI_*) with MPI_Count counts, for the calls topocoll
// leaves to it: the int binding when every count fits in an int (what an MPI-3 program
// calls), else the MPI-4 large-count binding PMPI_<Collective>_c where mpi.h has it (MPICH 4),
// else MPI_ERR_COUNT raised on the communicator (the MPI-3 library cannot take the call).
#include <mpi.h>

namespace topocoll::mpi {

int library_allreduce(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type,
                      MPI_Op op, MPI_Comm comm);
int library_reduce_scatter_block(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                 MPI_Datatype type, MPI_Op op, MPI_Comm comm);
// `recvcounts` has one count per rank of `comm`.
int library_reduce_scatter(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                           MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int library_allgather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int library_bcast(void* buffer, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm);
int library_reduce(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type,
                   MPI_Op op, int root, MPI_Comm comm);
int library_gather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int library_scatter(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int library_alltoall(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm);

}  // namespace topocoll::mpi
