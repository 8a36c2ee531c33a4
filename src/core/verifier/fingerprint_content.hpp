#pragma once
// Fingerprint content for large P (DESIGN.md, "Fingerprint mode"): each contribution (q, b)
// gets the random 64-bit value A[q] + C[b]; a slot holds the wrapping sum and the count of its
// contributions. A missing, doubled or misplaced contribution changes the sum unless random
// 64-bit values cancel (probability about 2^-64). In non-commutative mode a polynomial hash
// modulo 2^61-1 also fixes the order of the contributions.
#include <cstdint>
#include <string>
#include <vector>

#include "core/operation.hpp"
#include "core/verifier/expectation.hpp"

namespace topocoll {

// Packed to 12 bytes: at P = 16384 the state alone is P * B slots.
#pragma pack(push, 4)
struct SumFingerprint {
  std::uint64_t sum = 0;
  std::uint32_t count = 0;  // 0: never written
};
#pragma pack(pop)

struct OrderedFingerprint {
  std::uint64_t sum = 0;
  std::uint64_t poly = 0;  // sum of value_i * X^(count-1-i) mod 2^61-1
  std::uint32_t count = 0;
};

class FingerprintBase {
 protected:
  FingerprintBase(int ranks, BlockIndex slots, std::uint64_t seed);
  [[nodiscard]] std::uint64_t value(int origin, BlockIndex block) const {
    return rank_key_[static_cast<std::size_t>(origin)] + block_key_[block];
  }
  [[nodiscard]] std::uint64_t poly_value(int origin, BlockIndex block) const {
    return addmod(rank_key_[static_cast<std::size_t>(origin)] % kPrime, block_key_[block] % kPrime);
  }
  [[nodiscard]] std::uint64_t power(std::uint32_t exponent) const;
  static std::uint64_t mulmod(std::uint64_t a, std::uint64_t b);
  static std::uint64_t addmod(std::uint64_t a, std::uint64_t b);
  static constexpr std::uint64_t kPrime = (1ULL << 61) - 1;

  int ranks_;
  std::vector<std::uint64_t> rank_key_;
  std::vector<std::uint64_t> block_key_;
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
  SumFingerprintContent(int ranks, BlockIndex slots, std::uint64_t seed)
      : FingerprintBase(ranks, slots, seed) {}
  [[nodiscard]] Value initial(int origin, BlockIndex block) const {
    return {value(origin, block), 1};
  }
  [[nodiscard]] static bool defined(const Value& v) { return v.count != 0; }
  [[nodiscard]] static Value reduce(const Value& in, const Value& inout, OperandOrder) {
    return {in.sum + inout.sum, in.count + inout.count};
  }
  [[nodiscard]] bool matches(const Value& v, const SlotExpectation& e) const {
    if (e.kind == SlotExpectation::Kind::single)
      return v.count == 1 && v.sum == value(e.origin, e.block);
    return v.count == static_cast<std::uint32_t>(ranks_) &&
           v.sum == rank_key_sum_ + static_cast<std::uint64_t>(ranks_) * block_key_[e.block];
  }
  [[nodiscard]] std::string mismatch(const Value& v, const SlotExpectation& e) const;
};

class OrderedFingerprintContent : FingerprintBase {
 public:
  using Value = OrderedFingerprint;
  static constexpr bool kConcurrentChecks = true;
  OrderedFingerprintContent(int ranks, BlockIndex slots, std::uint64_t seed)
      : FingerprintBase(ranks, slots, seed) {}
  [[nodiscard]] Value initial(int origin, BlockIndex block) const;
  [[nodiscard]] static bool defined(const Value& v) { return v.count != 0; }
  [[nodiscard]] Value reduce(const Value& in, const Value& inout, OperandOrder order) const;
  [[nodiscard]] std::string mismatch(const Value& v, const SlotExpectation& e) const;
};

}  // namespace topocoll
