#pragma once
// What a verification will cost before it runs: the memory of its block state and the work of
// its passes, from the schedule's info and step counts only. The CLI and the Python API refuse
// runs beyond the machine (or far beyond what a user expects) with these figures, instead of
// being killed by the kernel half way.
#include <cstdint>
#include <string>

#include "core/schedule.hpp"
#include "core/verifier/verifier.hpp"

namespace topocoll {

struct VerifyEstimate {
  std::uint64_t memory_bytes = 0;  // block state, in-flight copies and per-rank bookkeeping
  std::uint64_t passes = 1;        // block windows the run is split into
  std::uint64_t rank_steps = 0;    // sum of every rank's step count
  std::uint64_t slot_states = 0;   // ranks x slots
  // Abstract work: 4 x passes x rank-steps + 3 x slot states (each pass posts, matches and
  // completes every rank-step; every slot state is initialized, moved and checked). Converted
  // to seconds in python/topocoll/limits.py.
  std::uint64_t work = 0;
  // Fingerprint mode: the translation symmetry found (then the passes cover one block per
  // orbit, and the proof's lane steps count twice in `work`), or why there is none.
  std::string symmetry;
};

// Bytes of state the verifier keeps per (rank, slot) in a mode.
[[nodiscard]] std::uint64_t bytes_per_slot_state(const VerifyOptions& options);

// Slots per block window: all of them, unless the state would exceed the memory budget and
// the content allows windows (fingerprints of a schedule that keeps positions).
[[nodiscard]] BlockIndex window_width(const ScheduleInfo& info, const VerifyOptions& options,
                                      std::uint64_t value_bytes, bool allow_windows);
// The same for a run over `slots` slots, which are only `part` of the vector when the run
// checks one block per orbit of a translation symmetry.
[[nodiscard]] BlockIndex window_width(const ScheduleInfo& info, const VerifyOptions& options,
                                      std::uint64_t value_bytes, bool allow_windows,
                                      BlockIndex slots, bool part);

// `work_limit`: the most work the caller would run. A fingerprint estimate skips its search for
// a translation symmetry when no outcome of the search could bring the run under it.
[[nodiscard]] VerifyEstimate estimate_verify(const Schedule& schedule, const VerifyOptions& options,
                                             std::uint64_t work_limit = UINT64_MAX);

}  // namespace topocoll
