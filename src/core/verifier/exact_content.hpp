#pragma once
// Exact symbolic content: the ordered list of contributions a slot holds, as an immutable rope.
// A reduction is one node joining its two operands, so it costs O(1) time and memory whatever
// the lengths (a reduce-scatter of the d-cycles at d = 10 makes 10 million reductions of lists
// up to 1024 long); the list is spelled out only when a final slot is checked.
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

struct ContributionRope {
  Contribution leaf{};  // when first is null
  std::shared_ptr<const ContributionRope> first, second;
  std::uint32_t size = 1;
  ContributionRope() = default;
  ContributionRope(const ContributionRope&) = delete;
  ContributionRope& operator=(const ContributionRope&) = delete;
  ~ContributionRope();  // iterative: a chain of a million reductions must not recurse
};

class ExactContent {
 public:
  using Value = std::shared_ptr<const ContributionRope>;
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
  [[nodiscard]] static std::vector<Contribution> spelled_out(const ContributionRope& rope);
  int ranks_;
  bool commutative_;
  // Verdicts per shared value and block: copies of one value are checked once.
  std::unordered_map<const void*, std::pair<BlockIndex, std::string>> memo_;
};

}  // namespace topocoll
