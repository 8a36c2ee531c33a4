// The rotating sample of the sweeps (sweep_sample.hpp, tests/README.md).
#include "support/sweep_sample.hpp"

#include <gtest/gtest.h>

#include <string>

namespace topocoll::sweep {
namespace {

// Over 4,000 commits' keys an instance is picked about once in eight, and two names that
// differ in one digit ('0' and '8': bit 3 alone) are picked independently, about once in 64
// keys; the low bits of the hash picked them together at every key.
TEST(SweepSample, PicksOneInShareAndNamesIndependently) {
  int picked = 0;
  int together = 0;
  for (int k = 0; k < 4000; ++k) {
    const SampleSetting setting{8, "commit" + std::to_string(k)};
    const bool first = picks(setting, "ring allreduce P=10");
    const bool second = picks(setting, "ring allreduce P=18");
    picked += first ? 1 : 0;
    together += first && second ? 1 : 0;
  }
  EXPECT_NEAR(picked, 500, 100);
  EXPECT_LT(together, 150);
}

TEST(SweepSample, WithoutAShareEveryInstanceRuns) {
  EXPECT_TRUE(picks(SampleSetting{}, "anything"));
  EXPECT_TRUE(picks(SampleSetting{1, "key"}, "anything"));
}

}  // namespace
}  // namespace topocoll::sweep
