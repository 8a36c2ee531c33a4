#pragma once
// Negabinary (base -2) helpers for Bine trees (bine-trees-sc25.txt section 2.3.1). Temporary home
// until the shared algorithms/negabinary.hpp lands; kept tiny on purpose.
#include <cstdint>

namespace topocoll::algorithms::bine_tree {

inline constexpr std::uint64_t kNegabinaryMask = 0xAAAAAAAAAAAAAAAAULL;

// Negabinary digits of v (bit i weighs (-2)^i); exact for |v| < 2^62.
[[nodiscard]] constexpr std::uint64_t to_negabinary(long long v) {
  return (static_cast<std::uint64_t>(v) + kNegabinaryMask) ^ kNegabinaryMask;
}

[[nodiscard]] constexpr long long from_negabinary(std::uint64_t nb) {
  return static_cast<long long>((nb ^ kNegabinaryMask) - kNegabinaryMask);
}

// rho(j) = sum_{k=0..j} (-2)^k: the distance of a Bine step (Appendix A, Eq. 5).
[[nodiscard]] constexpr long long rho(int j) {
  long long sum = 0;
  long long power = 1;
  for (int k = 0; k <= j; ++k, power *= -2) sum += power;
  return sum;
}

// Number of equal least significant bits among the low `bits` bits of x (section 2.3.2, u).
[[nodiscard]] constexpr int equal_low_bits(std::uint64_t x, int bits) {
  const std::uint64_t first = x & 1U;
  int u = 0;
  while (u < bits && ((x >> u) & 1U) == first) ++u;
  return u;
}

[[nodiscard]] constexpr std::uint64_t low_ones(int bits) {
  return bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
}

static_assert(from_negabinary(to_negabinary(-2)) == -2);
static_assert(to_negabinary(2) == 0b110 && to_negabinary(-1) == 0b11);
static_assert(rho(0) == 1 && rho(1) == -1 && rho(2) == 3 && rho(3) == -5);

}  // namespace topocoll::algorithms::bine_tree
