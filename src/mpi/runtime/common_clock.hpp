#pragma once
// Rank 0's clock on every rank of a communicator, so that ranks can start something at one
// instant (start_window.hpp). MPI_Wtime need not agree between processes, not even on one
// node: Open MPI 4.1 counts it from each process's start (on the 2-core VM rank 1's clock read
// 9 to 145 us off rank 0's, a different offset in every run), while MPICH's agree. Each rank
// estimates its offset to rank 0 by Cristian's method: of several exchanges, the one of least
// round trip, its reply's time against the midpoint of the round trip.
#include <mpi.h>

namespace topocoll::mpi::measuring {

class CommonClock {
 public:
  using Read = double (*)();
  // Collective over `comm` (a private communicator: it exchanges messages on it). `read`: this
  // rank's clock in seconds (tests give one rank a clock that runs ahead).
  explicit CommonClock(MPI_Comm comm, Read read = &PMPI_Wtime);
  // Seconds on rank 0's clock.
  [[nodiscard]] double now() const { return read_() - offset_; }
  // This rank's clock less rank 0's (0 on rank 0).
  [[nodiscard]] double offset() const { return offset_; }

 private:
  Read read_;
  double offset_ = 0;
};

}  // namespace topocoll::mpi::measuring
