#pragma once
// The one table of the simulator's numeric parameters and their accepted ranges (docs/simulator.md,
// "Parameter ranges"): the CLI (`sim`, `compare`, `tune`), the Python API (topocoll.simulate and
// friends, through
// `_core.parameter_ranges()` and `_core.check_parameter`), the network parameters that
// make_topology receives and the per-link values of graph files are all checked against it,
// and docs/simulator.md lists it. Values are in SI units (bytes, bytes per second, seconds).
#include <span>
#include <string>
#include <string_view>

#include "topology/topology.hpp"

namespace topocoll::topo {

struct ParameterRange {
  std::string_view name;    // the Python keyword ("hop_latency")
  std::string_view option;  // the command-line option ("--hop-latency")
  double low = 0;           // inclusive bounds, in `unit`
  double high = 0;
  std::string_view unit;      // "B", "B/s", "s", "s/B" or "" (a count)
  bool integer = false;       // a whole number
  std::string_view accepted;  // the range as users write it ("1Mbps to 1Pbps")
  std::string_view why;       // where the bounds come from (docs/simulator.md prints it)
};

[[nodiscard]] std::span<const ParameterRange> parameter_ranges();
// The entry of `name`; throws UnsupportedRequest for an unknown name.
[[nodiscard]] const ParameterRange& parameter_range(std::string_view name);

// Returns `value` when it is finite, within the range of `name` and (for integer parameters)
// whole; else throws UnsupportedRequest "WHAT VALUE is out of range; accepted: ACCEPTED",
// where WHAT is `what` when given, else the option's name.
double check_parameter(std::string_view name, double value, std::string_view what = {});

// Checks every field of `params` against the table (make_topology calls it).
void check_network_params(const NetworkParams& params);

// The number as a message shows it: integers without a fraction, others in %g form.
[[nodiscard]] std::string format_number(double value);

}  // namespace topocoll::topo
