#pragma once
// Byte counts as users write them, read one way by every setting and flag of the MPI side
// (TOPOCOLL_MAX_MESSAGE_BYTES, topocoll-bench -b/-e) and as the Python tools read them
// (topocoll.units.parse_bytes): a number, optionally with a fraction, and an optional unit,
// case-insensitive: B; KB, MB, GB, TB (powers of ten); KiB, MiB, GiB, TiB and the bare K, M, G,
// T (powers of two, as nccl-tests and the OSU benchmarks read them). Header-only, so that
// topocoll-bench and the tests use it without the runtime's internal symbols.
#include <cctype>
#include <cstdint>
#include <optional>
#include <string_view>

namespace topocoll::mpi {

// What the parser accepts, for messages that name the accepted values.
inline constexpr const char* kByteSizeSyntax =
    "a byte count with an optional unit B, KB, MB, GB, TB (powers of 10), KiB, MiB, GiB, TiB "
    "or K, M, G, T (powers of 2), e.g. 4096, 64KiB, 128M, 1.5MiB";
// The largest size (1 PiB), as topocoll.units.MAX_BYTES.
inline constexpr std::uint64_t kMaxByteSize = std::uint64_t{1} << 50;

namespace detail {

inline std::optional<std::uint64_t> byte_unit(std::string_view unit) {
  char lower[3] = {};
  if (unit.size() > 3) return std::nullopt;
  for (std::size_t i = 0; i < unit.size(); ++i)
    lower[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(unit[i])));
  const std::string_view l(lower, unit.size());
  if (l.empty() || l == "b") return 1;
  constexpr std::string_view prefixes = "kmgt";
  const std::size_t power = prefixes.find(l[0]);
  if (power == std::string_view::npos) return std::nullopt;
  const std::string_view rest = l.substr(1);
  std::uint64_t factor = 1;
  if (rest.empty() || rest == "ib") {
    factor = std::uint64_t{1} << (10 * (power + 1));
  } else if (rest == "b") {
    for (std::size_t i = 0; i <= power; ++i) factor *= 1000;
  } else {
    return std::nullopt;
  }
  return factor;
}

}  // namespace detail

// "4096" -> 4096, "64KiB" -> 65536, "1KB" -> 1000, "128M" -> 134217728, "1.5KiB" -> 1536;
// nullopt when malformed, not a whole number of bytes, or above kMaxByteSize. 0 parses (the
// caller decides whether it is allowed).
[[nodiscard]] inline std::optional<std::uint64_t> parse_byte_size(std::string_view text) {
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  // Digits, then an optional fraction: mantissa / 10^fraction_digits.
  unsigned __int128 mantissa = 0, divisor = 1;
  std::size_t i = 0, digits = 0;
  bool fraction = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.' && !fraction) {
      fraction = true;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(c))) break;
    if (++digits > 19) return std::nullopt;
    mantissa = mantissa * 10 + static_cast<unsigned>(c - '0');
    if (fraction) divisor *= 10;
  }
  // "5." and "." are not numbers ("\d+(\.\d+)?|\.\d+").
  if (digits == 0 || (fraction && divisor == 1)) return std::nullopt;
  std::string_view unit = text.substr(i);
  while (!unit.empty() && space(unit.front())) unit.remove_prefix(1);
  const auto factor = detail::byte_unit(unit);
  if (!factor) return std::nullopt;
  const unsigned __int128 scaled = mantissa * *factor;
  if (scaled % divisor != 0) return std::nullopt;
  const unsigned __int128 bytes = scaled / divisor;
  if (bytes > kMaxByteSize) return std::nullopt;
  return static_cast<std::uint64_t>(bytes);
}

}  // namespace topocoll::mpi
