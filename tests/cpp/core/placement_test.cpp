// The placement a schedule carries (ScheduleInfo::placement): which node of the algorithm's shape
// each rank runs on. It travels through the JSON format, and the verifier's adjacency check
// compares nodes, not rank numbers.
#include <gtest/gtest.h>

#include <string>

#include "core/registry.hpp"
#include "core/schedule_io.hpp"
#include "core/verifier/verifier.hpp"

namespace topocoll {
namespace {

SchedulePtr cube_schedule(const std::string& name, int d) {
  ScheduleRequest request;
  request.collective = Collective::allreduce;
  request.ranks = 1 << d;
  request.dims.assign(static_cast<std::size_t>(d), 2);
  return registry().build(name, request);
}

TEST(Placement, IdentityIsEmptyAndStaysOutOfTheJson) {
  auto schedule = cube_schedule("hamiltonian-cycle", 3);
  EXPECT_TRUE(schedule->info().placement.empty());
  EXPECT_EQ(schedule->info().node_of(5), 5);
  EXPECT_EQ(schedule_to_json(*schedule).find("placement"), std::string::npos);
}

TEST(Placement, RoundTripsThroughJsonAndKeepsPeersAdjacent) {
  auto schedule = cube_schedule("hamiltonian-d-cycles-gray", 4);
  ASSERT_EQ(schedule->info().placement.size(), 16u);
  EXPECT_EQ(schedule->info().node_of(2), 3);  // G(2) = 3
  const auto parsed = schedule_from_json(schedule_to_json(*schedule));
  EXPECT_EQ(parsed->info().placement, schedule->info().placement);
  VerifyOptions options;
  options.adjacency_torus = {2, 2, 2, 2};
  const auto report = verify(*parsed, options);
  EXPECT_TRUE(report.ok) << report.message;
}

TEST(Placement, JsonRejectsWhatIsNotAPermutation) {
  auto schedule = cube_schedule("hamiltonian-cycle-gray", 2);
  std::string text = schedule_to_json(*schedule);
  const std::string good = "\"placement\":[0,1,3,2]";
  const auto at = text.find(good);
  ASSERT_NE(at, std::string::npos) << text;
  for (const char* bad : {"\"placement\":[0,1,3]", "\"placement\":[0,1,1,2]",
                          "\"placement\":[0,1,3,4]", "\"placement\":7"}) {
    std::string broken = text;
    broken.replace(at, good.size(), bad);
    EXPECT_THROW((void)schedule_from_json(broken), ScheduleFormatError) << bad;
  }
}

}  // namespace
}  // namespace topocoll
