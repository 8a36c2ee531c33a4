// MSCCL XML export: every registry algorithm of allreduce, allgather, reduce-scatter and
// alltoall, exported and read back, verifies (docs/interchange.md, "MSCCL XML out").
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "core/registry.hpp"
#include "core/schedule_io.hpp"
#include "core/verifier/verifier.hpp"
#include "interop/msccl_xml.hpp"

namespace topocoll {
namespace {

constexpr Collective kExported[] = {Collective::allreduce, Collective::allgather,
                                    Collective::reduce_scatter, Collective::alltoall};

struct Tally {
  int exported = 0;
  int refused = 0;  // over the executor's channels with these options, and said so
  std::vector<std::string> failures;
};

// A schedule with many ports (the fold variants run 8 slices of a torus schedule) may fit the
// executor's 32 channels with one instance but not with several: the export must then refuse
// with its own message, and still export with the default options.
bool needs_more_channels_than_the_executor(const Schedule& schedule, const MscclExportOptions& o) {
  if (o.instances <= 1 && o.nchannels == 0) return false;
  try {
    (void)schedule_to_msccl_xml(schedule, o);
    return false;
  } catch (const ScheduleFormatError& e) {
    const std::string what = e.what();
    if (what.find("more than the executor's 32") == std::string::npos) return false;
    (void)schedule_to_msccl_xml(schedule);  // throws, and fails the sweep, if even one does not fit
    return true;
  }
}

void round_trip(const AlgorithmInfo& algo, Collective c, ScheduleRequest request, Tally& tally,
                const MscclExportOptions& options) {
  request.collective = c;
  if (Registry::rejection(algo, request)) return;
  SchedulePtr schedule;
  try {
    schedule = registry().build(algo.name, request);
  } catch (const UnsupportedRequest&) {
    return;
  }
  const std::string label = algo.name + " " + std::string(collective_name(c)) +
                            " P=" + std::to_string(request.ranks) +
                            (request.dims.size() > 1 ? " torus" : "");
  MscclExportOptions o = options;
  if (o.nchannels < 0) o.nchannels = -o.nchannels * std::max(1, schedule->info().ports);
  if (needs_more_channels_than_the_executor(*schedule, o)) {
    ++tally.refused;
    return;
  }
  try {
    const std::string xml = schedule_to_msccl_xml(*schedule, o);
    const MscclImport back = import_msccl_xml(xml);
    const VerifyReport r = verify(*back.schedule);
    ++tally.exported;
    if (!r.ok) tally.failures.push_back(label + ": " + r.message);
  } catch (const std::exception& e) {
    tally.failures.push_back(label + ": " + e.what());
  }
}

// nchannels < 0 in `options`: that many channels per port of each schedule.
void sweep(const std::vector<int>& ranks, const std::vector<std::vector<int>>& tori,
           const MscclExportOptions& options = {}) {
  Tally tally;
  for (const AlgorithmInfo& algo : registry().all())
    for (Collective c : kExported) {
      if (!algo.supports(c)) continue;
      for (int p : ranks) round_trip(algo, c, {c, p, {}, 0, 0, true}, tally, options);
      for (const auto& dims : tori) {
        int p = 1;
        for (int d : dims) p *= d;
        round_trip(algo, c, {c, p, dims, 0, 0, true}, tally, options);
      }
    }
  EXPECT_GT(tally.exported, 0);
  std::printf(
      "exported and verified %d schedules (%d refused: over 32 channels with these options)\n",
      tally.exported, tally.refused);
  for (const std::string& f : tally.failures) ADD_FAILURE() << f;
}

// A few sizes of each kind (odd, even, powers of 2 and 3, one torus): the sanitizer pass runs
// this one (make test-asan), the full sweep below only in the Release build.
TEST(InteropMscclRoundTrip, RepresentativeSizes) { sweep({2, 3, 4, 5, 8, 9}, {{2, 3}}); }

// P = 2..16 and small tori: 964 schedules, about 3 s on the 2-core machine.
TEST(InteropMscclRoundTripSlow, EveryAlgorithmP2To16) {
  std::vector<int> ranks;
  for (int p = 2; p <= 16; ++p) ranks.push_back(p);
  sweep(ranks, {{2, 2}, {2, 3}, {3, 3}, {2, 4}, {4, 4}, {2, 2, 2}});
}

// The export options: instances (chunks split and threadblocks replicated on channels of
// their own), connections spread over several channels per port, and the other protocols.
TEST(InteropMscclRoundTrip, InstancesChannelsAndProtocols) {
  sweep({2, 3, 4, 5, 8}, {{2, 3}}, {"LL", "", 0, 2});
  sweep({3, 4, 6}, {{2, 2}}, {"LL128", "", -2, 3});
  sweep({4, 5}, {}, {"Simple", "", -3, 1});
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(InteropMscclRoundTrip, InstancesScaleChunksThreadblocksAndChannels) {
  const SchedulePtr s = registry().build("ring", {Collective::allgather, 4, {}, 0, 0, true});
  const std::string one = schedule_to_msccl_xml(*s);
  const std::string three = schedule_to_msccl_xml(*s, {"LL128", "", 2, 3});
  EXPECT_NE(one.find("proto=\"Simple\" nchannels=\"1\" nchunksperloop=\"4\""), std::string::npos);
  EXPECT_NE(three.find("proto=\"LL128\" nchannels=\"6\" nchunksperloop=\"12\""), std::string::npos);
  EXPECT_EQ(count(three, "<tb "), 3 * count(one, "<tb "));
  EXPECT_NE(three.find("o_chunks=\"12\""), std::string::npos);
  for (int chan = 0; chan < 6; ++chan)
    EXPECT_GT(count(three, "chan=\"" + std::to_string(chan) + "\""), 0) << chan;
  const MscclImport back = import_msccl_xml(three);
  EXPECT_EQ(back.schedule->info().blocks, 12);
  EXPECT_TRUE(verify(*back.schedule).ok);
}

TEST(InteropMscclRoundTrip, RejectsOptionsOutOfRange) {
  const SchedulePtr s = registry().build("ring", {Collective::allreduce, 4, {}, 0, 0, true});
  for (const MscclExportOptions& o :
       {MscclExportOptions{"LL64", "", 0, 1}, MscclExportOptions{"Simple", "", 33, 1},
        MscclExportOptions{"Simple", "", 0, 0}, MscclExportOptions{"Simple", "", 0, 33},
        MscclExportOptions{"Simple", "", 8, 5}})
    EXPECT_THROW((void)schedule_to_msccl_xml(*s, o), ScheduleFormatError) << o.proto;
  try {
    (void)schedule_to_msccl_xml(*s, {"Simple", "", 8, 5});
  } catch (const ScheduleFormatError& e) {
    EXPECT_NE(std::string(e.what()).find("accepted: instances 1..4 with 8 channels each"),
              std::string::npos)
        << e.what();
  }
}

TEST(InteropMscclRoundTrip, RejectsSchedulesNeedingMoreThan32Channels) {
  // A two-rank allgather whose one exchange uses port 39: 40 channels, one per port.
  const auto s = schedule_from_json(
      R"({"algorithm":"p40","blocks":2,"collective":"allgather","dims":[2],)"
      R"("format":"topocoll-schedule","keeps_positions":true,"ports":40,"ranks":2,"root":0,)"
      R"("slots":2,"steps":[[[{"blocks":[[0,1]],"op":"send","peer":1,"port":39},)"
      R"({"blocks":[[1,2]],"combine":"copy","op":"recv","peer":1,"port":39}]],)"
      R"([[{"blocks":[[1,2]],"op":"send","peer":0,"port":39},)"
      R"({"blocks":[[0,1]],"combine":"copy","op":"recv","peer":0,"port":39}]]],"version":1})");
  try {
    (void)schedule_to_msccl_xml(*s);
    ADD_FAILURE() << "exported a schedule of 40 channels";
  } catch (const ScheduleFormatError& e) {
    EXPECT_NE(std::string(e.what()).find("needs 40 channels (one per port)"), std::string::npos)
        << e.what();
  }
}

TEST(InteropMscclRoundTrip, RejectsOtherCollectives) {
  const SchedulePtr s =
      registry().build("binomial-doubling", {Collective::bcast, 4, {}, 0, 0, true});
  EXPECT_THROW((void)schedule_to_msccl_xml(*s), ScheduleFormatError);
}

}  // namespace
}  // namespace topocoll
