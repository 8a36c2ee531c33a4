// A PMPI-level counter of point-to-point messages, for tests that must see how the runtime
// cuts its messages (not only that results are right). Linked into a test program before the
// MPI library, its PMPI_Isend and PMPI_Irecv come first in symbol lookup, so the runtime's
// calls (it calls PMPI_* directly) land here; each is recorded and forwarded to the MPI
// library's own through dlsym(RTLD_NEXT).
#include "p2p_counter.h"

#include <dlfcn.h>

#include <vector>

namespace {

std::vector<long long>& sizes(bool send) {
  static std::vector<long long> sent, received;
  return send ? sent : received;
}

long long bytes_of(int count, MPI_Datatype type) {
  int size = 0;
  PMPI_Type_size(type, &size);
  return static_cast<long long>(count) * size;
}

template <typename F>
F real(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

}  // namespace

extern "C" {

int PMPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  using Isend = int (*)(const void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request*);
  static const Isend isend = real<Isend>("PMPI_Isend");
  sizes(true).push_back(bytes_of(count, type));
  return isend(buf, count, type, dest, tag, comm, request);
}

int PMPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
               MPI_Request* request) {
  using Irecv = int (*)(void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request*);
  static const Irecv irecv = real<Irecv>("PMPI_Irecv");
  sizes(false).push_back(bytes_of(count, type));
  return irecv(buf, count, type, source, tag, comm, request);
}

void p2p_counter_reset(void) {
  sizes(true).clear();
  sizes(false).clear();
}

int p2p_counter_messages(int send) { return static_cast<int>(sizes(send != 0).size()); }

long long p2p_counter_bytes(int send, int index) {
  return sizes(send != 0)[static_cast<std::size_t>(index)];
}

}  // extern "C"
