#pragma once
// FNV-1a, 64 bits: a cheap hash for ranks to compare what must be equal everywhere (settings,
// schedules, counts) without sending it; not for anything adversarial.
#include <cstdint>
#include <string_view>

namespace topocoll {

inline constexpr std::uint64_t kFnv1aOffset = 14695981039346656037ull;
inline constexpr std::uint64_t kFnv1aPrime = 1099511628211ull;

// `h` with one more value folded in: a byte, or any 64-bit word taken whole.
[[nodiscard]] constexpr std::uint64_t fnv1a_add(std::uint64_t h, std::uint64_t value) {
  return (h ^ value) * kFnv1aPrime;
}

[[nodiscard]] constexpr std::uint64_t fnv1a(std::string_view text, std::uint64_t h = kFnv1aOffset) {
  for (const char c : text) h = fnv1a_add(h, static_cast<unsigned char>(c));
  return h;
}

}  // namespace topocoll
