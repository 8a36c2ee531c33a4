#include "core/verifier/exact_content.hpp"

#include <sstream>

namespace topocoll {

ContributionRope::~ContributionRope() {
  std::vector<std::shared_ptr<const ContributionRope>> orphans;
  auto adopt = [&](std::shared_ptr<const ContributionRope>& child) {
    if (child && child.use_count() == 1) orphans.push_back(std::move(child));
    child.reset();
  };
  adopt(first);
  adopt(second);
  while (!orphans.empty()) {
    std::shared_ptr<const ContributionRope> node = std::move(orphans.back());
    orphans.pop_back();
    // The last owner: empty its children here so that its own destructor finds none.
    auto* owned = const_cast<ContributionRope*>(node.get());
    adopt(owned->first);
    adopt(owned->second);
  }
}

ExactContent::Value ExactContent::initial(int origin, BlockIndex block) const {
  auto leaf = std::make_shared<ContributionRope>();
  leaf->leaf = {static_cast<std::uint32_t>(origin), block};
  return leaf;
}

ExactContent::Value ExactContent::reduce(const Value& in, const Value& inout,
                                         OperandOrder order) const {
  auto node = std::make_shared<ContributionRope>();
  node->first = order == OperandOrder::received_first ? in : inout;
  node->second = order == OperandOrder::received_first ? inout : in;
  node->size = in->size + inout->size;
  return node;
}

// Left to right, with an explicit stack: ropes of long reduction chains are deep.
std::vector<Contribution> ExactContent::spelled_out(const ContributionRope& rope) {
  std::vector<Contribution> items;
  items.reserve(rope.size);
  std::vector<const ContributionRope*> pending{&rope};
  while (!pending.empty()) {
    const ContributionRope* node = pending.back();
    pending.pop_back();
    if (!node->first) {
      items.push_back(node->leaf);
      continue;
    }
    pending.push_back(node->second.get());
    pending.push_back(node->first.get());
  }
  return items;
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
        return "all contributions, but rank " + std::to_string(items[i].origin) + " at position " +
               std::to_string(i) + " of the reduction order";
      }
    }
  }
  return {};
}

std::string ExactContent::mismatch(const Value& v, const SlotExpectation& e) {
  if (e.kind == SlotExpectation::Kind::dont_care) return {};
  if (!v) return "a slot that was never written";
  auto it = memo_.find(v.get());
  if (it != memo_.end() && it->second.first == e.block &&
      e.kind == SlotExpectation::Kind::all_ranks)
    return it->second.second;
  std::string verdict;
  if (e.kind == SlotExpectation::Kind::single) {
    if (v->size != 1 || v->leaf.origin != static_cast<std::uint32_t>(e.origin) ||
        v->leaf.block != e.block) {
      const std::vector<Contribution> items = spelled_out(*v);
      std::ostringstream os;
      os << items.size() << " contribution(s):";
      for (std::size_t i = 0; i < items.size() && i < 4; ++i)
        os << " (rank " << items[i].origin << ", block " << items[i].block << ")";
      if (items.size() > 4) os << " ...";
      verdict = os.str();
    }
    return verdict;
  }
  verdict = check_all_ranks(spelled_out(*v), e.block);
  memo_[v.get()] = {e.block, verdict};
  return verdict;
}

}  // namespace topocoll
