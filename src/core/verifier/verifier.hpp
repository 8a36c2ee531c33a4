#pragma once
// Symbolic execution of a schedule against its collective's post-condition
// (docs/design.md, "3. Verifier").
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/schedule.hpp"

namespace topocoll {

enum class VerifyMode { exact, fingerprint };

enum class Violation {
  none,
  malformed,       // an operation that cannot be executed (bad peer, block out of range, ...)
  ports_exceeded,  // more concurrent operations per direction than ports
  not_adjacent,    // a peer that is not a neighbour in the requested topology
  block_mismatch,  // a matched send and receive disagree on the blocks
  unmatched,       // an operation whose partner never comes (deadlock or missing partner)
  read_undefined,  // a read of a slot that was never written
  write_conflict,  // two writers to one slot in one step, one of them a copy
  wrong_result,    // the post-condition fails
  lane_conflict,   // two lanes of a rank touch a block or channel with no dependency between
};

[[nodiscard]] std::string_view violation_name(Violation v);

// Exact mode keeps the contributions of every (rank, slot) as a rope (one node per initial value
// and per reduction, about 64 bytes each). Beyond this many slot states in a reduction the
// memory would approach the machine's, so it refuses and names fingerprint mode. Data
// movement shares its values and has no such limit.
inline constexpr std::uint64_t kExactSlotLimit = std::uint64_t{1} << 24;
// Slot states (ranks x slots) of a schedule, and whether exact mode can hold them.
[[nodiscard]] std::uint64_t slot_states(const ScheduleInfo& info);
[[nodiscard]] bool exact_mode_fits(const ScheduleInfo& info);

// A request the verifier cannot serve (exact mode beyond its slot limit, the fingerprint
// beyond the ranks it counts, an adjacency torus that does not fit the schedule): an input
// problem, not a wrong schedule. The message names the limit and how to proceed.
class VerifyRequestError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct VerifyOptions {
  VerifyMode mode = VerifyMode::exact;
  bool commutative = true;  // false: the reduction order must be the canonical rank order
  std::uint64_t seed = 0x5eed;
  // Check that every peer is a neighbour in a torus of these sizes (empty: no check). A
  // hypercube of dimension d is the torus 2x2x...x2.
  std::vector<int> adjacency_torus;
  // Memory budget for block state and message buffers, in bytes; the verifier splits the
  // blocks into windows and runs the schedule once per window when a single pass would not
  // fit. Each pass generates the whole schedule again: swing-bw on 128x128 took 18-20 s in 11
  // passes of 1.5 GiB and 23-27 s in 16 of 1 GiB (docs/verification-benchmark.md).
  std::uint64_t memory_budget = 3ULL << 29;  // 1.5 GiB
  int threads = 0;                           // 0: hardware concurrency
  // Fingerprint mode: check one block per orbit when the schedule is proven to commute with a
  // group of translations (docs/verifier.md, "Translation symmetry"); false checks every block.
  bool translation_symmetry = true;
};

struct VerifyReport {
  bool ok = true;
  Violation violation = Violation::none;
  int rank = -1;
  int step = -1;
  long long block = -1;
  std::string expected;
  std::string found;
  std::string message;  // full sentence naming rank, step, block, expected and found

  // Statistics of the run.
  int max_steps = 0;
  std::uint64_t messages = 0;         // matched send/receive pairs
  std::uint64_t block_transfers = 0;  // blocks carried by all messages
  std::uint64_t ranges = 0;           // ranges in all sends (separate messages without packing)
  int passes = 0;                     // block windows the run was split into
  // Blocks the content check covered: all slots, or one block per orbit of the translations
  // the schedule was proven to commute with (docs/verifier.md, "Translation symmetry").
  std::uint64_t checked_slots = 0;
  std::int64_t symmetry_order = 1;  // size of that group; 1 without symmetry
  std::string symmetry;             // what was found, or why none applies (fingerprint mode)
};

// Throws VerifyRequestError for requests it cannot serve (see above).
[[nodiscard]] VerifyReport verify(const Schedule& schedule, const VerifyOptions& options = {});

}  // namespace topocoll
