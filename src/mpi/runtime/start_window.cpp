#include "start_window.hpp"

#include <algorithm>
#include <array>
#include <thread>

#include "measure_support.hpp"

namespace topocoll::mpi::measuring {
namespace {

// The first margin between rank 0 choosing the instant and the instant: the barrier's skew
// and the broadcast of the instant take a few microseconds on one node; a rank that misses it
// doubles it.
constexpr double kFirstMargin = 50e-6;
// Longer waits give the core away, which ranks that share cores need to arrive at all; the
// last microseconds spin, so that a rank does not start late by a time slice.
constexpr double kSpinBelow = 5e-6;

}  // namespace

StartWindow::StartWindow(MPI_Comm comm) : comm_(comm), clock_(comm), margin_(kFirstMargin) {
  check(PMPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
}

void StartWindow::wait_until(double instant) const {
  while (clock_.now() < instant - kSpinBelow) std::this_thread::yield();
  while (clock_.now() < instant) {
  }
}

double StartWindow::time(const std::function<void()>& prepare, const std::function<int()>& call,
                         int& rc) {
  for (int attempt = 1;; ++attempt) {
    prepare();
    check(PMPI_Barrier(comm_), "MPI_Barrier");
    double instant = rank_ == 0 ? clock_.now() + margin_ : 0.0;
    check(PMPI_Bcast(&instant, 1, MPI_DOUBLE, 0, comm_), "MPI_Bcast");
    const double arrival = clock_.now();
    wait_until(instant);
    const int code = call();
    // The last end, the latest arrival and the largest code, in one reduction.
    std::array<double, 3> last{clock_.now(), arrival, static_cast<double>(code)};
    check(PMPI_Allreduce(MPI_IN_PLACE, last.data(), 3, MPI_DOUBLE, MPI_MAX, comm_),
          "MPI_Allreduce");
    rc = static_cast<int>(last[2]);
    const bool late = last[1] > instant;
    if (!late || rc != MPI_SUCCESS || attempt == kAttempts)
      return last[0] - std::max(instant, last[1]);
    margin_ *= 2;
  }
}

}  // namespace topocoll::mpi::measuring
