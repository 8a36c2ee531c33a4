#pragma once
// Schedule exchange formats: JSON (documented in docs/schedule-format.md; round-trips through
// `topocoll verify --schedule`) and a human-readable text listing.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/schedule.hpp"

namespace topocoll {

// A schedule file that cannot be read; the message names the place and the accepted values.
class ScheduleFormatError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

[[nodiscard]] std::string schedule_to_json(const Schedule& schedule, int indent = -1);
[[nodiscard]] std::unique_ptr<ExplicitSchedule> schedule_from_json(const std::string& text);
// The largest schedule file read (JSON or MSCCL XML): parsing takes about ten times the
// file's size in memory.
inline constexpr std::uint64_t kMaxScheduleFileBytes = std::uint64_t{1} << 30;
// A JSON schedule file, read with the reader policy (core/bounded_file.hpp); errors name it.
[[nodiscard]] std::unique_ptr<ExplicitSchedule> schedule_from_json_file(const std::string& path);
[[nodiscard]] std::string schedule_to_text(const Schedule& schedule);

}  // namespace topocoll
