// The analytic model (src/sim/analytic_network.cpp): messages sharing a link in a step share
// its bandwidth. The expected time is a closed form of the hand-built case.
#include <gtest/gtest.h>

#include "sim/simulate.hpp"
#include "support/converging_case.hpp"
#include "support/sim_test_support.hpp"

namespace topocoll::sim {
namespace {

using testing::config;
using testing::Converging;
using testing::linear;

constexpr double kBw = testing::kConvergingBw;

TEST(SimAnalyticModel, CountsTheMessagesSharingALinkInAStep) {
  Converging c(10 * kBw);
  const auto s = Converging::schedule();
  const double bytes = 1e6;
  const auto r = simulate(s, c.net, c.router, linear(3), config(Model::analytic, bytes));
  // Both messages cross L1 in step 0: each costs 2 x bytes x beta.
  EXPECT_DOUBLE_EQ(r.time_s, 2 * bytes / kBw);
}

}  // namespace
}  // namespace topocoll::sim
