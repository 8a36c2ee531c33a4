// MSCCL XML export: every registry algorithm of allreduce, allgather, reduce-scatter and
// alltoall, exported and read back, verifies (docs/interchange.md, "MSCCL XML out").
#include <gtest/gtest.h>

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
  std::vector<std::string> failures;
};

void round_trip(const AlgorithmInfo& algo, Collective c, ScheduleRequest request, Tally& tally) {
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
  try {
    const std::string xml = schedule_to_msccl_xml(*schedule);
    const MscclImport back = import_msccl_xml(xml);
    const VerifyReport r = verify(*back.schedule);
    ++tally.exported;
    if (!r.ok) tally.failures.push_back(label + ": " + r.message);
  } catch (const std::exception& e) {
    tally.failures.push_back(label + ": " + e.what());
  }
}

void sweep(const std::vector<int>& ranks, const std::vector<std::vector<int>>& tori) {
  Tally tally;
  for (const AlgorithmInfo& algo : registry().all())
    for (Collective c : kExported) {
      if (!algo.supports(c)) continue;
      for (int p : ranks) round_trip(algo, c, {c, p, {}, 0, 0, true}, tally);
      for (const auto& dims : tori) {
        int p = 1;
        for (int d : dims) p *= d;
        round_trip(algo, c, {c, p, dims, 0, 0, true}, tally);
      }
    }
  EXPECT_GT(tally.exported, 0);
  std::printf("exported and verified %d schedules\n", tally.exported);
  for (const std::string& f : tally.failures) ADD_FAILURE() << f;
}

// A few sizes of each kind (odd, even, powers of 2 and 3, one torus): the sanitizer pass runs
// this one (make test-asan), the full sweep below only in the Release build.
TEST(InteropMscclRoundTrip, RepresentativeSizes) { sweep({2, 3, 4, 5, 8, 9}, {{2, 3}}); }

// P = 2..16 and small tori: 964 schedules, about 3 s on the 2-core machine.
TEST(InteropMscclRoundTrip, EveryAlgorithmP2To16) {
  std::vector<int> ranks;
  for (int p = 2; p <= 16; ++p) ranks.push_back(p);
  sweep(ranks, {{2, 2}, {2, 3}, {3, 3}, {2, 4}, {4, 4}, {2, 2, 2}});
}

TEST(InteropMscclRoundTrip, RejectsOtherCollectives) {
  const SchedulePtr s =
      registry().build("binomial-doubling", {Collective::bcast, 4, {}, 0, 0, true});
  EXPECT_THROW((void)schedule_to_msccl_xml(*s), ScheduleFormatError);
}

}  // namespace
}  // namespace topocoll
