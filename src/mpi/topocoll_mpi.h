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

/* Measurement (docs/calibration.md): the timing loops of calibration and validation. Each
 * returns an MPI error code; a bad argument returns one (MPI_ERR_COMM, MPI_ERR_RANK,
 * MPI_ERR_ARG, MPI_ERR_COUNT) with the reason in topocoll_measure_error(), and never aborts.
 * Collective calls must be made by every rank of comm with the same arguments (checked).
 * JSON results are allocated by the library: release them with topocoll_free. */

/* LogGP parameters of the pair (peer_a, peer_b) of comm, after Netgauge's method (Hoefler,
 * Lichei, Rehm, IPDPS 2007): ping-pong, message trains, send and receive overheads, the eager
 * threshold. Collective over comm (the other ranks wait); *result_json is the same JSON
 * object on every rank. options_json: NULL, "" or an object with any of "repetitions",
 * "warmup", "pingpong_sizes", "train_sizes", "train_counts", "exchange_sizes" (ascending
 * integer lists; exchanges, both ranks sending at once, only when given), "overhead_bytes". */
int topocoll_measure_loggp(MPI_Comm comm, int peer_a, int peer_b, const char* options_json,
                           char** result_json);

/* Throughput of the runtime's own copy, packing and reduction code (MPI_Reduce_local, MPI_SUM)
 * on the calling rank, per datatype class. Local: no communication. options_json: NULL, ""
 * or an object with any of "bytes", "range_bytes", "repetitions", "warmup". */
int topocoll_measure_host(const char* options_json, char** result_json);

/* Times `collective` ("allreduce", "reduce_scatter_block", "reduce_scatter", "allgather",
 * "bcast", "reduce", "gather", "scatter", "alltoall") run through this API with `algorithm`
 * (as above; a registry name that the runtime does not serve at this size is MPI_ERR_ARG)
 * on `bytes` per rank of MPI_INT data (rounded down to whole elements, and to P blocks for
 * the chunked collectives; MPI_SUM, root 0): `warmup` calls, then `repetitions` timed ones.
 * times[i] is repetition i's time in seconds on the slowest rank; *wrong the output elements
 * that differ from the expected ones, summed over ranks and calls. Collective over comm. */
int topocoll_time_collective(MPI_Comm comm, const char* collective, const char* algorithm,
                             MPI_Count bytes, int warmup, int repetitions, double times[],
                             MPI_Count* wrong);

/* Why this thread's last measurement call failed; "" after a success. Never NULL. */
const char* topocoll_measure_error(void);

/* Releases a result of the measurement functions (NULL is ignored). */
void topocoll_free(void* memory);

#ifdef __cplusplus
}
#endif

#endif /* TOPOCOLL_MPI_H */
