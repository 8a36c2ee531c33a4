#pragma once
// What the rank driver (engine.hpp) needs from a network model: start a transfer along one
// path, learn when the next transfer completes, and collect the transfers that complete at
// an instant. The analytic and flow models implement it.
#include <cstdint>
#include <limits>
#include <vector>

#include "sim/route_cache.hpp"
#include "sim/simulate.hpp"

namespace topocoll::sim {

// Two event times closer than this are one instant: the engines batch them, so that flows
// that end together (up to rounding) release their links together.
[[nodiscard]] inline double instant_end(double t) { return t + t * 1e-12 + 1e-18; }

class Network {
 public:
  virtual ~Network() = default;
  // Starts `bytes` along `path` at time `now`, sent in schedule step `step`; `tag` comes back
  // from advance() when the last byte has arrived.
  virtual void start(double now, const PathView& path, double bytes, int step,
                     std::uint32_t tag) = 0;
  [[nodiscard]] virtual double next_time() const = 0;  // infinity when nothing is pending
  // Processes every event due at the instant `now`, appending the tags of completed transfers.
  virtual void advance(double now, std::vector<std::uint32_t>& completed) = 0;
  // Per-link bytes and busy time at the end of the run.
  virtual void link_usage(double end, std::vector<LinkUsage>& out) const = 0;

  static constexpr double kNever = std::numeric_limits<double>::infinity();
};

}  // namespace topocoll::sim
