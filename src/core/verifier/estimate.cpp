#include "core/verifier/estimate.hpp"

#include <algorithm>

#include "core/verifier/exact_content.hpp"
#include "core/verifier/fingerprint_content.hpp"

namespace topocoll {
namespace {

// Per rank: its state record, inbox and the current step's operations (a few hundred bytes).
constexpr std::uint64_t kBytesPerRank = 512;
// Exact mode allocates one rope node (with its shared_ptr control block) per initial value.
constexpr std::uint64_t kExactNodeBytes = 80;

std::uint64_t saturating_multiply(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > UINT64_MAX / a) return UINT64_MAX;
  return a * b;
}

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

}  // namespace

std::uint64_t bytes_per_slot_state(const VerifyOptions& options) {
  if (options.mode == VerifyMode::exact) return sizeof(ExactContent::Value);
  return options.commutative ? sizeof(SumFingerprint) : sizeof(OrderedFingerprint);
}

BlockIndex window_width(const ScheduleInfo& info, const VerifyOptions& options,
                        std::uint64_t value_bytes, bool allow_windows) {
  const auto slots = static_cast<BlockIndex>(info.total_slots());
  // State plus in-flight copies: a step sends at most about half of every rank's data.
  const std::uint64_t per_slot = 3ULL * value_bytes * static_cast<std::uint64_t>(info.ranks) / 2;
  if (!allow_windows || !info.keeps_positions || per_slot == 0 ||
      saturating_multiply(per_slot, slots) <= options.memory_budget)
    return slots;
  return static_cast<BlockIndex>(
      std::clamp<std::uint64_t>(options.memory_budget / per_slot, 1, slots));
}

VerifyEstimate estimate_verify(const Schedule& schedule, const VerifyOptions& options) {
  const ScheduleInfo& info = schedule.info();
  VerifyEstimate e;
  const std::uint64_t ranks = static_cast<std::uint64_t>(std::max(info.ranks, 0));
  const std::uint64_t slots = static_cast<std::uint64_t>(std::max(info.total_slots(), 0));
  const std::uint64_t value = bytes_per_slot_state(options);
  const bool exact = options.mode == VerifyMode::exact;
  const BlockIndex width = window_width(info, options, value, !exact);
  e.passes = width == 0 ? 1 : (slots + width - 1) / width;
  e.passes = std::max<std::uint64_t>(e.passes, 1);
  for (int r = 0; r < info.ranks; ++r)
    e.rank_steps += static_cast<std::uint64_t>(std::max(schedule.step_count(r), 0));
  e.slot_states = saturating_multiply(ranks, slots);
  const std::uint64_t in_window = saturating_multiply(ranks, width);
  std::uint64_t per_state = 3 * value / 2 + (exact ? kExactNodeBytes : 0);
  e.memory_bytes = saturating_add(saturating_multiply(in_window, per_state),
                                  saturating_multiply(ranks, kBytesPerRank));
  // Weights from timing the verifier on rank-step-bound (recursive doubling at 2^16 ranks)
  // and slot-bound (ring at 4100 ranks) runs: a rank-step costs about as much as four slot
  // states, a slot state is written, moved and checked about three times.
  e.work = saturating_add(saturating_multiply(4, saturating_multiply(e.passes, e.rank_steps)),
                          saturating_multiply(e.slot_states, 3));
  return e;
}

}  // namespace topocoll
