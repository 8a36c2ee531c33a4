#pragma once
// The runtime's measurement API (topocoll_mpi.h, docs/calibration.md): what calibration and
// validation time, in C so that no interpreter sits inside a timing loop. Every function
// returns an MPI error code; bad arguments give an error code and a message
// (measure_error()), never an abort.
#include <mpi.h>

namespace topocoll::mpi {

// LogGP parameters of the pair (peer_a, peer_b) of `comm` (collective over comm). The result
// is a JSON text allocated with malloc, identical on every rank.
int measure_loggp(MPI_Comm comm, int peer_a, int peer_b, const char* options_json,
                  char** result_json);
// Copy, packing and reduction throughput of the runtime's own code on this rank (local).
int measure_host(const char* options_json, char** result_json);
// Per-repetition times of one collective run as the C API runs it (collective over comm);
// `times` gets `repetitions` values (the slowest rank per repetition) on every rank, and
// `wrong` the elements of wrong output summed over ranks and repetitions.
int time_collective(MPI_Comm comm, const char* collective, const char* algorithm, MPI_Count bytes,
                    int warmup, int repetitions, double* times, MPI_Count* wrong);
// Why this thread's last measurement call failed; "" after a success.
const char* measure_error();

}  // namespace topocoll::mpi
