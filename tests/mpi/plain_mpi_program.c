/* A plain MPI program, written against MPI only (no topocoll header): it calls the nine
 * collectives topocoll intercepts, with data that depends on rank and element, in place and
 * not, with a non-zero root, and rank 0 prints one checksum line per collective. The test
 * (preload_test.sh) runs it with and without LD_PRELOAD=libtopocoll_pmpi.so and compares. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 37 /* per rank: not divisible by most rank counts */

static long long value(int rank, int i) { return (rank * 7919LL + i * 104729LL) % 100003; }

/* Weighted so that a value in the wrong place changes the sum. */
static unsigned long long checksum(const long long* data, int n) {
  unsigned long long sum = 0;
  for (int i = 0; i < n; ++i) sum = sum * 1000003ULL + (unsigned long long)data[i];
  return sum;
}

/* Rank 0 prints the checksum of every rank's result, in rank order, without collectives. */
static void report(const char* name, const long long* data, int n, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  unsigned long long mine = checksum(data, n);
  if (rank != 0) {
    MPI_Send(&mine, 1, MPI_UNSIGNED_LONG_LONG, 0, 99, comm);
    return;
  }
  printf("%s", name);
  for (int r = 0; r < size; ++r) {
    unsigned long long c = mine;
    if (r > 0) MPI_Recv(&c, 1, MPI_UNSIGNED_LONG_LONG, r, 99, comm, MPI_STATUS_IGNORE);
    printf(" %llu", c);
  }
  printf("\n");
  fflush(stdout);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int root = size - 1;
  const int total = N * size;
  long long* send = malloc(sizeof(long long) * (size_t)total);
  long long* recv = malloc(sizeof(long long) * (size_t)total);
  int* counts = malloc(sizeof(int) * (size_t)size);
  for (int i = 0; i < total; ++i) send[i] = value(rank, i);

  MPI_Allreduce(send, recv, N, MPI_LONG_LONG, MPI_SUM, comm);
  report("allreduce", recv, N, comm);
  for (int i = 0; i < N; ++i) recv[i] = value(rank, i);
  MPI_Allreduce(MPI_IN_PLACE, recv, N, MPI_LONG_LONG, MPI_MAX, comm);
  report("allreduce_in_place_max", recv, N, comm);

  MPI_Reduce_scatter_block(send, recv, N, MPI_LONG_LONG, MPI_SUM, comm);
  report("reduce_scatter_block", recv, N, comm);

  int sum = 0;
  for (int r = 0; r < size; ++r) sum += counts[r] = N + (r % 3) - 1;
  MPI_Reduce_scatter(send, recv, counts, MPI_LONG_LONG, MPI_SUM, comm);
  report("reduce_scatter", recv, counts[rank], comm);
  (void)sum;

  MPI_Allgather(send, N, MPI_LONG_LONG, recv, N, MPI_LONG_LONG, comm);
  report("allgather", recv, total, comm);

  for (int i = 0; i < N; ++i) recv[i] = rank == root ? value(rank, i) : -1;
  MPI_Bcast(recv, N, MPI_LONG_LONG, root, comm);
  report("bcast", recv, N, comm);

  for (int i = 0; i < N; ++i) recv[i] = 0;
  MPI_Reduce(send, recv, N, MPI_LONG_LONG, MPI_SUM, root, comm);
  report("reduce", recv, rank == root ? N : 0, comm);

  MPI_Gather(send, N, MPI_LONG_LONG, recv, N, MPI_LONG_LONG, root, comm);
  report("gather", recv, rank == root ? total : 0, comm);

  MPI_Scatter(send, N, MPI_LONG_LONG, recv, N, MPI_LONG_LONG, root, comm);
  report("scatter", recv, N, comm);

  MPI_Alltoall(send, N, MPI_LONG_LONG, recv, N, MPI_LONG_LONG, comm);
  report("alltoall", recv, total, comm);

  free(send);
  free(recv);
  free(counts);
  MPI_Finalize();
  return 0;
}
