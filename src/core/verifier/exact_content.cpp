#include "core/verifier/exact_content.hpp"

#include <sstream>

namespace topocoll {

ExactContent::Value ExactContent::initial(int origin, BlockIndex block) const {
  return std::make_shared<const std::vector<Contribution>>(
      std::vector<Contribution>{{static_cast<std::uint32_t>(origin), block}});
}

ExactContent::Value ExactContent::reduce(const Value& in, const Value& inout,
                                         OperandOrder order) const {
  const Value& first = order == OperandOrder::received_first ? in : inout;
  const Value& second = order == OperandOrder::received_first ? inout : in;
  auto out = std::make_shared<std::vector<Contribution>>();
  out->reserve(first->size() + second->size());
  out->insert(out->end(), first->begin(), first->end());
  out->insert(out->end(), second->begin(), second->end());
  return out;
}

std::string ExactContent::check_all_ranks(const std::vector<Contribution>& items,
                                          BlockIndex block) const {
  std::vector<int> count(static_cast<std::size_t>(ranks_), 0);
  for (const auto& c : items) {
    if (c.block != block) {
      return "a contribution of block " + std::to_string(c.block) + " (from rank " +
             std::to_string(c.origin) + ")";
    }
    ++count[c.origin];
  }
  for (int q = 0; q < ranks_; ++q) {
    if (count[q] == 0) {
      return std::to_string(items.size()) + " contributions; rank " + std::to_string(q) +
             "'s is missing";
    }
    if (count[q] > 1) {
      return "rank " + std::to_string(q) + "'s contribution counted " + std::to_string(count[q]) +
             " times";
    }
  }
  if (!commutative_) {
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (items[i].origin != i) {
        return "all contributions, but rank " + std::to_string(items[i].origin) +
               " at position " + std::to_string(i) + " of the reduction order";
      }
    }
  }
  return {};
}

std::string ExactContent::mismatch(const Value& v, const SlotExpectation& e) {
  if (e.kind == SlotExpectation::Kind::dont_care) return {};
  if (!v) return "a slot that was never written";
  auto it = memo_.find(v.get());
  if (it != memo_.end() && it->second.first == e.block && e.kind == SlotExpectation::Kind::all_ranks)
    return it->second.second;
  std::string verdict;
  if (e.kind == SlotExpectation::Kind::single) {
    if (v->size() != 1 || (*v)[0].origin != static_cast<std::uint32_t>(e.origin) ||
        (*v)[0].block != e.block) {
      std::ostringstream os;
      os << v->size() << " contribution(s):";
      for (std::size_t i = 0; i < v->size() && i < 4; ++i)
        os << " (rank " << (*v)[i].origin << ", block " << (*v)[i].block << ")";
      if (v->size() > 4) os << " ...";
      verdict = os.str();
    }
    return verdict;
  }
  verdict = check_all_ranks(*v, e.block);
  memo_[v.get()] = {e.block, verdict};
  return verdict;
}

}  // namespace topocoll
