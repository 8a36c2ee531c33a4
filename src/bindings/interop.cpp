// Interchange formats (src/interop): MSCCL XML in and out.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include "bindings/bindings.hpp"
#include "interop/msccl_xml.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace topocoll::bindings {

void bind_interop(nb::module_& m) {
  m.def(
      "load_msccl_xml",
      [](const std::string& text) {
        MscclImport imported = import_msccl_xml(text);
        return std::make_pair(SchedulePtr(std::move(imported.schedule)), imported.notes);
      },
      "text"_a, "An MSCCL XML algorithm as a schedule, and what would make the executor fall back");
  m.def(
      "to_msccl_xml",
      [](const Schedule& s, const std::string& proto, const std::string& name, int nchannels,
         int instances) {
        return schedule_to_msccl_xml(s, {proto, name, nchannels, instances});
      },
      "schedule"_a, "proto"_a = "Simple", "name"_a = "", "nchannels"_a = 0, "instances"_a = 1,
      "The schedule as MSCCL XML; nchannels 0: one channel per port");
}

}  // namespace topocoll::bindings
