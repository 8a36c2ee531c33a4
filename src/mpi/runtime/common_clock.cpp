#include "common_clock.hpp"

#include <limits>

#include "measure_support.hpp"

namespace topocoll::mpi::measuring {
namespace {

constexpr int kTag = 17;
constexpr int kExchanges = 101;

// Rank 0's side of the exchanges with `peer`: sends it the offset it estimates.
void estimate_for(MPI_Comm comm, int peer, CommonClock::Read read) {
  double best_round_trip = std::numeric_limits<double>::infinity(), offset = 0;
  for (int i = 0; i < kExchanges; ++i) {
    double peer_time = 0;
    const double sent = read();
    check(PMPI_Send(&sent, 1, MPI_DOUBLE, peer, kTag, comm), "MPI_Send");
    check(PMPI_Recv(&peer_time, 1, MPI_DOUBLE, peer, kTag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
    const double received = read();
    if (received - sent < best_round_trip) {
      best_round_trip = received - sent;
      offset = peer_time - (sent + received) / 2;
    }
  }
  check(PMPI_Send(&offset, 1, MPI_DOUBLE, peer, kTag, comm), "MPI_Send");
}

// The other side: answers each exchange with its own time, then takes the offset.
double answer_rank0(MPI_Comm comm, CommonClock::Read read) {
  for (int i = 0; i < kExchanges; ++i) {
    double sent = 0;
    check(PMPI_Recv(&sent, 1, MPI_DOUBLE, 0, kTag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
    const double now = read();
    check(PMPI_Send(&now, 1, MPI_DOUBLE, 0, kTag, comm), "MPI_Send");
  }
  double offset = 0;
  check(PMPI_Recv(&offset, 1, MPI_DOUBLE, 0, kTag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
  return offset;
}

}  // namespace

CommonClock::CommonClock(MPI_Comm comm, Read read) : read_(read) {
  int rank = 0, size = 0;
  check(PMPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check(PMPI_Comm_size(comm, &size), "MPI_Comm_size");
  for (int peer = 1; peer < size; ++peer) {
    if (rank == 0) estimate_for(comm, peer, read);
    if (rank == peer) offset_ = answer_rank0(comm, read);
  }
}

}  // namespace topocoll::mpi::measuring
