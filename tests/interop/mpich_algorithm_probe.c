/* Which algorithm MPICH ran for one collective, seen through the messages it sent
 * (tests/python/test_interop_tuning.py runs it under a selection JSON file).
 *
 * MPICH's algorithm functions (MPIR_Allreduce_intra_*) are internal to libmpich, so they cannot
 * be interposed the way ompi_algorithm_probe.c interposes Open MPI's. But MPICH built on the
 * ch4:ucx device (Debian's) sends every point-to-point message of a collective with
 * ucp_tag_send_nbx, which libmpich calls through its PLT: this executable defines that
 * function (exported with -rdynamic), records the bytes of each message sent during the
 * collective, and forwards to UCX's own. The sequence of message sizes tells the algorithms
 * apart (recursive doubling sends log P whole vectors, reduce-scatter + allgather halves them).
 *
 * Usage: mpich_algorithm_probe allreduce|allgather|alltoall|bcast|reduce-scatter BYTES OUT
 * BYTES: the vector (allreduce, bcast) or each rank's block (the others); each rank writes
 * "sends S1 S2 ..." (bytes, in order) to OUT.RANK. Reductions use MPI_UINT8_T and MPI_SUM. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kMaxSends = 4096 };
static int recording = 0;
static int sends = 0;
static size_t sizes[kMaxSends];

typedef void* (*SendFn)(void*, const void*, size_t, uint64_t, const void*);

/* UCX's signature (ucp/api/ucp.h): the status pointer, endpoint, buffer, count (bytes for
 * MPICH's contiguous data), tag and request parameters, declared without UCX's headers. */
void* ucp_tag_send_nbx(void* ep, const void* buffer, size_t count, uint64_t tag,
                       const void* param) {
  static SendFn next = NULL;
  if (next == NULL) next = (SendFn)dlsym(RTLD_NEXT, "ucp_tag_send_nbx");
  if (next == NULL) abort();
  if (recording && sends < kMaxSends) sizes[sends++] = count;
  return next(ep, buffer, count, tag, param);
}

static void run(const char* c, int bytes, int n, unsigned char* in, unsigned char* out) {
  if (strcmp(c, "allreduce") == 0) {
    MPI_Allreduce(in, out, bytes, MPI_UINT8_T, MPI_SUM, MPI_COMM_WORLD);
  } else if (strcmp(c, "allgather") == 0) {
    MPI_Allgather(in, bytes, MPI_BYTE, out, bytes, MPI_BYTE, MPI_COMM_WORLD);
  } else if (strcmp(c, "alltoall") == 0) {
    MPI_Alltoall(in, bytes, MPI_BYTE, out, bytes, MPI_BYTE, MPI_COMM_WORLD);
  } else if (strcmp(c, "bcast") == 0) {
    MPI_Bcast(in, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
  } else if (strcmp(c, "reduce-scatter") == 0) {
    int* counts = malloc(sizeof(int) * (size_t)n);
    for (int r = 0; r < n; ++r) counts[r] = bytes;
    MPI_Reduce_scatter(in, out, counts, MPI_UINT8_T, MPI_SUM, MPI_COMM_WORLD);
    free(counts);
  } else {
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, n = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (argc != 4 || atoi(argv[2]) < 1) MPI_Abort(MPI_COMM_WORLD, 2);
  const int bytes = atoi(argv[2]);
  const size_t total = (size_t)bytes * (size_t)n;
  unsigned char* in = malloc(total);
  unsigned char* out = malloc(total);
  for (size_t i = 0; i < total; ++i) in[i] = (unsigned char)(rank + i);
  recording = 1;
  run(argv[1], bytes, n, in, out);
  recording = 0;
  char path[4096];
  snprintf(path, sizeof path, "%s.%d", argv[3], rank);
  FILE* f = fopen(path, "w");
  if (f == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
  fprintf(f, "sends");
  for (int i = 0; i < sends; ++i) fprintf(f, " %zu", sizes[i]);
  fprintf(f, "\n");
  fclose(f);
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}
