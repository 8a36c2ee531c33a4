#pragma once
// The runtime's entry points, one per MPI collective; the C API (c_api.cpp) and the PMPI
// wrappers (pmpi_intercept.cpp) call them; reductions.cpp and data_movement.cpp define them.
// `algorithm`: a registry name, "auto", "mpi", or nullptr for TOPOCOLL_<COLL>_ALGORITHM. Each
// returns an MPI error code.
#include <mpi.h>

namespace topocoll::mpi {

int allreduce(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, const char* algorithm);
int reduce_scatter_block(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const char* algorithm);
int reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const char* algorithm);
// MPI_Reduce_scatter_c's counts (MPI-4 large-count binding).
int reduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const char* algorithm);
int allgather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, const char* algorithm);
int bcast(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
          const char* algorithm);
int reduce(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
           int root, MPI_Comm comm, const char* algorithm);
int gather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
           MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
           const char* algorithm);
int scatter(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
            MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
            const char* algorithm);
int alltoall(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, const char* algorithm);

// The algorithm the calling thread's last call ran ("mpi" for the MPI library).
const char* last_algorithm();
// Why that call went to the MPI library or failed ("" when topocoll served it).
const char* last_reason();

}  // namespace topocoll::mpi
