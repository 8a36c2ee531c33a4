// The cost of an MSCCL XML export before it runs (msccl_xml.hpp, estimate_msccl_export): the
// export builds every rank's threadblock steps in memory, tracks each chunk's last writer and
// readers, and writes the document as one string; ring allreduce at 1024 ranks writes 4.2
// million steps. The counts follow msccl_export.cpp's rules (a send or receive is one step per
// contiguous run, one per chunk when positions move or with instances; a copy is two steps per
// run, staged through scratch); the rates turn them into seconds and bytes. (Before one walk
// served every rank, each rank materialized the whole schedule: ring at P = 1024 took 422 s.)
#include <unistd.h>

#include <algorithm>

#include "core/bounded_file.hpp"
#include "core/schedule_io.hpp"
#include "interop/msccl_xml.hpp"

namespace topocoll {
namespace {

// Timed on the development machine (2 shared cores, a build running beside), schedule_to_msccl_xml
// of ring allreduce at P = 64, 128, 256, 512 (8 to 12 us per XML step, 8.5 s and 371 MB peak
// for 1.05 million steps at P = 512) and swing-bw at P = 256 (0.53 s for 30,720 steps and
// 522,240 chunk visits), rounded up: seconds per XML step written (dependency tracking and
// formatting), per chunk visit, and per rank-step walked by this estimate.
constexpr double kSecondsPerXmlStep = 1e-5;
constexpr double kSecondsPerChunkVisit = 5e-7;
constexpr double kSecondsPerRankStep = 1e-6;
// Bytes of one step held until the document is written (XmlStep and its vector's slack), and
// of one written step element; the document is held twice (the stream and its string) and
// the caller's copy once more.
constexpr std::uint64_t kBytesPerHeldStep = 160;
constexpr std::uint64_t kBytesPerWrittenStep = 120;
constexpr std::uint64_t kDocumentCopies = 3;

std::uint64_t physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0
             ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page)
             : std::uint64_t{0};
}

std::uint64_t runs(const BlockSet& set, bool single) {
  return single ? set.block_count() : std::max<std::uint64_t>(set.ranges().size(), 1);
}

void count_step(const Step& step, bool keeps, bool single_user, MscclExportEstimate& e) {
  for (const Operation& op : step.ops) {
    const std::uint64_t chunks = op.blocks.block_count();
    if (op.kind == OpKind::send || op.kind == OpKind::recv) {
      e.xml_steps += runs(op.blocks, !keeps || single_user);
      e.chunk_visits += chunks;
    } else {
      e.xml_steps += 2 * std::max(runs(op.source, single_user), runs(op.blocks, single_user));
      e.chunk_visits += 4 * chunks;
    }
  }
}

std::string seconds_text(double seconds) {
  return seconds < 120 ? std::to_string(static_cast<long long>(seconds + 0.5)) + " s"
                       : std::to_string(static_cast<long long>(seconds / 60 + 0.5)) + " min";
}

}  // namespace

MscclExportEstimate estimate_msccl_export(const Schedule& schedule,
                                          const MscclExportOptions& options) {
  const ScheduleInfo& info = schedule.info();
  MscclExportEstimate e;
  for (int r = 0; r < info.ranks; ++r) e.rank_steps += schedule.lane_steps_total(r);
  const auto walk_seconds = static_cast<double>(e.rank_steps) * kSecondsPerRankStep;
  e.seconds = walk_seconds;
  // A walk beyond the limit is not made to find that the export is beyond it too.
  if (walk_seconds <= kMscclExportMaxSeconds) {
    const bool single_user = options.instances > 1;
    for (int r = 0; r < info.ranks; ++r)
      for (int k = 0; k < schedule.step_count(r); ++k) {
        Step step;
        schedule.build_step(r, k, step);
        count_step(step, info.keeps_positions, single_user, e);
      }
    const auto instances = static_cast<std::uint64_t>(std::max(options.instances, 1));
    e.seconds += static_cast<double>(e.xml_steps) * kSecondsPerXmlStep +
                 static_cast<double>(e.chunk_visits) * kSecondsPerChunkVisit;
    e.output_bytes = e.xml_steps * instances * kBytesPerWrittenStep;
    e.memory_bytes = e.xml_steps * kBytesPerHeldStep + kDocumentCopies * e.output_bytes;
  }
  return e;
}

void refuse_beyond_limits(const MscclExportEstimate& e) {
  const auto memory =
      static_cast<std::uint64_t>(static_cast<double>(physical_memory()) * kMscclExportMemoryShare);
  const bool too_long = e.seconds > kMscclExportMaxSeconds;
  const bool too_large = memory > 0 && e.memory_bytes > memory;
  if (!too_long && !too_large) return;
  std::string figures = std::to_string(e.rank_steps) + " rank-steps";
  if (e.xml_steps > 0)
    figures += ", " + std::to_string(e.xml_steps) + " XML steps, about " +
               describe_bytes(e.output_bytes) + " of output and " + describe_bytes(e.memory_bytes) +
               " of memory";
  throw ScheduleFormatError("MSCCL XML export: estimated " + figures + ", about " +
                            seconds_text(e.seconds) + (e.xml_steps == 0 ? " or more" : "") +
                            "; accepted: at most " + seconds_text(kMscclExportMaxSeconds) +
                            " and " + describe_bytes(memory) +
                            " (half this machine's memory); export a smaller instance or force it");
}

}  // namespace topocoll
