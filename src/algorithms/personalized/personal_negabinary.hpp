#pragma once
// Negabinary arithmetic for the personalized collectives (bine-trees-sc25.txt section 2.3.1).
// Values are sums of bits times (-2)^j; an s-bit string covers the 2^s consecutive integers
// [-odd_bits(s), even_bits(s)]. Widths are free (up to 62 bits): no tables.
#include <bit>
#include <cstdint>

namespace topocoll::algorithms::personal {

inline constexpr std::uint64_t kOddPositions = 0xAAAAAAAAAAAAAAAAULL;

[[nodiscard]] constexpr std::uint64_t low_mask(int bits) {
  return bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
}

// Largest value of a `bits`-bit negabinary string (ones in the even positions).
[[nodiscard]] constexpr long long even_bits(int bits) {
  return static_cast<long long>(~kOddPositions & low_mask(bits));
}
// Minus the smallest value (ones in the odd positions).
[[nodiscard]] constexpr long long odd_bits(int bits) {
  return static_cast<long long>(kOddPositions & low_mask(bits));
}

// The negabinary string of v; it has `bits` bits when v lies in [-odd_bits, even_bits].
[[nodiscard]] constexpr std::uint64_t to_negabinary(long long v) {
  return (static_cast<std::uint64_t>(v) + kOddPositions) ^ kOddPositions;
}

[[nodiscard]] constexpr long long from_negabinary(std::uint64_t nb) {
  return static_cast<long long>((nb ^ kOddPositions) - kOddPositions);
}

// Value of `bits` ones: sum_{j < bits} (-2)^j, the distance of a Bine edge that flips the
// `bits` least significant bits (section 2.4.1).
[[nodiscard]] constexpr long long ones_value(int bits) { return from_negabinary(low_mask(bits)); }

// Number of equal least significant bits of x, capped at `bits` (u of section 2.3.2).
[[nodiscard]] constexpr int equal_low_bits(std::uint64_t x, int bits) {
  const int run = (x & 1) ? std::countr_one(x) : std::countr_zero(x);
  return run < bits ? run : bits;
}

}  // namespace topocoll::algorithms::personal
