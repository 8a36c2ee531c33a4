// Interchange formats (src/interop): schedule files read with the core's reader policy, MSCCL XML
// in and out, and the estimate of an MSCCL export.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <tuple>

#include "bindings/bindings.hpp"
#include "core/schedule_io.hpp"
#include "interop/msccl_xml.hpp"
#include "interop/schedule_file.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace topocoll::bindings {
namespace {

MscclExportOptions export_options(const std::string& proto, const std::string& name, int nchannels,
                                  int instances, bool commutative, bool force) {
  return {proto, name, nchannels, instances, commutative, force};
}

}  // namespace

void bind_interop(nb::module_& m) {
  m.def(
      "read_schedule_file",
      // The path as bytes (os.fsencode): a file name need not be UTF-8.
      [](const nb::bytes& path) {
        ScheduleFile file;
        {
          nb::gil_scoped_release release;
          file = read_schedule_file(std::string(path.c_str(), path.size()));
        }
        return std::make_tuple(SchedulePtr(std::move(file.schedule)), file.notes, file.msccl);
      },
      "path"_a,
      "A JSON schedule or MSCCL XML file read with the core's reader policy (regular files "
      "only, at most 1 GiB read): (schedule, MSCCL fallback notes, whether it is MSCCL XML)");
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
         int instances, bool commutative, bool force) {
        return schedule_to_msccl_xml(
            s, export_options(proto, name, nchannels, instances, commutative, force));
      },
      "schedule"_a, "proto"_a = "Simple", "name"_a = "", "nchannels"_a = 0, "instances"_a = 1,
      "commutative"_a = true, "force"_a = false,
      "The schedule as MSCCL XML; nchannels 0: one channel per port. Refused (ValueError) for a "
      "non-commutative reduction, and beyond the export's limits unless force");
  m.def(
      "estimate_msccl_export",
      [](const Schedule& s, int instances) {
        MscclExportOptions options;
        options.instances = instances;
        const MscclExportEstimate e = estimate_msccl_export(s, options);
        nb::dict d;
        d["rank_steps"] = e.rank_steps;
        d["xml_steps"] = e.xml_steps;
        d["chunk_visits"] = e.chunk_visits;
        d["output_bytes"] = e.output_bytes;
        d["memory_bytes"] = e.memory_bytes;
        d["seconds"] = e.seconds;
        return d;
      },
      "schedule"_a, "instances"_a = 1,
      "What an MSCCL XML export will cost (no XML written): steps, output and memory bytes, "
      "seconds");
  m.attr("MSCCL_EXPORT_MAX_SECONDS") = kMscclExportMaxSeconds;
  m.attr("MSCCL_EXPORT_MEMORY_SHARE") = kMscclExportMemoryShare;
  m.attr("SCHEDULE_FILE_LIMIT") = kMaxScheduleFileBytes;
}

}  // namespace topocoll::bindings
