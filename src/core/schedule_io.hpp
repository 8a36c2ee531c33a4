#pragma once
// Schedule exchange formats: JSON (documented in docs/schedule-format.md; round-trips through
// `topocoll verify --schedule`) and a human-readable text listing.
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
[[nodiscard]] std::string schedule_to_text(const Schedule& schedule);

}  // namespace topocoll
