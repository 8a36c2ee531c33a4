#pragma once
// Predicted times of schedules on a machine (TOPOCOLL_MACHINE's file, or the default machine
// of default_machine.hpp), with the project's
// analytic model (docs/design.md, "4.3 Network models": alpha-beta with the congestion of the
// routes, plus the file's host costs), for `auto` to compare its candidate with the MPI
// library's own choice (library_model.hpp). Remembered per (machine, algorithm, request,
// bytes), so a loop of calls simulates once.
#include <cstdint>
#include <optional>
#include <string>

#include "core/registry.hpp"

namespace topocoll::mpi {

struct Predicted {
  std::optional<double> seconds;  // unset: no prediction (`error` says why)
  std::string error;
};

// The time of `algorithm` (a registry name) for `request` on the machine at `machine_path`
// (empty: the default machine), one rank's vector of `bytes` bytes, ranks placed linearly on
// the machine's topology (the file's default topology; without one, a full mesh of the
// ranks: hyperx:P).
[[nodiscard]] Predicted predict(const std::string& machine_path, const std::string& algorithm,
                                const ScheduleRequest& request, std::uint64_t bytes);

// The machine at `machine_path` in messages: "default machine <name>" (empty path) or
// "TOPOCOLL_MACHINE=<path>".
[[nodiscard]] std::string machine_label(const std::string& machine_path);

}  // namespace topocoll::mpi
