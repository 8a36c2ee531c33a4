#include "schedule_file.hpp"

#include <map>
#include <mutex>

#include "core/bounded_file.hpp"
#include "core/verifier/estimate.hpp"
#include "core/verifier/verifier.hpp"
#include "interop/schedule_file.hpp"

namespace topocoll::mpi {
namespace {

struct LoadedFile {
  std::shared_ptr<const Schedule> schedule;
  std::string error;               // why it cannot run, when schedule is null
  std::uint64_t content_hash = 0;  // of the bytes the schedule was read from
};

// The verifier's work rate (python/topocoll/limits.py, WORK_PER_SECOND: abstract work units
// of core/verifier/estimate.hpp per second, measured on the development machine), and the
// longest verification a process start may take before the file is refused: every rank
// verifies the file on its first call, while the job waits.
constexpr std::uint64_t kVerifyWorkPerSecond = 3'000'000;
constexpr std::uint64_t kMaxVerifySeconds = 60;

VerifyOptions verify_options() {
  VerifyOptions options;
  options.mode = VerifyMode::fingerprint;
  options.threads = 1;
  return options;
}

// Why verifying `schedule` would take more than the bounds, or empty.
std::string verification_too_large(const Schedule& schedule, std::uint64_t max_bytes) {
  VerifyOptions options = verify_options();
  // Block windows would trade memory for passes; the bound is on one run's state.
  options.memory_budget = max_bytes;
  const VerifyEstimate e =
      estimate_verify(schedule, options, kMaxVerifySeconds * kVerifyWorkPerSecond);
  const std::uint64_t seconds = e.work / kVerifyWorkPerSecond;
  if (e.memory_bytes <= max_bytes && seconds <= kMaxVerifySeconds) return {};
  return "verifying it needs about " + describe_bytes(e.memory_bytes) + " and " +
         std::to_string(seconds) + " s per rank (" + std::to_string(e.rank_steps) +
         " rank-steps, " + std::to_string(e.slot_states) + " slot states); accepted: at most " +
         describe_bytes(max_bytes) + " (TOPOCOLL_MAX_VERIFY_BYTES) and " +
         std::to_string(kMaxVerifySeconds) + " s";
}

// Read, parse and verify: a file that is not a correct schedule must never run, and one whose
// verification would exceed the bounds is refused before it starts.
LoadedFile load(const std::string& algorithm, std::uint64_t max_verify_bytes) {
  const std::string path = algorithm.substr(kFilePrefix.size());
  LoadedFile out;
  try {
    ScheduleFile file = read_schedule_file(path);
    if (const std::string why = verification_too_large(*file.schedule, max_verify_bytes);
        !why.empty()) {
      out.error = algorithm + ": " + why;
      return out;
    }
    const VerifyReport report = verify(*file.schedule, verify_options());
    if (!report.ok) {
      out.error = algorithm + " is not a correct schedule: " + report.message;
      return out;
    }
    out.schedule = std::move(file.schedule);
    out.content_hash = file.content_hash;
  } catch (const UnsupportedRequest& e) {  // the reader's line names the file and what it takes
    out.error = algorithm + ": " + e.what();
  } catch (const std::bad_alloc&) {
    out.error = algorithm + ": out of memory reading or verifying it";
  } catch (const std::exception& e) {
    out.error = algorithm + ": " + e.what() + "; accepted: a topocoll JSON schedule or an MSCCL " +
                "XML algorithm (docs/interchange.md)";
  }
  return out;
}

// Loaded once per process and path; again only when the verification bound changed.
struct Cached {
  std::uint64_t max_verify_bytes = 0;
  LoadedFile file;
};
std::mutex cache_mutex;
std::map<std::string, Cached> cache;

LoadedFile loaded(const std::string& algorithm, std::uint64_t max_verify_bytes) {
  std::lock_guard lock(cache_mutex);
  auto it = cache.find(algorithm);
  if (it == cache.end() || it->second.max_verify_bytes != max_verify_bytes)
    it = cache
             .insert_or_assign(algorithm,
                               Cached{max_verify_bytes, load(algorithm, max_verify_bytes)})
             .first;
  return it->second.file;
}

}  // namespace

std::shared_ptr<const Schedule> file_schedule(const std::string& algorithm) {
  std::lock_guard lock(cache_mutex);
  const auto it = cache.find(algorithm);
  return it == cache.end() ? nullptr : it->second.file.schedule;
}

std::uint64_t file_content_hash(const std::string& algorithm) {
  std::lock_guard lock(cache_mutex);
  const auto it = cache.find(algorithm);
  return it == cache.end() ? 0 : it->second.file.content_hash;
}

std::optional<std::string> file_rejection(const std::string& algorithm,
                                          const ScheduleRequest& request,
                                          std::uint64_t max_verify_bytes) {
  const LoadedFile file = loaded(algorithm, max_verify_bytes);
  if (!file.schedule) return file.error;
  const ScheduleInfo& info = file.schedule->info();
  const std::string call = std::string(collective_name(request.collective));
  if (info.collective != request.collective)
    return algorithm + " is a " + std::string(collective_name(info.collective)) +
           " schedule; accepted: a " + call + " schedule for this call";
  if (info.ranks != request.ranks)
    return algorithm + " is for " + std::to_string(info.ranks) +
           " ranks; accepted: the communicator size " + std::to_string(request.ranks);
  if (is_rooted(request.collective) && info.root != request.root)
    return algorithm + " has root " + std::to_string(info.root) + "; accepted: root " +
           std::to_string(request.root) + " (the call's)";
  if (!request.commutative)
    return algorithm +
           " may combine partial results in any order; accepted: a commutative "
           "operator";
  return std::nullopt;
}

}  // namespace topocoll::mpi
