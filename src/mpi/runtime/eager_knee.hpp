#pragma once
// The eager threshold from a ping-pong curve (docs/calibration.md, "Method"): where a message
// starts to wait for a rendezvous handshake. No MPI here: the measurement (measure_loggp.cpp)
// hands the times in, and the tests hand in curves of their own.
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace topocoll::mpi {

struct EagerKnee {
  std::optional<std::uint64_t> bytes;  // the largest eager size found; none: no jump stands out
  double handshake_s = 0;              // the jump on the typical (median) times
  std::optional<std::uint64_t> next;   // the measured size after the jump
};

// The size before the ping-pong's largest jump above its per-byte trend, relative to the time
// before it (a rendezvous adds a handshake), or none when no jump stands out: at least half the
// smallest message's time and a quarter of the time before it. The largest, not the first: a
// library may also change its path for small messages (Open MPI's shared-memory fast boxes end
// at a few hundred bytes), a step of a fraction of the handshake's; relative, as the caches
// make steps of a few microseconds at megabytes. Found on `fastest` (the fastest repetitions,
// which a loaded machine disturbs least: interference only adds time); `handshake_s` is the
// jump on `typical` (the medians).
[[nodiscard]] EagerKnee eager_knee(const std::vector<std::uint64_t>& sizes,
                                   const std::vector<double>& fastest,
                                   const std::vector<double>& typical, double per_byte);

// The threshold between two sizes of the grid, `eager` (time `t_eager`) and `rendezvous`
// (`t_rendezvous`), to within `resolution` bytes: bisection with `fastest_at(size)`, a size
// counting as rendezvous when its time lies above halfway between the eager trend from `eager`
// and the rendezvous trend back from `rendezvous` (both of slope `per_byte`). Returns the
// largest size found eager.
[[nodiscard]] std::uint64_t refine_eager_knee(
    std::uint64_t eager, double t_eager, std::uint64_t rendezvous, double t_rendezvous,
    double per_byte, std::uint64_t resolution,
    const std::function<double(std::uint64_t)>& fastest_at);

}  // namespace topocoll::mpi
