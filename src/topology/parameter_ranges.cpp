#include "topology/parameter_ranges.hpp"

#include <array>
#include <cmath>
#include <cstdio>

#include "core/registry.hpp"

namespace topocoll::topo {

namespace {

constexpr double kTiB = 1099511627776.0;  // 2^40
constexpr double kMiB = 1048576.0;
constexpr double kGiB = 1073741824.0;

// Bounds are physical (what a network or a machine can be) or what keeps a run's arithmetic
// exact; each `why` says which.
constexpr std::array<ParameterRange, 18> kRanges{{
    {"size", "--size", 1, kTiB, "B", true, "1B to 1TiB",
     "byte counts of a whole run stay exact in the engines' doubles; no paper goes near 1 TiB"},
    {"bandwidth", "--bandwidth", 1e6 / 8, 1e15 / 8, "B/s", false, "1Mbps to 1Pbps",
     "per direction of a link; the papers use 100-800 Gb/s, and the bounds keep every time "
     "finite"},
    {"latency", "--latency", 0, 1, "s", false, "0s to 1s",
     "per link; the papers use 100 ns, and no network has a link of a second"},
    {"hop_latency", "--hop-latency", 0, 1, "s", false, "0s to 1s",
     "per link crossed; the papers use 100-300 ns"},
    {"alpha", "--alpha", 0, 1, "s", false, "0s to 1s",
     "software overhead per step; trivance.txt section 6 uses 1.5 us"},
    {"reduce_cost", "--reduce-cost", 0, 1e-6, "s/B", false, "0s to 1us per byte",
     "1 us per byte is a 1 MB/s reduction, slower than any processor"},
    {"nic_ports", "--nic-ports", 1, 64, "", true, "1..64",
     "host-to-switch links per host of fat trees and dragonflies; no NIC has more than 64"},
    {"mtu", "--mtu", 16, kMiB, "B", true, "16B to 1MiB",
     "packet payload (docs/simulator-packet.md); InfiniBand's largest MTU is 4 KiB"},
    {"header", "--header", 0, 4096, "B", true, "0B to 4KiB",
     "bytes added to every packet; canary-fgcs24.txt section 5.1 uses 57 B"},
    {"buffer", "--buffer", 16, kGiB, "B", true, "one packet (mtu + header) to 1GiB",
     "per port and hop class; a buffer smaller than a packet could never forward it"},
    // Host costs (docs/host-costs.md): LogGP's o and g, the copy rate and the protocol.
    {"send_overhead", "--send-overhead", 0, 1, "s", false, "0s to 1s",
     "CPU time per message sent; SST firefly's default is 130 ns, measured MPI stacks a few us"},
    {"recv_overhead", "--recv-overhead", 0, 1, "s", false, "0s to 1s",
     "CPU time per message received; SST firefly's default is 250 ns"},
    {"gap", "--gap", 0, 1, "s", false, "0s to 1s",
     "least interval between two messages leaving one NIC port; SST firefly's default is 50 ns"},
    {"step_cpu", "--step-cpu", 0, 1, "s", false, "0s to 1s",
     "the MPI runtime's CPU time per step of a lane, on the rank's CPU (calibrate measures it)"},
    {"call_overhead", "--call-overhead", 0, 1, "s", false, "0s to 1s",
     "the MPI runtime's CPU time per call, before its first step (calibrate measures it)"},
    {"copy_rate", "--copy-rate", 1e6, 1e15, "B/s", false, "1MBps to 1PBps, or none",
     "local copies and packing; slower than 1 MB/s is no processor, faster than 1 PB/s is no "
     "memory ('none': copies cost nothing)"},
    {"eager_threshold", "--eager-threshold", 0, 1024 * kTiB, "B", true, "0B to 1PiB, or none",
     "largest eager message; above it a message waits a round trip (rendezvous); 'none': every "
     "message is eager"},
    {"rendezvous_overhead", "--rendezvous-overhead", 0, 1, "s", false, "0s to 1s",
     "the receiver's CPU time per rendezvous message beyond o (calibrate measures it)"},
}};

}  // namespace

std::span<const ParameterRange> parameter_ranges() { return kRanges; }

const ParameterRange& parameter_range(std::string_view name) {
  for (const ParameterRange& range : kRanges) {
    if (range.name == name) return range;
  }
  std::string names;
  for (const ParameterRange& range : kRanges) {
    if (!names.empty()) names += ", ";
    names += range.name;
  }
  throw UnsupportedRequest("unknown parameter '" + std::string(name) + "'; accepted: " + names);
}

std::string format_number(double value) {
  char text[64];
  if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 1e18) {
    std::snprintf(text, sizeof text, "%.0f", value);
  } else {
    std::snprintf(text, sizeof text, "%g", value);
  }
  return text;
}

double check_parameter(std::string_view name, double value, std::string_view what) {
  const ParameterRange& range = parameter_range(name);
  const std::string shown(what.empty() ? range.option : what);
  std::string unit;  // appended, not " " + string: GCC 12 warns falsely (-Wrestrict) on that
  if (!range.unit.empty()) unit.append(" ").append(range.unit);
  if (!std::isfinite(value) || value < range.low || value > range.high) {
    throw UnsupportedRequest(shown + " " + format_number(value) + unit +
                             " is out of range; accepted: " + std::string(range.accepted));
  }
  if (range.integer && value != std::floor(value)) {
    throw UnsupportedRequest(shown + " " + format_number(value) + unit +
                             " is not a whole number; accepted: " + std::string(range.accepted));
  }
  return value;
}

void check_network_params(const NetworkParams& params) {
  check_parameter("bandwidth", params.bandwidth_bytes_per_s);
  check_parameter("latency", params.link_latency_s);
  check_parameter("hop_latency", params.hop_latency_s);
  check_parameter("alpha", params.alpha_s);
  check_parameter("reduce_cost", params.reduce_s_per_byte);
  check_parameter("nic_ports", params.nic_ports);
  const HostCosts& host = params.host;
  check_parameter("send_overhead", host.send_overhead_s);
  check_parameter("recv_overhead", host.recv_overhead_s);
  check_parameter("gap", host.gap_s);
  check_parameter("step_cpu", host.step_cpu_s);
  check_parameter("call_overhead", host.call_overhead_s);
  check_parameter("rendezvous_overhead", host.rendezvous_s);
  // Zero is "no copy cost" (no rate); otherwise the rate is in the table's range.
  if (host.copy_s_per_byte != 0) check_parameter("copy_rate", 1 / host.copy_s_per_byte);
  // O as a rate has copy_rate's bounds (a processor touching memory).
  if (host.overhead_s_per_byte != 0)
    check_parameter("copy_rate", 1 / host.overhead_s_per_byte, "overhead_rate");
  if (host.eager_threshold_bytes != HostCosts::kAlwaysEager)
    check_parameter("eager_threshold", static_cast<double>(host.eager_threshold_bytes));
}

}  // namespace topocoll::topo
