#pragma once
// How many bytes a block range carries: the one rule every simulator model uses
// (docs/simulator-engines.md, "Messages"). User blocks come from the block partition; the
// alltoall receive buffer [B, 2B) mirrors the send buffer; scratch slots past the user buffer
// are as large as the largest block.
#include <cstdint>

#include "core/block_set.hpp"
#include "core/partition.hpp"
#include "sim/simulate.hpp"

namespace topocoll::sim {

// The element count of the configured vector. Throws UnsupportedRequest for an element size
// below 1 byte or a vector that is not a whole number of elements.
[[nodiscard]] std::uint64_t element_count(const SimConfig& config);

class MessageBytes {
 public:
  MessageBytes(const ScheduleInfo& info, const SimConfig& config);
  [[nodiscard]] std::uint64_t range(BlockIndex begin, BlockIndex end) const;
  [[nodiscard]] std::uint64_t set(const BlockSet& blocks) const;
  // Every slot (user, mirrored and scratch) holds the same bytes: a message's bytes are then
  // its block count times one block size.
  [[nodiscard]] bool equal_blocks() const { return equal_blocks_; }

 private:
  BlockPartition partition_;
  std::uint64_t element_bytes_;
  bool alltoall_;
  std::uint64_t scratch_slot_bytes_ = 0;
  bool equal_blocks_ = true;
};

}  // namespace topocoll::sim
