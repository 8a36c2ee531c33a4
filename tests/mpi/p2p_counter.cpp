// A PMPI-level counter of point-to-point messages and local reductions, for tests that must
// see how the runtime cuts its messages and when it reduces (not only that results are
// right). Linked into a test program before the
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

// The destination of each send, the source of each receive (ranks of the message's comm).
std::vector<int>& peers(bool send) {
  static std::vector<int> to, from;
  return send ? to : from;
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

struct Reduction {
  long long bytes, in_flight;
};

std::vector<Reduction>& reductions() {
  static std::vector<Reduction> all;
  return all;
}

long long posted = 0, completed = 0;  // messages, since the start (only the difference counts)

int active(int count, const MPI_Request* requests) {
  int n = 0;
  for (int i = 0; i < count; ++i) n += requests[i] != MPI_REQUEST_NULL ? 1 : 0;
  return n;
}

}  // namespace

extern "C" {

int PMPI_Reduce_local(const void* in, void* inout, int count, MPI_Datatype type, MPI_Op op) {
  using ReduceLocal = int (*)(const void*, void*, int, MPI_Datatype, MPI_Op);
  static const ReduceLocal reduce_local = real<ReduceLocal>("PMPI_Reduce_local");
  reductions().push_back({bytes_of(count, type), posted - completed});
  return reduce_local(in, inout, count, type, op);
}

int PMPI_Wait(MPI_Request* request, MPI_Status* status) {
  using Wait = int (*)(MPI_Request*, MPI_Status*);
  static const Wait wait = real<Wait>("PMPI_Wait");
  completed += active(1, request);
  return wait(request, status);
}

int PMPI_Waitall(int count, MPI_Request* requests, MPI_Status* statuses) {
  using Waitall = int (*)(int, MPI_Request*, MPI_Status*);
  static const Waitall waitall = real<Waitall>("PMPI_Waitall");
  completed += active(count, requests);
  return waitall(count, requests, statuses);
}

// One completion per call (through PMPI_Waitany), a legal Waitsome: the runtime then sees its
// messages complete one by one whatever their timing, so whether it reduces a segment before
// it waited for the rest of its step is deterministic.
int PMPI_Waitsome(int count, MPI_Request* requests, int* outcount, int* indices,
                  MPI_Status* statuses) {
  using Waitany = int (*)(int, MPI_Request*, int*, MPI_Status*);
  static const Waitany waitany = real<Waitany>("PMPI_Waitany");
  int index = MPI_UNDEFINED;
  const int rc = waitany(count, requests, &index,
                         statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : statuses);
  *outcount = index == MPI_UNDEFINED ? MPI_UNDEFINED : 1;
  if (index != MPI_UNDEFINED) {
    indices[0] = index;
    ++completed;
  }
  return rc;
}

int PMPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  using Isend = int (*)(const void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request*);
  static const Isend isend = real<Isend>("PMPI_Isend");
  sizes(true).push_back(bytes_of(count, type));
  peers(true).push_back(dest);
  ++posted;
  return isend(buf, count, type, dest, tag, comm, request);
}

// The runtime sends a small step's last message with a blocking send (executor.cpp): a send
// like the others, complete when it returns.
int PMPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  using Send = int (*)(const void*, int, MPI_Datatype, int, int, MPI_Comm);
  static const Send send = real<Send>("PMPI_Send");
  sizes(true).push_back(bytes_of(count, type));
  peers(true).push_back(dest);
  ++posted;
  const int rc = send(buf, count, type, dest, tag, comm);
  ++completed;
  return rc;
}

int PMPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
               MPI_Request* request) {
  using Irecv = int (*)(void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request*);
  static const Irecv irecv = real<Irecv>("PMPI_Irecv");
  sizes(false).push_back(bytes_of(count, type));
  peers(false).push_back(source);
  ++posted;
  return irecv(buf, count, type, source, tag, comm, request);
}

void p2p_counter_reset(void) {
  sizes(true).clear();
  sizes(false).clear();
  peers(true).clear();
  peers(false).clear();
  reductions().clear();
}

int p2p_counter_reductions(void) { return static_cast<int>(reductions().size()); }

long long p2p_counter_reduction_bytes(int index) {
  return reductions()[static_cast<std::size_t>(index)].bytes;
}

long long p2p_counter_reduction_in_flight(int index) {
  return reductions()[static_cast<std::size_t>(index)].in_flight;
}

int p2p_counter_messages(int send) { return static_cast<int>(sizes(send != 0).size()); }

long long p2p_counter_bytes(int send, int index) {
  return sizes(send != 0)[static_cast<std::size_t>(index)];
}

int p2p_counter_peer(int send, int index) {
  return peers(send != 0)[static_cast<std::size_t>(index)];
}

}  // extern "C"
