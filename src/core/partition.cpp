#include "core/partition.hpp"

#include <stdexcept>

namespace topocoll {
namespace {

void append_split(std::vector<std::uint64_t>& offsets, std::uint64_t count, std::uint64_t blocks) {
  const std::uint64_t base = count / blocks, extra = count % blocks;
  for (std::uint64_t b = 0; b < blocks; ++b)
    offsets.push_back(offsets.back() + base + (b < extra ? 1 : 0));
}

}  // namespace

BlockPartition::BlockPartition(std::uint64_t count, int blocks) {
  if (blocks < 1) throw std::invalid_argument("a partition needs at least one block");
  offsets_.reserve(static_cast<std::size_t>(blocks) + 1);
  offsets_.push_back(0);
  append_split(offsets_, count, static_cast<std::uint64_t>(blocks));
}

BlockPartition::BlockPartition(const ScheduleInfo& info, std::uint64_t count) {
  if (info.blocks < 1) throw std::invalid_argument("a partition needs at least one block");
  if (!is_chunked_per_rank(info.collective)) {
    *this = BlockPartition(count, info.blocks);
    return;
  }
  const int per_chunk = info.blocks_per_chunk();
  if (per_chunk < 1 || per_chunk * info.ranks != info.blocks)
    throw std::invalid_argument("a chunked collective needs B to be a multiple of P");
  offsets_.reserve(static_cast<std::size_t>(info.blocks) + 1);
  offsets_.push_back(0);
  for (int r = 0; r < info.ranks; ++r)
    append_split(offsets_, count, static_cast<std::uint64_t>(per_chunk));
}

std::uint64_t BlockPartition::elements(const BlockSet& set) const {
  std::uint64_t n = 0;
  for (const auto& r : set.ranges()) n += offsets_.at(r.end) - offsets_.at(r.begin);
  return n;
}

}  // namespace topocoll
