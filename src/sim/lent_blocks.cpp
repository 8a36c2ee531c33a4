#include "sim/lent_blocks.hpp"

namespace topocoll::sim {
namespace {

BlockSet normalized(const BlockSet& set) {
  BlockSet out = set;
  out.normalize();
  return out;
}

void merge(BlockSet& into, const BlockSet& more) {
  into.add(more);
  into.normalize();
}

}  // namespace

LentBlocks::LentBlocks(const BlockSet& input_copy)
    : written_(normalized(input_copy)), first_copied_(written_) {}

void LentBlocks::lend(const BlockSet& sent) { merge(lent_, normalized(sent)); }

BlockSet LentBlocks::write(const BlockSet& blocks, Write how) {
  const BlockSet set = normalized(blocks);
  if (how != Write::landing) {
    const BlockSet first = set.without(written_);
    merge(how == Write::copy ? first_copied_ : first_reduced_, first);
  }
  merge(written_, set);
  BlockSet taken_back = lent_.intersected(set);
  if (!taken_back.empty()) lent_ = lent_.without(set);
  return taken_back;
}

LentBlocks::Settlement LentBlocks::settle() const {
  return {lent_.intersected(first_copied_), lent_.intersected(first_reduced_)};
}

}  // namespace topocoll::sim
