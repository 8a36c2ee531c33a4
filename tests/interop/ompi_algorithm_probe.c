/* Which algorithm Open MPI's coll_tuned runs for a call (tests/python/test_interop_tuning.py).
 *
 * coll_tuned (mca_coll_tuned.so) calls the algorithms of libmpi.so through their exported
 * symbols, so the definitions below, exported by this executable (-rdynamic), run instead:
 * each prints which algorithm was chosen and forwards to Open MPI's own. Usage:
 *   ompi_algorithm_probe allreduce|allgather|alltoall|bcast|reduce-scatter BYTES
 * (bytes as the rules file counts them) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*seven_args)(void*, void*, void*, void*, void*, void*, void*);
typedef int (*eight_args)(void*, void*, void*, void*, void*, void*, void*, void*);

static void report(const char* name) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("ompi-algorithm %s\n", name);
  fflush(stdout);
}

#define FORWARD7(name)                                                              \
  int name(void* a, void* b, void* c, void* d, void* e, void* f, void* g) {         \
    report(#name);                                                                  \
    return ((seven_args)dlsym(RTLD_NEXT, #name))(a, b, c, d, e, f, g);              \
  }
#define FORWARD8(name)                                                              \
  int name(void* a, void* b, void* c, void* d, void* e, void* f, void* g, void* h) { \
    report(#name);                                                                  \
    return ((eight_args)dlsym(RTLD_NEXT, #name))(a, b, c, d, e, f, g, h);           \
  }

/* allreduce(sbuf, rbuf, count, dtype, op, comm, module) */
FORWARD7(ompi_coll_base_allreduce_intra_recursivedoubling)
FORWARD7(ompi_coll_base_allreduce_intra_ring)
FORWARD7(ompi_coll_base_allreduce_intra_redscat_allgather)
/* allgather and alltoall(sbuf, scount, sdtype, rbuf, rcount, rdtype, comm, module) */
FORWARD8(ompi_coll_base_allgather_intra_recursivedoubling)
FORWARD8(ompi_coll_base_allgather_intra_ring)
FORWARD8(ompi_coll_base_allgather_intra_bruck)
FORWARD8(ompi_coll_base_alltoall_intra_pairwise)
FORWARD8(ompi_coll_base_alltoall_intra_bruck)
/* bcast(buf, count, dtype, root, comm, module, segsize) */
FORWARD7(ompi_coll_base_bcast_intra_binomial)
/* reduce_scatter(sbuf, rbuf, rcounts, dtype, op, comm, module) */
FORWARD7(ompi_coll_base_reduce_scatter_intra_basic_recursivehalving)
FORWARD7(ompi_coll_base_reduce_scatter_intra_ring)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int ranks = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (argc != 3) {
    fprintf(stderr, "usage: %s COLLECTIVE BYTES\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const long bytes = atol(argv[2]);
  /* allreduce and bcast: count x 1 B; the others: the rules count the whole buffer. */
  const int whole = strcmp(argv[1], "allreduce") == 0 || strcmp(argv[1], "bcast") == 0;
  const long count = whole ? bytes : bytes / ranks;
  char* in = calloc((size_t)bytes + 1, 1);
  char* out = calloc((size_t)bytes + 1, 1);
  if (strcmp(argv[1], "allreduce") == 0)
    MPI_Allreduce(in, out, (int)count, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD);
  else if (strcmp(argv[1], "allgather") == 0)
    MPI_Allgather(in, (int)count, MPI_BYTE, out, (int)count, MPI_BYTE, MPI_COMM_WORLD);
  else if (strcmp(argv[1], "alltoall") == 0)
    MPI_Alltoall(in, (int)count, MPI_BYTE, out, (int)count, MPI_BYTE, MPI_COMM_WORLD);
  else if (strcmp(argv[1], "bcast") == 0)
    MPI_Bcast(in, (int)count, MPI_BYTE, 0, MPI_COMM_WORLD);
  else {
    int* counts = malloc(sizeof(int) * (size_t)ranks);
    for (int r = 0; r < ranks; ++r) counts[r] = (int)count;
    MPI_Reduce_scatter(in, out, counts, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD);
    free(counts);
  }
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}
