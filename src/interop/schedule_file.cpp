#include "interop/schedule_file.hpp"

#include "core/bounded_file.hpp"
#include "core/fnv1a.hpp"
#include "core/schedule_io.hpp"
#include "core/text.hpp"
#include "interop/msccl_xml.hpp"

namespace topocoll {

ScheduleFile read_schedule_file(const std::string& path) {
  const std::string text = read_bounded_file(path, "schedule file", kMaxScheduleFileBytes);
  ScheduleFile out;
  out.content_hash = fnv1a(text);
  // A UTF-8 byte order mark may come before either format.
  const std::size_t bom = text.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  const auto first = text.find_first_not_of(" \t\r\n", bom);
  out.msccl = first != std::string::npos && text[first] == '<';
  try {
    if (out.msccl) {
      MscclImport imported = import_msccl_xml(text);
      out.schedule = std::move(imported.schedule);
      out.notes = std::move(imported.notes);
    } else {
      out.schedule = schedule_from_json(bom ? text.substr(bom) : text);
    }
  } catch (const ScheduleFormatError& e) {
    throw ScheduleFormatError("schedule file '" + printable(path) + "': " + e.what());
  }
  return out;
}

}  // namespace topocoll
