#pragma once
// Integer helpers shared by the algorithm families.
#include <cstdint>

namespace topocoll {

[[nodiscard]] constexpr int mod(long long a, long long n) {
  const long long r = a % n;
  return static_cast<int>(r < 0 ? r + n : r);
}

[[nodiscard]] constexpr bool is_power_of(long long n, long long base) {
  if (n < 1) return false;
  while (n % base == 0) n /= base;
  return n == 1;
}

// Largest power of `base` <= n (n >= 1).
[[nodiscard]] constexpr long long floor_power(long long n, long long base) {
  long long p = 1;
  while (p * base <= n) p *= base;
  return p;
}

// Whether n lies just above a power of three p >= 9: p < n <= p + p/3. Such sides are folded
// onto p by trivance-bw-fold; further above, or onto 3, the gap costs more than the paper's
// method (docs/efficiency.md).
[[nodiscard]] constexpr bool just_above_power_of_three(long long n) {
  if (n < 10) return false;
  const long long p = floor_power(n, 3);
  return n > p && n - p <= p / 3;
}

// Smallest k with base^k >= n (n >= 1).
[[nodiscard]] constexpr int ceil_log(long long n, long long base) {
  int k = 0;
  long long p = 1;
  while (p < n) {
    p *= base;
    ++k;
  }
  return k;
}

}  // namespace topocoll
