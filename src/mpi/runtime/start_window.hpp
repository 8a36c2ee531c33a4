#pragma once
// Times one collective call started on every rank at one instant of a common clock and ended
// by the last rank: the time the simulator predicts (every rank starts at 0, the call ends
// when the last rank's does). A barrier before each call lets the ranks leave it at different
// times instead, in an order that what ran before decides, and a message that the first rank
// out sends without a request can wait for the last one before its clock starts: on the 2-core
// VM one message of 128 B timed so took 0.14 us, a quarter of its one-way time
// (docs/validation.md, "Timing frames"). The method is ReproMPI's window (Hunold and
// Carpen-Amarie, "Reproducible MPI benchmarking is still not as easy as you think", IEEE TPDS
// 2016).
#include <mpi.h>

#include <functional>

#include "common_clock.hpp"

namespace topocoll::mpi::measuring {

class StartWindow {
 public:
  // Collective over `comm` (a private communicator).
  explicit StartWindow(MPI_Comm comm);
  // Collective: runs `prepare` (untimed), then `call` from an instant that every rank waits
  // for, and returns on every rank the seconds from that instant to the end of the last rank's
  // call; `rc` is the largest code `call` returned on any rank. When a rank reaches the window
  // after it opened, every rank runs the call again with twice the margin, up to kAttempts
  // times; the last attempt counts from the latest start.
  double time(const std::function<void()>& prepare, const std::function<int()>& call, int& rc);

  static constexpr int kAttempts = 12;

 private:
  void wait_until(double instant) const;

  MPI_Comm comm_;
  CommonClock clock_;
  int rank_ = 0;
  double margin_;
};

}  // namespace topocoll::mpi::measuring
