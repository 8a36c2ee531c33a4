#include "plan.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace topocoll::mpi {
namespace {

bool overlaps(const BlockSet& a, const BlockSet& b) {
  const auto& x = a.ranges();
  const auto& y = b.ranges();
  std::size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    if (x[i].end <= y[j].begin) {
      ++i;
    } else if (y[j].end <= x[i].begin) {
      ++j;
    } else {
      return true;
    }
  }
  return false;
}

BlockSet normalized(BlockSet set) {
  if (!set.is_normalized()) set.normalize();
  return set;
}

// Maps slots to regions and element offsets.
class SlotMap {
 public:
  SlotMap(const ScheduleInfo& info, const SlotSizes& sizes)
      : blocks_(static_cast<BlockIndex>(info.blocks)),
        user_slots_(static_cast<BlockIndex>(info.user_slots())),
        offsets_(sizes.user_offsets) {
    if (offsets_.size() != static_cast<std::size_t>(blocks_) + 1)
      throw std::logic_error("slot sizes do not match the schedule's block count");
    scratch_offsets_.push_back(0);
    for (BlockIndex s = user_slots_; s < static_cast<BlockIndex>(info.total_slots()); ++s)
      scratch_offsets_.push_back(scratch_offsets_.back() + size(s));
  }

  [[nodiscard]] std::uint64_t size(BlockIndex slot) const {
    const BlockIndex b = slot % blocks_;
    return offsets_[b + 1] - offsets_[b];
  }
  [[nodiscard]] std::uint64_t scratch_elements() const { return scratch_offsets_.back(); }

  [[nodiscard]] Segments segments(const BlockSet& set) const {
    Segments out;
    for (const BlockRange& r : set.ranges()) {
      BlockIndex begin = r.begin;
      while (begin < r.end) {
        const auto [region, end] = region_of(begin, r.end);
        append(out, {region, offset(region, begin), offset(region, end) - offset(region, begin)});
        begin = end;
      }
    }
    return out;
  }

 private:
  // The region of `slot` and where that region (or `limit`) ends.
  [[nodiscard]] std::pair<Region, BlockIndex> region_of(BlockIndex slot, BlockIndex limit) const {
    if (slot < blocks_) return {user_region, std::min(limit, blocks_)};
    if (slot < user_slots_) return {receive_region, std::min(limit, user_slots_)};
    return {workspace_region, limit};
  }
  [[nodiscard]] std::uint64_t offset(Region region, BlockIndex slot) const {
    switch (region) {
      case user_region: return offsets_[slot];
      case receive_region: return offsets_[slot - blocks_];
      case workspace_region: return scratch_offsets_.at(slot - user_slots_);
    }
    return 0;
  }
  static void append(Segments& out, Segment s) {
    if (s.count == 0) return;
    if (!out.empty() && out.back().region == s.region &&
        out.back().offset + out.back().count == s.offset) {
      out.back().count += s.count;
      return;
    }
    out.push_back(s);
  }

  BlockIndex blocks_;
  BlockIndex user_slots_;
  std::vector<std::uint64_t> offsets_;
  std::vector<std::uint64_t> scratch_offsets_;
};

std::uint64_t total(const Segments& segments) {
  std::uint64_t n = 0;
  for (const auto& s : segments) n += s.count;
  return n;
}

bool touches_user(const Segments& segments) {
  return std::any_of(segments.begin(), segments.end(),
                     [](const Segment& s) { return s.region == user_region; });
}

// Block sets the step's operations read or write, for the staging decisions.
struct StepSets {
  BlockSet sent;         // read by sends
  BlockSet start_read;   // read by step-start copies
  BlockSet after_write;  // written by after-receives copies
};

class StepCompiler {
 public:
  StepCompiler(const SlotMap& map, Plan& plan, bool commutative, std::uint64_t staging_base)
      : map_(map), plan_(plan), commutative_(commutative), staging_base_(staging_base) {}

  CompiledStep compile(const Step& step) {
    CompiledStep out;
    staging_used_ = 0;
    const StepSets sets = collect(step);
    for (std::size_t i = 0; i < step.ops.size(); ++i) {
      const Operation& op = step.ops[i];
      const BlockSet blocks = normalized(op.blocks);
      if (op.kind == OpKind::send) {
        out.sends.push_back(transfer(op, blocks));
      } else if (op.kind == OpKind::recv) {
        Transfer t = transfer(op, blocks);
        t.staged = op.combine == Combine::reduce || overlaps(blocks, sets.sent) ||
                   overlaps(blocks, sets.start_read) || written_by_other(step, i, blocks);
        if (t.staged) t.staging = stage(t.count);
        out.apply.push_back({true, out.receives.size()});
        out.receives.push_back(std::move(t));
      } else if (op.after_receives()) {
        out.after.push_back(local(op, blocks, false));
      } else {
        const bool snapshot = written_in_step(step, normalized(op.source));
        out.apply.push_back({false, out.copies.size()});
        out.copies.push_back(local(op, blocks, snapshot));
      }
    }
    mark_after_snapshots(step, out);
    out.waits_for = step.after;
    high_water_ = std::max(high_water_, staging_used_);
    return out;
  }

  [[nodiscard]] std::uint64_t high_water() const { return high_water_; }

 private:
  static StepSets collect(const Step& step) {
    StepSets s;
    for (const Operation& op : step.ops) {
      if (op.kind == OpKind::send) s.sent.add(op.blocks);
      if (op.kind == OpKind::copy && !op.after_receives()) s.start_read.add(op.source);
      if (op.after_receives()) s.after_write.add(op.blocks);
    }
    s.sent.normalize();
    s.start_read.normalize();
    s.after_write.normalize();
    return s;
  }

  // Whether an operation other than `self` (after-receives copies excepted: they run after
  // every receive has landed) writes one of `blocks`.
  static bool written_by_other(const Step& step, std::size_t self, const BlockSet& blocks) {
    for (std::size_t j = 0; j < step.ops.size(); ++j) {
      const Operation& op = step.ops[j];
      if (j == self || !op.writes() || op.after_receives()) continue;
      if (overlaps(normalized(op.blocks), blocks)) return true;
    }
    return false;
  }

  static bool written_in_step(const Step& step, const BlockSet& blocks) {
    for (const Operation& op : step.ops)
      if (op.writes() && !op.after_receives() && overlaps(normalized(op.blocks), blocks))
        return true;
    return false;
  }

  // After-receives copies all read the state the receives and step-start copies left: one
  // whose source another after-receives copy writes reads a snapshot.
  void mark_after_snapshots(const Step& step, CompiledStep& out) {
    std::vector<const Operation*> after;
    for (const Operation& op : step.ops)
      if (op.after_receives()) after.push_back(&op);
    for (std::size_t i = 0; i < after.size(); ++i) {
      const BlockSet source = normalized(after[i]->source);
      bool needs = false;
      for (const Operation* other : after)
        needs = needs || overlaps(normalized(other->blocks), source);
      LocalOp& op = out.after[i];
      op.snapshot = needs || (op.combine == Combine::reduce &&
                              op.order == OperandOrder::local_first && !commutative_);
      if (op.snapshot) op.staging = stage(op.count);
    }
  }

  Transfer transfer(const Operation& op, const BlockSet& blocks) {
    Transfer t;
    t.peer = op.peer;
    t.port = op.port;
    t.segments = map_.segments(blocks);
    t.count = total(t.segments);
    t.combine = op.combine;
    t.order = op.order;
    if (op.kind == OpKind::recv && touches_user(t.segments)) plan_.writes_user_region = true;
    return t;
  }

  LocalOp local(const Operation& op, const BlockSet& blocks, bool snapshot) {
    LocalOp l;
    l.source = map_.segments(normalized(op.source));
    l.destination = map_.segments(blocks);
    l.count = total(l.destination);
    if (total(l.source) != l.count)
      throw UnevenSlots("a local copy whose source and destination differ in size");
    l.combine = op.combine;
    l.order = op.order;
    // A non-commutative local-first reduction computes into the snapshot, then copies back.
    l.snapshot = snapshot || (l.combine == Combine::reduce &&
                              l.order == OperandOrder::local_first && !commutative_);
    if (l.snapshot) l.staging = stage(l.count);
    if (touches_user(l.destination)) plan_.writes_user_region = true;
    return l;
  }

  Segment stage(std::uint64_t count) {
    Segment s{workspace_region, staging_base_ + staging_used_, count};
    staging_used_ += count;
    return s;
  }

  const SlotMap& map_;
  Plan& plan_;
  bool commutative_;
  std::uint64_t staging_base_;
  std::uint64_t staging_used_ = 0;
  std::uint64_t high_water_ = 0;
};

}  // namespace

Plan compile_plan(const ScheduleInfo& info, const RankLanes& lanes, const SlotSizes& sizes,
                  bool commutative) {
  const SlotMap map(info, sizes);
  Plan plan;
  plan.ports = std::max(1, info.ports);
  // Every lane stages into its own part of the workspace, after the scratch slots.
  std::uint64_t staging_end = map.scratch_elements();
  for (const std::vector<Step>& steps : lanes) {
    StepCompiler compiler(map, plan, commutative, staging_end);
    CompiledLane& lane = plan.lanes.emplace_back();
    lane.steps.reserve(steps.size());
    for (const Step& step : steps) lane.steps.push_back(compiler.compile(step));
    staging_end += compiler.high_water();
  }
  plan.workspace_elements = staging_end;
  return plan;
}

Plan compile_plan_padded_if_needed(const ScheduleInfo& info, const RankLanes& lanes,
                                   const SlotSizes& sizes, bool commutative) {
  // Decided from the schedule as a whole, never from this rank's steps alone, so that every
  // rank agrees on the message sizes.
  const auto& offsets = sizes.user_offsets;
  std::uint64_t largest = 0, smallest = UINT64_MAX;
  for (std::size_t b = 0; b + 1 < offsets.size(); ++b) {
    largest = std::max(largest, offsets[b + 1] - offsets[b]);
    smallest = std::min(smallest, offsets[b + 1] - offsets[b]);
  }
  if (info.keeps_positions || largest == smallest)
    return compile_plan(info, lanes, sizes, commutative);
  SlotSizes padded;
  for (std::size_t b = 0; b < offsets.size(); ++b) padded.user_offsets.push_back(b * largest);
  Plan plan = compile_plan(info, lanes, padded, commutative);
  plan.padded_block = largest;
  plan.real_offsets = offsets;
  return plan;
}

}  // namespace topocoll::mpi
