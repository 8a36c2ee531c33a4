#include "sim/message_bytes.hpp"

#include <algorithm>
#include <string>

#include "core/registry.hpp"

namespace topocoll::sim {

std::uint64_t element_count(const SimConfig& config) {
  if (config.element_bytes < 1)
    throw UnsupportedRequest("the element size must be at least 1 byte, got " +
                             std::to_string(config.element_bytes));
  const auto e = static_cast<std::uint64_t>(config.element_bytes);
  if (config.vector_bytes % e != 0)
    throw UnsupportedRequest("the vector size " + std::to_string(config.vector_bytes) +
                             " B is not a multiple of the element size " + std::to_string(e) +
                             " B");
  return config.vector_bytes / e;
}

MessageBytes::MessageBytes(const ScheduleInfo& info, const SimConfig& config)
    : partition_(info, element_count(config)),
      element_bytes_(static_cast<std::uint64_t>(config.element_bytes)),
      alltoall_(info.collective == Collective::alltoall) {
  for (int b = 0; b < partition_.blocks(); ++b)
    scratch_slot_bytes_ =
        std::max(scratch_slot_bytes_, partition_.size(static_cast<BlockIndex>(b)) * element_bytes_);
  for (int b = 0; b < partition_.blocks(); ++b)
    equal_blocks_ = equal_blocks_ && partition_.size(static_cast<BlockIndex>(b)) * element_bytes_ ==
                                         scratch_slot_bytes_;
}

std::uint64_t MessageBytes::range(BlockIndex begin, BlockIndex end) const {
  const auto blocks = static_cast<BlockIndex>(partition_.blocks());
  std::uint64_t bytes = 0;
  auto user = [&](BlockIndex b, BlockIndex e) {
    if (b < e) bytes += (partition_.offset(e) - partition_.offset(b)) * element_bytes_;
  };
  user(std::min(begin, blocks), std::min(end, blocks));
  BlockIndex scratch_from = blocks;
  if (alltoall_) {  // the receive buffer mirrors the send buffer
    const BlockIndex b = std::max(begin, blocks), e = std::min(end, 2 * blocks);
    if (b < e) user(b - blocks, e - blocks);
    scratch_from = 2 * blocks;
  }
  if (end > scratch_from)
    bytes += static_cast<std::uint64_t>(end - std::max(begin, scratch_from)) * scratch_slot_bytes_;
  return bytes;
}

std::uint64_t MessageBytes::set(const BlockSet& blocks) const {
  std::uint64_t bytes = 0;
  for (const auto& r : blocks.ranges()) bytes += range(r.begin, r.end);
  return bytes;
}

}  // namespace topocoll::sim
