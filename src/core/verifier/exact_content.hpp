#pragma once
// Exact symbolic content: the ordered list of contributions a slot holds. Values are immutable
// and shared, so copies (allgather phases) cost O(1) and only reductions allocate.
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/operation.hpp"
#include "core/verifier/expectation.hpp"

namespace topocoll {

struct Contribution {
  std::uint32_t origin;
  std::uint32_t block;
};

class ExactContent {
 public:
  using Value = std::shared_ptr<const std::vector<Contribution>>;
  static constexpr bool kConcurrentChecks = false;  // mismatch() memoizes verdicts

  ExactContent(int ranks, bool commutative) : ranks_(ranks), commutative_(commutative) {}

  [[nodiscard]] Value initial(int origin, BlockIndex block) const;
  [[nodiscard]] static bool defined(const Value& v) { return v != nullptr; }
  [[nodiscard]] Value reduce(const Value& in, const Value& inout, OperandOrder order) const;
  // Empty when `v` meets the expectation; otherwise what was found instead.
  [[nodiscard]] std::string mismatch(const Value& v, const SlotExpectation& e);

 private:
  [[nodiscard]] std::string check_all_ranks(const std::vector<Contribution>& items,
                                            BlockIndex block) const;
  int ranks_;
  bool commutative_;
  // Verdicts per shared value and block: copies of one value are checked once.
  std::unordered_map<const void*, std::pair<BlockIndex, std::string>> memo_;
};

}  // namespace topocoll
