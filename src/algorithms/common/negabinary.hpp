#pragma once
// Negabinary (base -2) arithmetic for the Bine families (bine-trees-sc25.txt section 2.3.1;
// docs/design.md, "8. Formulas"). Every helper works on any width up to 62 digits: nothing here is
// a table, and nothing assumes a largest P.
//
// A negabinary word is a std::uint64_t whose bit i weighs (-2)^i. Every integer has exactly one
// such form; on w digits the representable integers are the 2^w consecutive values
// [min_value(w), max_value(w)]. A residue mod p (p <= 2^w) therefore has one or two
// representatives on w digits: exactly one when p = 2^w. The power-of-two closed forms below
// (rank_to_nb, bine_v, bine_nu) rely on that; for other p the Bine butterflies and trees are
// derived from their pruned trees instead (see bine_butterfly.hpp), because the representative
// choice of a closed form is wrong for some even p.
#include <cstdint>

namespace topocoll::negabinary {

inline constexpr std::uint64_t kAlternate = 0xAAAAAAAAAAAAAAAAULL;  // the digits of odd weight

// The negabinary digits of x: nb = (x + 0xAA..A) ^ 0xAA..A, in wrapping 64-bit arithmetic.
[[nodiscard]] constexpr std::uint64_t encode(std::int64_t x) {
  return (static_cast<std::uint64_t>(x) + kAlternate) ^ kAlternate;
}

// The integer a negabinary word stands for: x = (nb ^ 0xAA..A) - 0xAA..A.
[[nodiscard]] constexpr std::int64_t decode(std::uint64_t nb) {
  return static_cast<std::int64_t>((nb ^ kAlternate) - kAlternate);
}

// Whether x has a negabinary form on `digits` digits (0 <= digits <= 62).
[[nodiscard]] constexpr bool fits(std::int64_t x, int digits) { return (encode(x) >> digits) == 0; }

// The largest and smallest integers on `digits` digits: ones in all even (resp. odd) positions.
[[nodiscard]] constexpr std::int64_t max_value(int digits) {
  return decode((digits >= 64 ? ~0ULL : (1ULL << digits) - 1) & ~kAlternate);
}
[[nodiscard]] constexpr std::int64_t min_value(int digits) {
  return decode((digits >= 64 ? ~0ULL : (1ULL << digits) - 1) & kAlternate);
}

// rho(k) = sum_{i=0..k} (-2)^i = (1 - (-2)^(k+1)) / 3: the negabinary number 11..1 (k+1 ones),
// the distance of a Bine (and Swing) butterfly step (section 3.1, Eq. 3-5). Always odd.
[[nodiscard]] constexpr std::int64_t rho(int k) { return decode((2ULL << k) - 1); }

// Peer of rank r at a step of distance rho(k) on a ring of p ranks (p even): even ranks add
// rho(k), odd ranks subtract it (Eq. 4 and 5), so the pairs form a perfect matching.
[[nodiscard]] constexpr long long butterfly_peer(long long r, int k, long long p) {
  const long long d = rho(k);
  const long long q = (r % 2 == 0 ? r + d : r - d) % p;
  return q < 0 ? q + p : q;
}

// Reverses the lowest `bits` bits of x.
[[nodiscard]] constexpr std::uint64_t bit_reverse(std::uint64_t x, int bits) {
  std::uint64_t out = 0;
  for (int i = 0; i < bits; ++i) out |= ((x >> i) & 1ULL) << (bits - 1 - i);
  return out;
}

// Number of digits a Bine schedule on p ranks uses: s = ceil(log2 p).
[[nodiscard]] constexpr int digits_for(long long p) {
  int s = 0;
  while ((1LL << s) < p) ++s;
  return s;
}

// Number of consecutive equal low digits of nb, among its `digits` digits (u in section 2.3.2).
[[nodiscard]] constexpr int equal_low_digits(std::uint64_t nb, int digits) {
  const std::uint64_t low = nb & 1ULL;
  int u = 0;
  while (u < digits && ((nb >> u) & 1ULL) == low) ++u;
  return u;
}

// rank2nb(r, p) of section 2.3.1 for p a power of two: the negabinary form of r if it fits on
// s = log2 p digits (ranks right of the root), else of r - p (ranks left of it).
[[nodiscard]] constexpr std::uint64_t rank_to_nb(long long r, long long p) {
  const int s = digits_for(p);
  return fits(r, s) ? encode(r) : encode(r - p);
}

// nb2rank(nb, p): the rank a negabinary word stands for, modulo p.
[[nodiscard]] constexpr long long nb_to_rank(std::uint64_t nb, long long p) {
  const long long r = decode(nb) % p;
  return r < 0 ? r + p : r;
}

// v(r, p) of section 3.2.1 (p a power of two): h = rank2nb(p - r) for even r, rank2nb(r) for
// odd r (h(0) = 0), and v = h ^ (h >> 1). Bit j of v is set iff the distance-doubling Bine tree
// rooted at 0 reaches r through step j (Appendix A).
[[nodiscard]] constexpr std::uint64_t bine_v(long long r, long long p) {
  if (r == 0) return 0;
  const std::uint64_t h = r % 2 == 0 ? rank_to_nb(p - r, p) : rank_to_nb(r, p);
  return h ^ (h >> 1);
}

// nu(r, p) = reverse(v(r, p)) over log2 p bits (section 4.3.1, "Permute"; docs/design.md, "8.
// Formulas"): the position that makes every send of the distance-doubling reduce-scatter
// contiguous.
[[nodiscard]] constexpr std::uint64_t bine_nu(long long r, long long p) {
  return bit_reverse(bine_v(r, p), digits_for(p));
}

}  // namespace topocoll::negabinary
