// The C API of libtopocoll_mpi (topocoll_mpi.h): thin wrappers over the runtime.
#include <cstdlib>

#include "runtime/collectives.hpp"
#include "runtime/comm_state.hpp"
#include "runtime/measure.hpp"
#include "topocoll_mpi.h"

namespace rt = topocoll::mpi;

extern "C" {

int topocoll_allreduce(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, const char* algorithm) {
  return rt::allreduce(sendbuf, recvbuf, count, datatype, op, comm, algorithm);
}

int topocoll_reduce_scatter_block(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                  const char* algorithm) {
  return rt::reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, algorithm);
}

int topocoll_reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                            const char* algorithm) {
  return rt::reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, algorithm);
}

int topocoll_allgather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                       const char* algorithm) {
  return rt::allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, algorithm);
}

int topocoll_bcast(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                   const char* algorithm) {
  return rt::bcast(buffer, count, datatype, root, comm, algorithm);
}

int topocoll_reduce(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Op op, int root, MPI_Comm comm, const char* algorithm) {
  return rt::reduce(sendbuf, recvbuf, count, datatype, op, root, comm, algorithm);
}

int topocoll_gather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    const char* algorithm) {
  return rt::gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                    algorithm);
}

int topocoll_scatter(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                     const char* algorithm) {
  return rt::scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                     algorithm);
}

int topocoll_alltoall(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                      const char* algorithm) {
  return rt::alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, algorithm);
}

const char* topocoll_last_algorithm(void) { return rt::last_algorithm(); }

const char* topocoll_last_reason(void) { return rt::last_reason(); }

void topocoll_clear_cache(void) { rt::clear_all_caches(); }

int topocoll_measure_loggp(MPI_Comm comm, int peer_a, int peer_b, const char* options_json,
                           char** result_json) {
  return rt::measure_loggp(comm, peer_a, peer_b, options_json, result_json);
}

int topocoll_measure_host(const char* options_json, char** result_json) {
  return rt::measure_host(options_json, result_json);
}

int topocoll_time_collective(MPI_Comm comm, const char* collective, const char* algorithm,
                             MPI_Count bytes, int warmup, int repetitions, double times[],
                             MPI_Count* wrong) {
  return rt::time_collective(comm, collective, algorithm, bytes, warmup, repetitions, times, wrong);
}

const char* topocoll_measure_error(void) { return rt::measure_error(); }

void topocoll_free(void* memory) { std::free(memory); }

}  // extern "C"
