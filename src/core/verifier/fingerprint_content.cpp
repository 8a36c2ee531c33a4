#include "core/verifier/fingerprint_content.hpp"

#include <random>

namespace topocoll {
namespace {

std::string count_problem(std::uint32_t found, std::uint32_t expected) {
  if (found == 0) return "a slot that was never written";
  if (found == expected) return {};
  return std::to_string(found) + " contributions (expected " + std::to_string(expected) + ")";
}

}  // namespace

FingerprintBase::FingerprintBase(int ranks, std::uint64_t seed)
    : ranks_(ranks), rank_key_(static_cast<std::size_t>(ranks)) {
  std::mt19937_64 rng(seed);
  for (auto& k : rank_key_) {
    k = rng();
    rank_key_sum_ += k;
  }
  block_seed_ = rng();
  base_ = rng() % (kPrime - 2) + 2;
  powers_.resize(2 * static_cast<std::size_t>(ranks) + 2);
  powers_[0] = 1;
  for (std::size_t i = 1; i < powers_.size(); ++i) powers_[i] = mulmod(powers_[i - 1], base_);
  for (int q = 0; q < ranks; ++q) {
    rank_poly_ = addmod(mulmod(rank_poly_, base_), rank_key_[q] % kPrime);
    geometric_ = addmod(mulmod(geometric_, base_), 1);
  }
}

std::uint64_t FingerprintBase::mulmod(std::uint64_t a, std::uint64_t b) {
  const unsigned __int128 product = static_cast<unsigned __int128>(a) * b;
  std::uint64_t r =
      static_cast<std::uint64_t>(product & kPrime) + static_cast<std::uint64_t>(product >> 61);
  if (r >= kPrime) r -= kPrime;
  return r;
}

std::uint64_t FingerprintBase::addmod(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = a + b;
  if (r >= kPrime) r -= kPrime;
  return r;
}

std::uint64_t FingerprintBase::power(std::uint32_t exponent) const {
  if (exponent < powers_.size()) return powers_[exponent];
  std::uint64_t result = 1, b = base_;
  for (std::uint32_t e = exponent; e; e >>= 1) {
    if (e & 1) result = mulmod(result, b);
    b = mulmod(b, b);
  }
  return result;
}

std::string SumFingerprintContent::mismatch(const Value& v, const SlotExpectation& e) const {
  if (e.kind == SlotExpectation::Kind::dont_care) return {};
  const Value want = expected(e);
  if (auto problem = count_problem(v.count(), want.count()); !problem.empty()) return problem;
  if (v.word != want.word) return "the right number of contributions with the wrong fingerprint";
  return {};
}

OrderedFingerprint OrderedFingerprintContent::initial(int origin, BlockIndex block) const {
  return {value(origin, block), poly_value(origin, block), 1};
}

OrderedFingerprint OrderedFingerprintContent::reduce(const Value& in, const Value& inout,
                                                     OperandOrder order) const {
  const Value& first = order == OperandOrder::received_first ? in : inout;
  const Value& second = order == OperandOrder::received_first ? inout : in;
  return {in.sum + inout.sum, addmod(mulmod(first.poly, power(second.count)), second.poly),
          in.count + inout.count};
}

std::string OrderedFingerprintContent::mismatch(const Value& v, const SlotExpectation& e) const {
  using Kind = SlotExpectation::Kind;
  if (e.kind == Kind::dont_care) return {};
  const bool all = e.kind == Kind::all_ranks;
  const auto expected_count = static_cast<std::uint32_t>(all ? ranks_ : 1);
  if (auto problem = count_problem(v.count, expected_count); !problem.empty()) return problem;
  // The canonical order is rank 0 first: sum over q of (a_q + c_b) X^(P-1-q).
  const std::uint64_t sum =
      all ? rank_key_sum_ + static_cast<std::uint64_t>(ranks_) * block_key(e.block)
          : value(e.origin, e.block);
  const std::uint64_t poly =
      all ? addmod(rank_poly_, mulmod(block_key(e.block) % kPrime, geometric_))
          : poly_value(e.origin, e.block);
  if (v.sum != sum) return "the right number of contributions with the wrong fingerprint";
  if (v.poly != poly) return "the right contributions in a non-canonical reduction order";
  return {};
}

}  // namespace topocoll
