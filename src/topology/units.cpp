#include "topology/units.hpp"

#include <array>
#include <cctype>
#include <cmath>
#include <string>
#include <utility>

#include "core/registry.hpp"

namespace topocoll::topo {

namespace {

// Reads "12", "1.5" or ".5" (then spaces) from the front of `text`; false if there is none.
bool take_number(std::string_view& text, double& value) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  std::size_t end = 0;
  while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
  const std::size_t whole = end;
  if (end < text.size() && text[end] == '.') {
    const std::size_t dot = end++;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
    if (end == dot + 1) return false;  // "1." has no fraction digits
  } else if (whole == 0) {
    return false;
  }
  value = std::stod(std::string(text.substr(0, end)));
  text.remove_prefix(end);
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return std::isfinite(value);
}

}  // namespace

double parse_rate(std::string_view text) {
  static constexpr std::array<std::pair<char, double>, 5> prefixes{
      {{'k', 1e3}, {'K', 1e3}, {'M', 1e6}, {'G', 1e9}, {'T', 1e12}}};
  static constexpr std::array<std::pair<std::string_view, double>, 4> units{
      {{"bps", 1.0 / 8}, {"bit/s", 1.0 / 8}, {"Bps", 1}, {"B/s", 1}}};
  std::string_view rest = text;
  double value = 0;
  if (take_number(rest, value)) {
    double scale = 1;
    for (const auto& [prefix, factor] : prefixes) {
      if (!rest.empty() && rest.front() == prefix) {
        scale = factor;
        rest.remove_prefix(1);
        break;
      }
    }
    for (const auto& [unit, factor] : units) {
      const double rate = value * scale * factor;
      if (rest == unit && rate > 0 && std::isfinite(rate)) return rate;
    }
  }
  throw UnsupportedRequest("rate '" + std::string(text) +
                           "' is not understood; accepted: a positive number with a unit bps, "
                           "kbps, Mbps, Gbps, Tbps (bits per second) or Bps, KBps, MBps, GBps, "
                           "TBps (bytes per second), e.g. 400Gbps, 50GBps");
}

double parse_time(std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, double>, 5> units{
      {{"ns", 1e-9}, {"us", 1e-6}, {"\u00b5s", 1e-6}, {"ms", 1e-3}, {"s", 1}}};
  std::string_view rest = text;
  double value = 0;
  if (take_number(rest, value)) {
    for (const auto& [unit, factor] : units) {
      if (rest == unit) return value * factor;
    }
  }
  throw UnsupportedRequest("duration '" + std::string(text) +
                           "' is not understood; accepted: a number with a unit ns, us, ms or "
                           "s, e.g. 100ns, 1.5us, 2ms");
}

}  // namespace topocoll::topo
