#include "core/verifier/estimate.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/verifier/exact_content.hpp"
#include "core/verifier/fingerprint_content.hpp"
#include "core/verifier/symmetry_proof.hpp"

namespace topocoll {
namespace {

// Per rank: its state record, inbox and the current step's operations (a few hundred bytes).
constexpr std::uint64_t kBytesPerRank = 512;
// Exact mode allocates one rope node (with its shared_ptr control block) per initial value.
constexpr std::uint64_t kExactNodeBytes = 80;
// Work (units of `work` below) beyond which a run is not searched for a translation symmetry:
// the symmetric run's own proof, 8 units per rank-step, would already exceed it (about 9 hours
// at python/topocoll/limits.py's 3e6 units per second, which refuses 1.8e9 without --force),
// and the search walks whole lanes of a sample of ranks (10.7 s for a ring of 10^6 ranks).
constexpr std::uint64_t kSearchedWorkLimit = 100'000'000'000;

std::uint64_t saturating_multiply(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > UINT64_MAX / a) return UINT64_MAX;
  return a * b;
}

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

// Slots of one window a rank's message buffers may hold at once. A send snapshots its share of
// the window; the buffer then passes to the receiver, which keeps it for its own sends, so
// every buffer grows to the largest share of the pass. In one pass that is at most about half
// of the slots (a step sends half of a rank's data); in a window of a larger vector one rank's
// send can cover the whole window.
std::uint64_t in_flight_slots(std::uint64_t width, std::uint64_t slots) {
  return std::min(width, (slots + 1) / 2);
}

}  // namespace

std::uint64_t bytes_per_slot_state(const VerifyOptions& options) {
  if (options.mode == VerifyMode::exact) return sizeof(ExactContent::Value);
  return options.commutative ? sizeof(SumFingerprint) : sizeof(OrderedFingerprint);
}

BlockIndex window_width(const ScheduleInfo& info, const VerifyOptions& options,
                        std::uint64_t value_bytes, bool allow_windows) {
  return window_width(info, options, value_bytes, allow_windows,
                      static_cast<BlockIndex>(info.total_slots()), false);
}

BlockIndex window_width(const ScheduleInfo& info, const VerifyOptions& options,
                        std::uint64_t value_bytes, bool allow_windows, BlockIndex slots,
                        bool part) {
  const std::uint64_t per_rank_slot =
      saturating_multiply(value_bytes, static_cast<std::uint64_t>(std::max(info.ranks, 0)));
  // A part of the slots is a window of a larger vector: one send can carry all of it.
  const std::uint64_t in_flight = part ? slots : in_flight_slots(slots, slots);
  const std::uint64_t one_pass =
      saturating_multiply(per_rank_slot, saturating_add(slots, in_flight));
  if (!allow_windows || !info.keeps_positions || per_rank_slot == 0 ||
      one_pass <= options.memory_budget)
    return slots;
  // State plus a buffer of up to the window per rank.
  return static_cast<BlockIndex>(std::clamp<std::uint64_t>(
      options.memory_budget / saturating_multiply(2, per_rank_slot), 1, slots));
}

namespace {

// Passes, slot states, memory and work of a run that checks the slots of `checked`.
void cost_of_checking(const ScheduleInfo& info, const VerifyOptions& options,
                      const std::vector<BlockRange>& checked, VerifyEstimate& e) {
  const std::uint64_t ranks = static_cast<std::uint64_t>(std::max(info.ranks, 0));
  const std::uint64_t all_slots = static_cast<std::uint64_t>(std::max(info.total_slots(), 0));
  const std::uint64_t value = bytes_per_slot_state(options);
  const bool exact = options.mode == VerifyMode::exact;
  std::uint64_t slots = 0;
  BlockIndex largest = 0;
  for (const BlockRange& r : checked) {
    slots += r.size();
    largest = std::max(largest, r.size());
  }
  const BlockIndex width = std::max<BlockIndex>(
      window_width(info, options, value, !exact, largest, slots < all_slots), 1);
  e.passes = 0;
  for (const BlockRange& r : checked)
    e.passes += std::max<std::uint64_t>((r.size() + width - 1) / width, 1);
  e.slot_states = saturating_multiply(ranks, slots);
  const std::uint64_t per_rank = saturating_add(
      saturating_multiply(width, value + (exact ? kExactNodeBytes : 0)),
      saturating_add(
          saturating_multiply(slots < all_slots ? width : in_flight_slots(width, slots), value),
          kBytesPerRank));
  e.memory_bytes = saturating_multiply(ranks, per_rank);
  // Weights from timing the verifier on rank-step-bound (recursive doubling at 2^16 ranks)
  // and slot-bound (ring at 4100 ranks) runs: a rank-step costs about as much as four slot
  // states, a slot state is written, moved and checked about three times.
  e.work = saturating_add(saturating_multiply(4, saturating_multiply(e.passes, e.rank_steps)),
                          saturating_multiply(e.slot_states, 3));
}

std::uint64_t rank_steps_of(const Schedule& schedule) {
  std::uint64_t sum = 0;
  for (int r = 0; r < schedule.ranks(); ++r) sum += schedule.lane_steps_total(r);
  return sum;
}

}  // namespace

VerifyEstimate estimate_verify(const Schedule& schedule, const VerifyOptions& options,
                               std::uint64_t work_limit) {
  const ScheduleInfo& info = schedule.info();
  VerifyEstimate e;
  e.rank_steps = rank_steps_of(schedule);
  cost_of_checking(info, options, {{0, static_cast<BlockIndex>(info.total_slots())}}, e);
  if (options.mode == VerifyMode::exact) return e;
  if (auto why = detail::symmetry_excluded(info, options)) {
    e.symmetry = "no translation symmetry (" + *why + "): full verification";
    return e;
  }
  // With a symmetry the run proves it (8 units per rank-step) and makes at least one pass (4).
  const std::uint64_t least_with_symmetry = saturating_multiply(12, e.rank_steps);
  if (saturating_multiply(8, e.rank_steps) > kSearchedWorkLimit) {
    e.symmetry = "translation symmetry not searched: its proof alone would walk " +
                 std::to_string(e.rank_steps) + " rank-steps";
    return e;
  }
  // Whatever the search found, the run would exceed the caller's limit: the search, which
  // walks whole lanes of a sample of ranks, would only delay the refusal.
  if (least_with_symmetry > work_limit && e.work > work_limit) {
    e.symmetry = "translation symmetry not searched: with it the run would still take at least " +
                 std::to_string(least_with_symmetry) + " units of work";
    return e;
  }
  // On a sample of ranks: the proof walks the whole schedule, which is the run's work.
  auto symmetry = detail::symmetry_for(schedule, options, false);
  e.symmetry = symmetry.description;
  if (!symmetry.group) return e;
  cost_of_checking(info, options, symmetry.checked, e);
  // The proof builds two lane steps per step it compares.
  if (!symmetry.proven) e.work = saturating_add(e.work, saturating_multiply(8, e.rank_steps));
  return e;
}

}  // namespace topocoll
