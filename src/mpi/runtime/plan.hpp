#pragma once
// One rank's part of a schedule, compiled for one element count: every block set becomes a
// list of element segments in one of three regions, and every step knows which receives
// must land in staging memory and which copies must read a snapshot (docs/design.md,
// "2.3 Snapshot semantics"). Built once per (communicator, collective, algorithm, count, ...)
// and cached, so the schedule generation is off the critical path of repeated calls.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "core/schedule.hpp"
#include "type_cache.hpp"

namespace topocoll::mpi {

// Where slots live: the user vector (slots [0, B)), the alltoall receive buffer (slots
// [B, 2B)), and the runtime's workspace (scratch slots, then staging memory).
enum Region : std::uint8_t { user_region = 0, receive_region = 1, workspace_region = 2 };
constexpr int region_count = 3;

struct Segment {
  Region region = user_region;
  std::uint64_t offset = 0;  // in elements
  std::uint64_t count = 0;
};

using Segments = std::vector<Segment>;

struct Transfer {
  int peer = 0;
  int port = 0;
  Segments segments;  // the slots sent or written, in block order
  std::uint64_t count = 0;
  bool staged = false;  // receive: lands in staging first
  Segment staging;      // when staged
  Combine combine = Combine::copy;
  OperandOrder order = OperandOrder::received_first;
};

struct LocalOp {
  Segments source;
  Segments destination;
  std::uint64_t count = 0;
  Combine combine = Combine::copy;
  OperandOrder order = OperandOrder::received_first;
  bool snapshot = false;  // read the source into staging before anything of the step writes
  Segment staging;
};

// Apply order of a step: receives and step-start copies in list order, then the
// after-receives copies in list order.
struct ApplyItem {
  bool is_receive = true;
  std::size_t index = 0;
};

struct CompiledStep {
  std::vector<Transfer> sends;
  std::vector<Transfer> receives;
  std::vector<LocalOp> copies;  // step-start copies
  std::vector<ApplyItem> apply;
  std::vector<LocalOp> after;         // after-receives copies
  std::vector<Dependency> waits_for;  // steps of other lanes that must have completed
};

// Lanes progress independently (docs/design.md, "2.2 Lanes and steps"); each has its own staging
// memory, since their steps are in flight at the same time.
struct CompiledLane {
  std::vector<CompiledStep> steps;
};

struct Plan {
  std::vector<CompiledLane> lanes;
  // 0, or the block size every slot was padded to: a schedule that moves blocks between
  // slots (keeps_positions = false) cannot run on uneven blocks, so the runtime runs it on a
  // copy of the vector whose blocks all have the largest block's size.
  std::uint64_t padded_block = 0;
  std::vector<std::uint64_t> real_offsets;  // the user slots' offsets when padded
  std::uint64_t workspace_elements = 0;     // scratch slots plus the largest step's staging
  bool writes_user_region = false;          // whether this rank ever writes slots [0, B)
  mutable TypeCache types;                  // datatypes of messages spanning several ranges
  int ports = 1;
};

// Element offsets of the user slots [0, B): B + 1 entries (alltoall's receive slots [B, 2B)
// use the same table, scratch slot s has the size of block s mod B).
struct SlotSizes {
  std::vector<std::uint64_t> user_offsets;
};

// A schedule whose data movement needs equal slot sizes (see Plan::padded_block).
class UnevenSlots : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

using RankLanes = std::vector<std::vector<Step>>;  // per lane, its steps

// Compiles the lanes of one rank (as materialized by Schedule::lane_steps_of). Throws
// UnevenSlots when a copy's source and destination differ in element count.
[[nodiscard]] Plan compile_plan(const ScheduleInfo& info, const RankLanes& lanes,
                                const SlotSizes& sizes, bool commutative);
// compile_plan, or the padded plan when the blocks are uneven and the schedule moves blocks
// between slots (keeps_positions = false): decided from the whole schedule, so all ranks agree.
[[nodiscard]] Plan compile_plan_padded_if_needed(const ScheduleInfo& info, const RankLanes& lanes,
                                                 const SlotSizes& sizes, bool commutative);

}  // namespace topocoll::mpi
