/* One collective on data that depends on rank and index, checked on every rank
 * (tests/python/test_interop_tuning.py runs it under MPICH with a selection JSON file, which
 * MPICH reads at start-up and aborts on when it names an algorithm MPICH does not have, or
 * when the program calls a collective the file does not list).
 * Usage: mpich_collective_check allreduce|allgather|alltoall|bcast|reduce-scatter COUNT */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int value(int rank, long i) { return rank * 1000 + (int)(i % 997); }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, n = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (argc != 3) MPI_Abort(MPI_COMM_WORLD, 2);
  const char* c = argv[1];
  const long count = atol(argv[2]);
  int* in = malloc(sizeof(int) * (size_t)(count * n));
  int* out = malloc(sizeof(int) * (size_t)(count * n));
  long wrong = 0;
  for (long i = 0; i < count * n; ++i) in[i] = value(rank, i);
  if (strcmp(c, "allreduce") == 0) {
    MPI_Allreduce(in, out, (int)count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (long i = 0; i < count; ++i) {
      long sum = 0;
      for (int r = 0; r < n; ++r) sum += value(r, i);
      wrong += out[i] != sum;
    }
  } else if (strcmp(c, "allgather") == 0) {
    MPI_Allgather(in, (int)count, MPI_INT, out, (int)count, MPI_INT, MPI_COMM_WORLD);
    for (long i = 0; i < count * n; ++i) wrong += out[i] != value((int)(i / count), i % count);
  } else if (strcmp(c, "alltoall") == 0) {
    MPI_Alltoall(in, (int)count, MPI_INT, out, (int)count, MPI_INT, MPI_COMM_WORLD);
    for (long i = 0; i < count * n; ++i)
      wrong += out[i] != value((int)(i / count), rank * count + i % count);
  } else if (strcmp(c, "bcast") == 0) {
    MPI_Bcast(in, (int)count, MPI_INT, 0, MPI_COMM_WORLD);
    for (long i = 0; i < count; ++i) wrong += in[i] != value(0, i);
  } else {
    int* counts = malloc(sizeof(int) * (size_t)n);
    for (int r = 0; r < n; ++r) counts[r] = (int)count;
    MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (long i = 0; i < count; ++i) {
      long sum = 0;
      for (int r = 0; r < n; ++r) sum += value(r, rank * count + i);
      wrong += out[i] != sum;
    }
    free(counts);
  }
  /* Every rank reports: a second collective would need its own entry in the file (MPICH
   * 4.0.2 aborts on a collective its selection file does not list). */
  printf("rank %d wrong %ld\n", rank, wrong);
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}
