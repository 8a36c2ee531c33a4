#pragma once
// Fingerprint content for large P (docs/design.md, "3.3 Fingerprint mode"): each contribution (q,
// b) gets the random value A[q] + C[b]; a slot holds the wrapping sum and the count of its
// contributions. A missing, doubled or misplaced contribution changes the sum unless random
// values cancel. In commutative mode the sum and the count share one 64-bit word (a 40-bit
// hash, probability about 2^-40 of a cancellation per wrong slot): the state of P * B slots is
// the verifier's whole memory traffic, and the kernel's zeroing of fresh pages its largest
// cost. In non-commutative mode a 64-bit sum, a polynomial hash modulo 2^61-1 that fixes the
// order, and the count.
#include <cstdint>
#include <string>
#include <vector>

#include "core/operation.hpp"
#include "core/verifier/expectation.hpp"

namespace topocoll {

// Low kCountBits: the number of contributions (0: never written); high bits: the hash sum.
// Adding two words adds both fields; a count that overflows spills into the hash, which then
// mismatches.
struct SumFingerprint {
  static constexpr int kCountBits = 24;
  static constexpr std::uint64_t kCountMask = (std::uint64_t{1} << kCountBits) - 1;
  std::uint64_t word = 0;
  [[nodiscard]] std::uint32_t count() const {
    return static_cast<std::uint32_t>(word & kCountMask);
  }
};

struct OrderedFingerprint {
  std::uint64_t sum = 0;
  std::uint64_t poly = 0;  // sum of value_i * X^(count-1-i) mod 2^61-1
  std::uint32_t count = 0;
};

class FingerprintBase {
 protected:
  FingerprintBase(int ranks, std::uint64_t seed);
  [[nodiscard]] std::uint64_t value(int origin, BlockIndex block) const {
    return rank_key_[static_cast<std::size_t>(origin)] + block_key(block);
  }
  [[nodiscard]] std::uint64_t poly_value(int origin, BlockIndex block) const {
    return addmod(rank_key_[static_cast<std::size_t>(origin)] % kPrime, block_key(block) % kPrime);
  }
  // A block's key is hashed from its index, not stored: a table of one key per slot would be
  // the run's largest allocation when a vector has billions of slots and few ranks, and the
  // windows that bound the slot state would not bound it (splitmix64's finaliser).
  [[nodiscard]] std::uint64_t block_key(BlockIndex block) const {
    std::uint64_t z = block_seed_ + 0x9e3779b97f4a7c15ULL * (static_cast<std::uint64_t>(block) + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  [[nodiscard]] std::uint64_t power(std::uint32_t exponent) const;
  static std::uint64_t mulmod(std::uint64_t a, std::uint64_t b);
  static std::uint64_t addmod(std::uint64_t a, std::uint64_t b);
  static constexpr std::uint64_t kPrime = (1ULL << 61) - 1;

  int ranks_;
  std::vector<std::uint64_t> rank_key_;
  std::uint64_t block_seed_;
  std::uint64_t rank_key_sum_ = 0;
  std::uint64_t base_;
  std::vector<std::uint64_t> powers_;  // X^k for k <= 2 ranks
  std::uint64_t rank_poly_ = 0;        // sum over q of a_q X^(P-1-q)
  std::uint64_t geometric_ = 0;        // sum over q of X^(P-1-q)
};

class SumFingerprintContent : FingerprintBase {
 public:
  using Value = SumFingerprint;
  static constexpr bool kConcurrentChecks = true;
  SumFingerprintContent(int ranks, std::uint64_t seed) : FingerprintBase(ranks, seed) {}
  // Largest P whose counts fit the count field.
  static constexpr int kMaxRanks = static_cast<int>(SumFingerprint::kCountMask);
  [[nodiscard]] Value initial(int origin, BlockIndex block) const {
    return {(value(origin, block) << SumFingerprint::kCountBits) | 1};
  }
  [[nodiscard]] static bool defined(const Value& v) { return v.count() != 0; }
  [[nodiscard]] static Value reduce(const Value& in, const Value& inout, OperandOrder) {
    return {in.word + inout.word};
  }
  [[nodiscard]] Value expected(const SlotExpectation& e) const {
    if (e.kind == SlotExpectation::Kind::single) return initial(e.origin, e.block);
    const std::uint64_t sum =
        rank_key_sum_ + static_cast<std::uint64_t>(ranks_) * block_key(e.block);
    return {(sum << SumFingerprint::kCountBits) | static_cast<std::uint64_t>(ranks_)};
  }
  [[nodiscard]] bool matches(const Value& v, const SlotExpectation& e) const {
    return v.word == expected(e).word;
  }
  [[nodiscard]] std::string mismatch(const Value& v, const SlotExpectation& e) const;
};

class OrderedFingerprintContent : FingerprintBase {
 public:
  using Value = OrderedFingerprint;
  static constexpr bool kConcurrentChecks = true;
  OrderedFingerprintContent(int ranks, std::uint64_t seed) : FingerprintBase(ranks, seed) {}
  [[nodiscard]] Value initial(int origin, BlockIndex block) const;
  [[nodiscard]] static bool defined(const Value& v) { return v.count != 0; }
  [[nodiscard]] Value reduce(const Value& in, const Value& inout, OperandOrder order) const;
  [[nodiscard]] std::string mismatch(const Value& v, const SlotExpectation& e) const;
};

}  // namespace topocoll
