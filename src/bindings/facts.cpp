// What the Python package used to restate, bound from the core so that it has one source: the
// collectives' facts (rooted, chunked, reducing, the bus-bandwidth factor), the units users write
// quantities in, and the limits of the inputs.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "bindings/bindings.hpp"
#include "core/collective.hpp"
#include "core/registry.hpp"
#include "mpi/runtime/byte_size.hpp"
#include "topology/units.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace topocoll::bindings {

double bandwidth_factor(Collective collective, int ranks) {
  // The bytes every rank must inject (or eject) as a multiple of the size: the factors of
  // nccl-tests' bus bandwidth (its PERFORMANCE.md), 2(P-1)/P for allreduce, 1 for the rooted
  // vector collectives, (P-1)/P for the others.
  if (ranks < 2) return 0.0;
  const double p = ranks;
  if (collective == Collective::allreduce) return 2 * (p - 1) / p;
  if (collective == Collective::bcast || collective == Collective::reduce) return 1.0;
  return (p - 1) / p;
}

namespace {

Collective collective_from(const std::string& name) {
  const auto c = parse_collective(name);
  if (!c) {
    throw UnsupportedRequest("unknown collective '" + name +
                             "'; accepted: " + collective_names_list());
  }
  return *c;
}

// The value of a size that parse_byte_size refused, when it is well formed (a number and a
// unit): what the message then names (too large, or a fraction of a byte).
std::optional<long double> refused_value(std::string_view text) {
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  std::size_t end = 0;
  while (end < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[end])) != 0 ||
          (text[end] == '.' && text.substr(0, end).find('.') == std::string_view::npos)))
    ++end;
  const std::string_view number = text.substr(0, end);
  if (number.empty() || number == "." || number.back() == '.') return std::nullopt;
  std::string_view unit = text.substr(end);
  while (!unit.empty() && space(unit.front())) unit.remove_prefix(1);
  while (!unit.empty() && space(unit.back())) unit.remove_suffix(1);
  const auto factor = mpi::detail::byte_unit(unit);
  if (!factor) return std::nullopt;
  return std::strtold(std::string(number).c_str(), nullptr) * static_cast<long double>(*factor);
}

std::uint64_t parse_bytes(const std::string& text) {
  const auto bytes = mpi::parse_byte_size(text);
  if (bytes) return *bytes;
  const auto value = refused_value(text);
  if (value && *value > static_cast<long double>(mpi::kMaxByteSize)) {
    throw UnsupportedRequest("size '" + text + "' is out of range; accepted: 0 to 1PiB");
  }
  if (value) throw UnsupportedRequest("size '" + text + "' is not a whole number of bytes");
  throw UnsupportedRequest("size '" + text +
                           "' is not understood; accepted: " + mpi::kByteSizeSyntax);
}

}  // namespace

void bind_facts(nb::module_& m) {
  m.def("collective_facts", [] {
    nb::list out;
    for (Collective c : all_collectives()) {
      nb::dict d;
      d["name"] = std::string(collective_name(c));
      d["rooted"] = is_rooted(c);
      d["chunked"] = is_chunked_per_rank(c);
      d["reducing"] = is_reduction(c);
      out.append(d);
    }
    return out;
  });
  m.def(
      "bandwidth_factor",
      [](const std::string& collective, int ranks) {
        return bandwidth_factor(collective_from(collective), ranks);
      },
      "collective"_a, "ranks"_a);
  m.def("parse_bytes", &parse_bytes, "text"_a);
  m.def(
      "parse_rate", [](const std::string& text) { return topo::parse_rate(text); }, "text"_a);
  m.def(
      "parse_time", [](const std::string& text) { return topo::parse_time(text); }, "text"_a);
  m.attr("MAX_BYTES") = mpi::kMaxByteSize;
}

}  // namespace topocoll::bindings
