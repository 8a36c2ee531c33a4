#include "schedule_file.hpp"

#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "core/schedule_io.hpp"
#include "core/verifier/verifier.hpp"
#include "interop/msccl_xml.hpp"

namespace topocoll::mpi {
namespace {

struct LoadedFile {
  std::shared_ptr<const Schedule> schedule;
  std::string error;  // why it cannot run, when schedule is null
};

constexpr std::size_t kMaxFileBytes = std::size_t{1} << 30;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().size() > kMaxFileBytes) throw std::invalid_argument("is larger than 1 GiB");
  return text.str();
}

std::shared_ptr<const Schedule> parse(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '<')
    return std::shared_ptr<const Schedule>(import_msccl_xml(text).schedule.release());
  return std::shared_ptr<const Schedule>(schedule_from_json(text).release());
}

// Read, parse and verify: a file that is not a correct schedule must never run.
LoadedFile load(const std::string& algorithm) {
  const std::string path = algorithm.substr(kFilePrefix.size());
  LoadedFile out;
  try {
    auto schedule = parse(read_text(path));
    VerifyOptions options;
    options.mode = VerifyMode::fingerprint;
    options.threads = 1;
    const VerifyReport report = verify(*schedule, options);
    if (!report.ok) {
      out.error = algorithm + " is not a correct schedule: " + report.message;
      return out;
    }
    out.schedule = std::move(schedule);
  } catch (const std::exception& e) {
    out.error = algorithm + ": " + e.what() + "; accepted: a topocoll JSON schedule or an MSCCL " +
                "XML algorithm (docs/interchange.md)";
  }
  return out;
}

const LoadedFile& loaded(const std::string& algorithm) {
  static std::mutex mutex;
  static std::map<std::string, LoadedFile> files;
  std::lock_guard lock(mutex);
  auto it = files.find(algorithm);
  if (it == files.end()) it = files.emplace(algorithm, load(algorithm)).first;
  return it->second;
}

}  // namespace

std::shared_ptr<const Schedule> file_schedule(const std::string& algorithm) {
  return loaded(algorithm).schedule;
}

std::optional<std::string> file_rejection(const std::string& algorithm,
                                          const ScheduleRequest& request) {
  const LoadedFile& file = loaded(algorithm);
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
