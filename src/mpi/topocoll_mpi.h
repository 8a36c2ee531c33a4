/* topocoll MPI runtime: the C API of libtopocoll_mpi (docs/mpi.md).
 *
 * Each function has the signature of its MPI counterpart plus `algorithm`:
 *   - a registry name ("ring", "swing-bw", ... : `topocoll algorithms` lists them),
 *   - "auto": the rules file TOPOCOLL_RULES, else the built-in default table,
 *   - "mpi": the MPI library's own collective (PMPI_*),
 *   - NULL: what TOPOCOLL_<COLL>_ALGORITHM says (default "auto").
 * They return MPI error codes (MPI_SUCCESS on success). A call the chosen algorithm cannot
 * serve (unknown name, collective not implemented, rank count, non-commutative op, ...)
 * follows TOPOCOLL_FALLBACK: warn (default) or silent run the MPI library's collective,
 * error returns MPI_ERR_ARG after one line on stderr. MPI_IN_PLACE is accepted wherever
 * the MPI standard accepts it. Thread safety: calls on one communicator must be serialized
 * (MPI_THREAD_SERIALIZED); calls on different communicators may run concurrently. */
#ifndef TOPOCOLL_MPI_H
#define TOPOCOLL_MPI_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

int topocoll_allreduce(const void* sendbuf, void* recvbuf, MPI_Count count,
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const char* algorithm);
int topocoll_reduce_scatter_block(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                  const char* algorithm);
int topocoll_reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                            const char* algorithm);
int topocoll_allgather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                       const char* algorithm);
int topocoll_bcast(void* buffer, MPI_Count count, MPI_Datatype datatype, int root,
                   MPI_Comm comm, const char* algorithm);
int topocoll_reduce(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Op op, int root, MPI_Comm comm, const char* algorithm);
int topocoll_gather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                    void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                    MPI_Comm comm, const char* algorithm);
int topocoll_scatter(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                     void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                     MPI_Comm comm, const char* algorithm);
int topocoll_alltoall(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                      const char* algorithm);

/* The algorithm the last call on this thread ran: a registry name, or "mpi" when the MPI
 * library's collective served it (benchmarks print it). Never NULL. */
const char* topocoll_last_algorithm(void);

/* Why the last call on this thread went to the MPI library (the fallback reason, or
 * "requested" for "mpi"), or why it failed; "" when topocoll served it. Never NULL. */
const char* topocoll_last_reason(void);

/* Drops the cached schedules of every communicator (they are rebuilt on the next call); it
 * must not overlap a topocoll call in another thread. Private communicators are freed with
 * their user communicator. */
void topocoll_clear_cache(void);

#ifdef __cplusplus
}
#endif

#endif /* TOPOCOLL_MPI_H */
