/* topocoll-first-calls SIZES STEP: allreduce (MPI_INT, sum, `auto`) of STEP, 2 STEP, ...,
 * SIZES x STEP elements, then the same sizes again; prints on rank 0 the mean CPU time
 * (user + system, getrusage) per call of each pass. A first call of a size pays `auto`'s
 * choice, including the predictions against the MPI library's own algorithm (docs/mpi.md,
 * "`auto` against the library"); the second pass finds it remembered. CPU time rather than
 * wall time, so that a shared machine's load counts less. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "topocoll_mpi.h"

static double cpu_seconds(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

/* Mean CPU seconds per call of one pass over the sizes. */
static double pass(const int* in, int* out, int sizes, int step) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = cpu_seconds();
  for (int i = 1; i <= sizes; ++i)
    topocoll_allreduce(in, out, (MPI_Count)i * step, MPI_INT, MPI_SUM, MPI_COMM_WORLD, "auto");
  return (cpu_seconds() - start) / sizes;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int sizes = argc == 3 ? atoi(argv[1]) : 0, step = argc == 3 ? atoi(argv[2]) : 0;
  if (sizes < 1 || step < 1 || sizes > (1 << 30) / step) {
    if (rank == 0)
      fprintf(stderr,
              "usage: topocoll-first-calls SIZES STEP (both at least 1, SIZES x STEP "
              "at most 2^30 elements)\n");
    MPI_Finalize();
    return 2;
  }
  int* in = calloc((size_t)sizes * (size_t)step, sizeof(int));
  int* out = calloc((size_t)sizes * (size_t)step, sizeof(int));
  if (!in || !out) {
    if (rank == 0) fprintf(stderr, "topocoll-first-calls: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const double first = pass(in, out, sizes, step);
  const double again = pass(in, out, sizes, step);
  if (rank == 0)
    printf("%d sizes of %d to %d ints: first call %.1f us CPU, again %.1f us CPU (rank 0, mean)\n",
           sizes, step, sizes * step, 1e6 * first, 1e6 * again);
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}
