/* topocoll-call-loop ALGORITHM ITERATIONS COUNT: ITERATIONS back-to-back allreduce calls of
 * COUNT floats (sum) after a warm-up and a barrier, no barrier or timer between them; prints
 * the mean microseconds per call on rank 0. ALGORITHM "ompi" calls the MPI library's own
 * MPI_Allreduce (Open MPI's algorithm forced with OMPI_MCA_coll_tuned_use_dynamic_rules=1
 * OMPI_MCA_coll_tuned_allreduce_algorithm=N), anything else topocoll_allreduce with it.
 * The cost of a call that topocoll-bench's per-iteration barrier hides, and the loop that
 * callgrind counts instructions on (docs/mpi-benchmark.md, "Small messages"). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topocoll_mpi.h"

static int call(const char* algorithm, const float* in, float* out, int count) {
  if (strcmp(algorithm, "ompi") == 0)
    return MPI_Allreduce(in, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  return topocoll_allreduce(in, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, algorithm);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 4 || atoi(argv[2]) < 1 || atoi(argv[3]) < 0) {
    if (rank == 0) fprintf(stderr, "usage: topocoll-call-loop ALGORITHM ITERATIONS COUNT\n");
    MPI_Finalize();
    return 2;
  }
  const char* algorithm = argv[1];
  const int iterations = atoi(argv[2]), count = atoi(argv[3]);
  float* in = calloc((size_t)count + 1, sizeof(float));
  float* out = calloc((size_t)count + 1, sizeof(float));
  for (int i = 0; i < iterations / 10 + 10; ++i) call(algorithm, in, out, count);
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int i = 0; i < iterations; ++i) call(algorithm, in, out, count);
  const double seconds = MPI_Wtime() - start;
  if (rank == 0) printf("%.3f\n", seconds / iterations * 1e6);
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}
