#pragma once
// From blocks to elements: where each block of a schedule lives in the user's buffer for a given
// element count. Sizes follow the early/late rule (the first count % B blocks get one element
// more); zero-size blocks are legal, so any count works with any B.
#include <cstdint>
#include <vector>

#include "core/schedule.hpp"

namespace topocoll {

class BlockPartition {
 public:
  // `count` is the element count of the whole vector for allreduce, bcast and reduce, and the
  // count per rank (MPI's recvcount / sendcount) for the chunked collectives, whose chunks are
  // split into S = B / P blocks each.
  BlockPartition(const ScheduleInfo& info, std::uint64_t count);
  // Early/late split of `count` elements into `blocks` blocks.
  BlockPartition(std::uint64_t count, int blocks);

  [[nodiscard]] int blocks() const { return static_cast<int>(offsets_.size()) - 1; }
  [[nodiscard]] std::uint64_t offset(BlockIndex block) const { return offsets_.at(block); }
  [[nodiscard]] std::uint64_t size(BlockIndex block) const {
    return offsets_.at(block + 1) - offsets_.at(block);
  }
  [[nodiscard]] std::uint64_t total() const { return offsets_.back(); }
  // Elements covered by a block set.
  [[nodiscard]] std::uint64_t elements(const BlockSet& set) const;

 private:
  std::vector<std::uint64_t> offsets_;  // B + 1 entries
};

}  // namespace topocoll
