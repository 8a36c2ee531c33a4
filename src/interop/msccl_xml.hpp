#pragma once
// MSCCL XML (the algorithm files of msccl-tools, TACCL and others, run by msccl-executor-nccl
// and RCCL): the document as read, its import into a topocoll schedule, and the export of a
// schedule (docs/interchange.md, "MSCCL XML").
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/schedule.hpp"

namespace topocoll {

struct MscclStep {
  int s = 0;          // position in the threadblock (strictly increasing)
  std::string type;   // s, r, rcs, rrc, rrs, rrcs, cpy, re, nop
  char srcbuf = 'i';  // i (input), o (output), s (scratch)
  char dstbuf = 'i';
  std::int64_t srcoff = -1;
  std::int64_t dstoff = -1;
  std::int64_t cnt = 0;
  int depid = -1;  // threadblock this step waits for (-1: none)
  int deps = -1;   // the step `s` of that threadblock it waits for
  bool hasdep = false;
  int line = 0;  // line in the file, for messages
};

struct MscclThreadblock {
  int id = 0;
  int send = -1;  // peer this threadblock sends to (-1: none)
  int recv = -1;  // peer it receives from
  int chan = 0;
  std::vector<MscclStep> steps;
  int line = 0;
};

struct MscclGpu {
  int id = 0;
  std::int64_t i_chunks = 0;
  std::int64_t o_chunks = 0;
  std::int64_t s_chunks = 0;
  std::vector<MscclThreadblock> tbs;
  int line = 0;
};

struct MscclAlgo {
  std::string name;
  std::string proto;
  std::string coll;
  int ngpus = 0;
  int nchannels = -1;                // -1: attribute absent
  std::int64_t nchunksperloop = -1;  // -1: absent
  bool inplace = false;
  std::int64_t min_bytes = -1;  // -1: absent
  std::int64_t max_bytes = -1;
  std::vector<MscclGpu> gpus;
};

// Limits of what the reader accepts (a larger file is an input error, not a crash).
inline constexpr int kMscclMaxGpus = 4096;
inline constexpr std::int64_t kMscclMaxChunks = std::int64_t{1} << 24;

// Parses the XML; throws ScheduleFormatError (one line naming the place) for anything that is
// not a well-formed MSCCL algorithm document.
[[nodiscard]] MscclAlgo parse_msccl_xml(std::string_view text);

struct MscclImport {
  std::unique_ptr<ExplicitSchedule> schedule;
  // What would make msccl-executor-nccl fall back silently to NCCL's own algorithm, one
  // sentence each (ranks, chunk divisibility, in-place, byte range, declared sizes).
  std::vector<std::string> notes;
};

// The topocoll schedule that does what the algorithm does (lanes: one per threadblock, then
// one receive lane per threadblock that receives). Throws ScheduleFormatError for an
// algorithm that cannot be executed as written (peer or offset out of range, unknown type,
// dependency on a step that does not exist).
[[nodiscard]] MscclImport import_msccl(const MscclAlgo& algo);
[[nodiscard]] MscclImport import_msccl_xml(std::string_view text);

// msccl-executor-nccl's channel limit (MAXCHANNELS of NCCL): a file asking for more channels
// is refused by the executor at load time.
inline constexpr int kMscclMaxChannels = 32;

struct MscclExportOptions {
  std::string proto = "Simple";  // Simple, LL, LL128: the executor's protocol (speed, not order)
  std::string name;              // default: the schedule's algorithm
  // Channels of one instance (0: one per port, as many as the schedule uses). More than the
  // schedule's ports spreads each port's connections over nchannels / ports channels.
  int nchannels = 0;
  // Copies of the algorithm, each on its own channels and 1/instances of every chunk
  // (msccl-tools' interleaved replication): chunk counts and nchannels scale by instances.
  int instances = 1;
  // false: the reduction operator does not commute. MSCCL XML cannot state the order in which
  // a reduction's operands combine (the executor reduces in arrival order), so the export of
  // a reducing schedule is refused.
  bool commutative = true;
  // Export although the estimate (estimate_msccl_export) is beyond the limits.
  bool force = false;
};

// What an export will cost, from a walk over the schedule's operations (no XML written):
// the XML steps it writes, the chunk visits of its dependency tracking, its output and the
// memory it holds (every rank's steps until the document is written, then the document).
struct MscclExportEstimate {
  std::uint64_t rank_steps = 0;
  std::uint64_t xml_steps = 0;
  std::uint64_t chunk_visits = 0;
  std::uint64_t output_bytes = 0;
  std::uint64_t memory_bytes = 0;
  double seconds = 0;
};
// Limits of an export without `force`: the time a person waits at the keyboard, and a share
// of the machine's physical memory.
inline constexpr double kMscclExportMaxSeconds = 600;
inline constexpr double kMscclExportMemoryShare = 0.5;

[[nodiscard]] MscclExportEstimate estimate_msccl_export(const Schedule& schedule,
                                                        const MscclExportOptions& options = {});
// Throws ScheduleFormatError naming the figures when `estimate` is beyond the limits.
void refuse_beyond_limits(const MscclExportEstimate& estimate);

// The schedule as an MSCCL XML algorithm (allreduce, allgather, reduce-scatter, alltoall).
// Throws ScheduleFormatError for another collective, options out of range, a name XML 1.0
// cannot carry, a non-commutative reduction, or (without options.force) an estimate beyond
// the limits (one line naming the figures and the accepted values).
[[nodiscard]] std::string schedule_to_msccl_xml(const Schedule& schedule,
                                                const MscclExportOptions& options = {});

}  // namespace topocoll
