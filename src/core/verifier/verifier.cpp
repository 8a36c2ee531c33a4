#include "core/verifier/verifier.hpp"

#include <algorithm>

#include "core/verifier/engine.hpp"
#include "core/verifier/estimate.hpp"
#include "core/verifier/exact_content.hpp"
#include "core/verifier/fingerprint_content.hpp"
#include "core/verifier/symmetry_proof.hpp"

namespace topocoll {
namespace {

void fill(VerifyReport& report, const detail::Finding& f) {
  report.ok = false;
  report.violation = f.violation;
  report.rank = f.rank;
  report.step = f.step;
  report.block = f.block;
  report.expected = f.expected;
  report.found = f.found;
  report.message = std::string(violation_name(f.violation)) + ": rank " + std::to_string(f.rank) +
                   (f.step >= 0 ? " step " + std::to_string(f.step) : std::string()) + ": " +
                   f.what;
}

std::optional<std::string> info_problem(const ScheduleInfo& info) {
  if (info.ranks < 1) return "the schedule has no ranks";
  if (info.blocks < 0) return "the schedule has a negative block count";
  if (info.total_slots() < info.user_slots())
    return "slots (" + std::to_string(info.slots) + ") is smaller than the user buffer (" +
           std::to_string(info.user_slots()) + ")";
  if (is_chunked_per_rank(info.collective) && info.blocks % info.ranks != 0) {
    return "a " + std::string(collective_name(info.collective)) +
           " schedule needs a block count divisible by the ranks (got " +
           std::to_string(info.blocks) + " blocks for " + std::to_string(info.ranks) + " ranks)";
  }
  if (is_rooted(info.collective) && (info.root < 0 || info.root >= info.ranks))
    return "root " + std::to_string(info.root) + " is out of range";
  if (auto problem = placement_problem(info)) return problem;
  return std::nullopt;
}

// Runs the schedule once per block window of the slot ranges `checked` (every slot, or one
// block per orbit of a proven translation symmetry).
template <class Content>
VerifyReport run_windows(const Schedule& schedule, const VerifyOptions& options, Content& content,
                         std::size_t value_bytes, bool allow_windows,
                         const std::vector<BlockRange>& checked,
                         const detail::TranslationGroup* symmetry = nullptr) {
  VerifyReport report;
  const auto& info = schedule.info();
  BlockIndex largest = 0;
  for (const BlockRange& r : checked) {
    report.checked_slots += r.size();
    largest = std::max(largest, r.size());
  }
  const bool part = report.checked_slots < static_cast<std::uint64_t>(info.total_slots());
  const BlockIndex width = std::max<BlockIndex>(
      window_width(info, options, value_bytes, allow_windows, largest, part), 1);
  detail::Workspace<typename Content::Value> space;
  for (const BlockRange& range : checked) {
    for (BlockIndex begin = range.begin; begin < range.end || report.passes == 0; begin += width) {
      const BlockIndex end = std::min<BlockIndex>(range.end, begin + width);
      VerifyReport pass_stats;
      detail::Engine<Content> engine(schedule, options, content, space, begin, end, symmetry);
      auto finding = engine.run(pass_stats);
      if (report.passes == 0) {
        report.max_steps = pass_stats.max_steps;
        report.messages = pass_stats.messages;
        report.block_transfers = pass_stats.block_transfers;
        report.ranges = pass_stats.ranges;
      }
      ++report.passes;
      if (finding) {
        fill(report, *finding);
        return report;
      }
      if (range.size() == 0) break;
    }
  }
  report.message = "OK";
  return report;
}

// Limits of the modes and options that fit the schedule; throws VerifyRequestError.
void check_request(const ScheduleInfo& info, const VerifyOptions& options) {
  if (options.mode == VerifyMode::exact && !exact_mode_fits(info)) {
    throw VerifyRequestError("exact mode tracks every contribution of ranks x slots = " +
                             std::to_string(slot_states(info)) + " slot states, more than " +
                             std::to_string(kExactSlotLimit) + "; use fingerprint mode");
  }
  if (options.mode == VerifyMode::fingerprint && options.commutative &&
      info.ranks > SumFingerprintContent::kMaxRanks) {
    throw VerifyRequestError("fingerprint mode counts contributions in 24 bits: at most " +
                             std::to_string(SumFingerprintContent::kMaxRanks) + " ranks (got " +
                             std::to_string(info.ranks) + ")");
  }
  if (options.adjacency_torus.empty()) return;
  long long product = 1;
  for (int size : options.adjacency_torus) {
    if (size < 1)
      throw VerifyRequestError("adjacency torus sizes must be >= 1 (got " + std::to_string(size) +
                               ")");
    product = std::min<long long>(product * size, 1LL << 40);
  }
  if (product != info.ranks) {
    throw VerifyRequestError("the adjacency torus holds " + std::to_string(product) +
                             " ranks but the schedule has " + std::to_string(info.ranks) +
                             "; accepted: sizes whose product is the rank count");
  }
}

}  // namespace

std::string_view violation_name(Violation v) {
  switch (v) {
    case Violation::none: return "none";
    case Violation::malformed: return "malformed operation";
    case Violation::ports_exceeded: return "ports exceeded";
    case Violation::not_adjacent: return "peer not adjacent";
    case Violation::block_mismatch: return "block set mismatch";
    case Violation::unmatched: return "unmatched operation";
    case Violation::read_undefined: return "read of unwritten block";
    case Violation::write_conflict: return "write conflict";
    case Violation::wrong_result: return "wrong result";
    case Violation::lane_conflict: return "lane conflict";
  }
  return "?";
}

std::uint64_t slot_states(const ScheduleInfo& info) {
  return static_cast<std::uint64_t>(info.ranks) * static_cast<std::uint64_t>(info.total_slots());
}

bool exact_mode_fits(const ScheduleInfo& info) {
  return !is_reduction(info.collective) || slot_states(info) <= kExactSlotLimit;
}

VerifyReport verify(const Schedule& schedule, const VerifyOptions& options) {
  const auto& info = schedule.info();
  if (auto problem = info_problem(info)) {
    VerifyReport report;
    report.ok = false;
    report.violation = Violation::malformed;
    report.message = std::string(violation_name(Violation::malformed)) + ": " + *problem;
    return report;
  }
  check_request(info, options);
  const auto slots = static_cast<BlockIndex>(info.total_slots());
  const std::vector<BlockRange> every = {{0, slots}};
  if (options.mode == VerifyMode::exact) {
    ExactContent content(info.ranks, options.commutative);
    return run_windows(schedule, options, content, sizeof(ExactContent::Value), false, every);
  }
  // One block per orbit of a proven translation group stands for its orbit; the pass still
  // runs every rank's steps, so matching, ports and deadlocks are checked everywhere.
  const auto symmetry = detail::symmetry_for(schedule, options);
  const auto& checked = symmetry.group ? symmetry.checked : every;
  // The group where it was proven for every rank (the lane order is then checked at one rank
  // per orbit, engine.hpp).
  const detail::TranslationGroup* proven =
      symmetry.group && symmetry.proven ? &*symmetry.group : nullptr;
  VerifyReport report;
  if (options.commutative) {
    SumFingerprintContent content(info.ranks, options.seed);
    report = run_windows(schedule, options, content, sizeof(SumFingerprint), true, checked, proven);
  } else {
    OrderedFingerprintContent content(info.ranks, options.seed);
    report =
        run_windows(schedule, options, content, sizeof(OrderedFingerprint), true, checked, proven);
  }
  report.symmetry = symmetry.description;
  if (symmetry.group) report.symmetry_order = symmetry.group->order();
  return report;
}

}  // namespace topocoll
