#pragma once
// A schedule file in either format the project reads (a topocoll JSON schedule or an MSCCL
// XML algorithm, told apart by the first character that is not white space), read with the
// core's reader policy (core/bounded_file.hpp); every error names the file.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/schedule.hpp"

namespace topocoll {

struct ScheduleFile {
  std::unique_ptr<ExplicitSchedule> schedule;
  // MSCCL XML: what would make msccl-executor-nccl fall back (empty for JSON).
  std::vector<std::string> notes;
  bool msccl = false;  // the file is MSCCL XML: it cannot state a reduction's operand order
  std::uint64_t content_hash = 0;  // FNV-1a of the file's bytes
};

// Throws UnsupportedRequest (the file cannot be read: missing, not a regular file, too large)
// or ScheduleFormatError (its content is not a schedule), the message naming the file.
[[nodiscard]] ScheduleFile read_schedule_file(const std::string& path);

}  // namespace topocoll
