#include "analysis/traffic.hpp"

#include <mutex>
#include <stdexcept>
#include <string>

#include "core/parallel_for.hpp"
#include "core/partition.hpp"

namespace topocoll {
namespace {

BlockPartition partition_for(const ScheduleInfo& info, std::uint64_t vector_bytes) {
  const std::uint64_t count = is_chunked_per_rank(info.collective)
                                  ? vector_bytes / static_cast<std::uint64_t>(info.ranks)
                                  : vector_bytes;
  return BlockPartition(info, count);
}

// Slots past the user vector (alltoall receive buffer, scratch) mirror the vector's blocks.
std::uint64_t bytes_of(const BlockSet& set, const BlockPartition& partition) {
  const auto b = static_cast<BlockIndex>(partition.blocks());
  std::uint64_t bytes = 0;
  for (const auto& r : set.ranges()) {
    if (r.end <= b) {
      bytes += partition.elements(BlockSet::range(r.begin, r.end));
      continue;
    }
    for (BlockIndex s = r.begin; s < r.end; ++s) bytes += partition.size(s % b);
  }
  return bytes;
}

}  // namespace

TrafficTotals measure_traffic(const Schedule& schedule, const std::vector<int>& group_of,
                              std::uint64_t vector_bytes, int threads) {
  const ScheduleInfo& info = schedule.info();
  if (static_cast<int>(group_of.size()) != info.ranks) {
    throw std::invalid_argument("the group map covers " + std::to_string(group_of.size()) +
                                " ranks but the schedule has " + std::to_string(info.ranks));
  }
  const BlockPartition partition = partition_for(info, vector_bytes);
  TrafficTotals totals;
  std::mutex merge;
  parallel_for(static_cast<std::size_t>(info.ranks), resolve_threads(threads), [&](std::size_t r) {
    TrafficTotals local;
    Step step;
    const int rank = static_cast<int>(r);
    for (int k = 0; k < schedule.step_count(rank); ++k) {
      step.clear();
      schedule.build_step(rank, k, step);
      for (const Operation& op : step.ops) {
        if (op.kind != OpKind::send || op.peer < 0 || op.peer >= info.ranks) continue;
        const std::uint64_t bytes = bytes_of(op.blocks, partition);
        const bool crosses = group_of[r] != group_of[static_cast<std::size_t>(op.peer)];
        local.bytes += bytes;
        local.messages += 1;
        local.inter_group_bytes += crosses ? bytes : 0;
        local.inter_group_messages += crosses ? 1 : 0;
      }
    }
    std::lock_guard<std::mutex> lock(merge);
    totals.bytes += local.bytes;
    totals.messages += local.messages;
    totals.inter_group_bytes += local.inter_group_bytes;
    totals.inter_group_messages += local.inter_group_messages;
  });
  return totals;
}

}  // namespace topocoll
