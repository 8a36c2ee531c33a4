#pragma once
// The hand-built case the flow and analytic models' sharing tests share: two flows converging
// on one link.
#include "core/registry.hpp"
#include "support/sim_test_support.hpp"

namespace topocoll::sim::testing {

constexpr double kConvergingBw = 1e9;  // bytes per second

// Ranks 0 and 1 both send S bytes to rank 2; rank 0's path is {L0, L1}, rank 1's is {L1}.
struct Converging {
  HandNetwork net{3, quiet()};
  HandRouter router;
  int l0, l1;
  explicit Converging(double l0_bandwidth) {
    l0 = net.link(0, 1, l0_bandwidth, 0);
    l1 = net.link(1, 2, kConvergingBw, 0);
    router.set(0, 2, {{{l0, l1}, 1.0}});
    router.set(1, 2, {{{l1}, 1.0}});
  }
  static ExplicitSchedule schedule() {
    const auto all = BlockSet::range(0, 1);
    return hand_schedule(1, {{step({Operation::send(2, all)})},
                             {step({Operation::send(2, all)})},
                             {step({Operation::recv(0, all, Combine::reduce),
                                    Operation::recv(1, all, Combine::reduce)})}});
  }
};

}  // namespace topocoll::sim::testing
