// The common clock and the start window of the measurement API (src/mpi/runtime/
// common_clock.hpp, start_window.hpp; docs/validation.md, "Timing frames"), on 2 or more ranks.
// No check depends on how fast the machine is:
// - the last rank reads a clock one second ahead of MPI_Wtime; the offset it finds is that
//   second, and rank 0's time read there agrees with rank 0's own reading, both to half a
//   second (which tells the second found from the second left in, however loaded the machine:
//   under ctest -j2 on 2 cores one message took 4 ms);
// - a call that spins for 20 us on every rank is timed at 20 us or more, and the largest code
//   any rank's call returned is every rank's.
// Every check is agreed by all ranks (agreed_check.hpp); exits 1 naming each failed check.
#include "runtime/start_window.hpp"

#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "agreed_check.hpp"
#include "runtime/common_clock.hpp"

namespace {

using topocoll::mpi::measuring::CommonClock;
using topocoll::mpi::measuring::StartWindow;

int failures = 0;
int rank = 0;

// Collective: every rank calls every check (a check of one rank passes on the others).
void expect(bool ok, const std::string& what) {
  topocoll::mpi_tests::agreed_check(ok, what, rank, failures);
}

double a_second_ahead() { return PMPI_Wtime() + 1.0; }

void a_clock_ahead_is_read_back(MPI_Comm comm, int size) {
  const int last = size - 1;
  const CommonClock clock(comm, rank == last ? &a_second_ahead : &PMPI_Wtime);
  expect(rank != last || std::abs(clock.offset() - 1.0) < 0.5,
         "offset of a clock 1 s ahead: " + std::to_string(clock.offset()) + " s");
  expect(rank != 0 || clock.offset() == 0, "rank 0's offset is 0");
  // Rank 0 sends its reading; the last rank's common time at arrival is later, by a transit.
  double sent = rank == 0 ? clock.now() : 0, transit = 0;
  if (rank == 0) MPI_Send(&sent, 1, MPI_DOUBLE, last, 0, comm);
  if (rank == last) {
    MPI_Recv(&sent, 1, MPI_DOUBLE, 0, 0, comm, MPI_STATUS_IGNORE);
    transit = clock.now() - sent;
  }
  expect(std::abs(transit) < 0.5,
         "rank 0's time read on the last rank differs by " + std::to_string(transit) + " s");
}

void spin(double seconds) {
  const double start = PMPI_Wtime();
  while (PMPI_Wtime() < start + seconds) {
  }
}

void the_time_covers_every_call(MPI_Comm comm, int size) {
  StartWindow window(comm);
  int prepared = 0;
  for (int i = 0; i < 5; ++i) {
    int rc = -1;
    const double elapsed = window.time([&] { ++prepared; },
                                       [] {
                                         spin(20e-6);
                                         return MPI_SUCCESS;
                                       },
                                       rc);
    expect(rc == MPI_SUCCESS, "the calls' code");
    expect(elapsed >= 20e-6, "time " + std::to_string(elapsed * 1e6) + " us below the 20 spun");
  }
  expect(prepared >= 5, "prepare ran before every call");
  // One rank's error is every rank's, and ends the attempts.
  int rc = -1;
  window.time([] {}, [&] { return rank == size - 1 ? MPI_ERR_OTHER : MPI_SUCCESS; }, rc);
  expect(rc == MPI_ERR_OTHER, "the last rank's error code on every rank: " + std::to_string(rc));
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  a_clock_ahead_is_read_back(comm, size);
  the_time_covers_every_call(comm, size);
  MPI_Comm_free(&comm);
  if (rank == 0) std::printf("start window: %d failed check(s)\n", failures);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
