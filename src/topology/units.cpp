#include "topology/units.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <string>
#include <utility>

#include "core/registry.hpp"

namespace topocoll::topo {

namespace {

constexpr const char* rate_units = "bps, Kbps, Mbps, Gbps, Tbps, B/s, KB/s, MB/s, GB/s, TB/s";
constexpr const char* time_units = "s, ms, us, ns, ps";

// Splits "1.5us" into 1.5 and "us"; false when there is no leading number.
bool split_number(std::string_view text, double& value, std::string_view& unit) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || !std::isfinite(value)) return false;
  unit = text.substr(static_cast<std::size_t>(end - text.data()));
  return true;
}

}  // namespace

double parse_rate(std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, double>, 10> units{{
      {"bps", 1.0 / 8},
      {"Kbps", 1e3 / 8},
      {"Mbps", 1e6 / 8},
      {"Gbps", 1e9 / 8},
      {"Tbps", 1e12 / 8},
      {"B/s", 1},
      {"KB/s", 1e3},
      {"MB/s", 1e6},
      {"GB/s", 1e9},
      {"TB/s", 1e12},
  }};
  double value = 0;
  std::string_view unit;
  if (split_number(text, value, unit)) {
    for (const auto& [name, scale] : units) {
      if (unit == name) {
        if (!(value > 0)) break;
        return value * scale;
      }
    }
  }
  throw UnsupportedRequest("invalid rate '" + std::string(text) +
                           "': a positive number with a unit, one of " + rate_units);
}

double parse_time(std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, double>, 5> units{{
      {"s", 1},
      {"ms", 1e-3},
      {"us", 1e-6},
      {"ns", 1e-9},
      {"ps", 1e-12},
  }};
  double value = 0;
  std::string_view unit;
  if (split_number(text, value, unit)) {
    for (const auto& [name, scale] : units) {
      if (unit == name) {
        if (value < 0) break;
        return value * scale;
      }
    }
  }
  throw UnsupportedRequest("invalid time '" + std::string(text) +
                           "': a non-negative number with a unit, one of " + time_units);
}

}  // namespace topocoll::topo
