// Faults for the algorithms without loss recovery (canary-fgcs24 2, 5.2: static trees and the
// host-based ring have none): a loss or a failed switch on their path leaves the allreduce
// incomplete, reported as such, never as a wrong or finished result; a failure off their path
// does not hurt them. Canary's recovery from the same faults is in innet_exact_test.cpp.
#include <gtest/gtest.h>

#include "sim/innet/engine.hpp"
#include "topology/params.hpp"
#include "topology/topology.hpp"

using namespace topocoll;
using namespace topocoll::sim::innet;

namespace {

// 4 leaves of 4 hosts, 4 spines: hosts 0..15, leaves 16..19, spines 20..23.
std::unique_ptr<topo::Topology> small_tree() {
  return topo::make_topology("fattree:2:4:4:4", topo::preset_params("canary"));
}

InnetConfig base(Algorithm algorithm, int trees = 1) {
  InnetConfig c;
  c.algorithm = algorithm;
  c.trees = trees;
  c.hosts = 10;
  c.size_bytes = 32 << 10;
  c.congestion = true;
  c.seed = 7;
  c.max_time_s = 200e-6;  // far beyond the 10-30 us these runs take when nothing fails
  return c;
}

void expect_incomplete(const InnetResult& r) {
  EXPECT_FALSE(r.completed);
  EXPECT_FALSE(r.exact);
  EXPECT_EQ(r.goodput_gbps, 0);
  EXPECT_GT(r.drops, 0u);
}

}  // namespace

// The spine a static tree is rooted at, found by failing each spine: the root's failure stops
// the tree, the others' do not touch it.
TEST(InnetFaults, StaticTreeStopsWhenItsRootFailsAndIgnoresOtherSpines) {
  auto t = small_tree();
  int stopped = 0, finished = 0;
  for (int spine = 20; spine < 24; ++spine) {
    InnetConfig c = base(Algorithm::static_trees);
    c.faults.push_back(Fault{spine, -1, 2e-6});
    const InnetResult r = run_innet(*t, c);
    if (r.completed) {
      EXPECT_TRUE(r.exact);
      ++finished;
    } else {
      expect_incomplete(r);
      ++stopped;
    }
  }
  EXPECT_EQ(stopped, 1);  // one tree, one root
  EXPECT_EQ(finished, 3);
}

TEST(InnetFaults, FourStaticTreesStopWhenAnyRootFails) {
  auto t = small_tree();
  for (int spine = 20; spine < 24; ++spine) {  // 4 trees on 4 spines: every spine is a root
    InnetConfig c = base(Algorithm::static_trees, 4);
    c.faults.push_back(Fault{spine, -1, 2e-6});
    expect_incomplete(run_innet(*t, c));
  }
}

TEST(InnetFaults, StaticTreesAndRingDoNotRecoverFromDrops) {
  auto t = small_tree();
  for (Algorithm a : {Algorithm::static_trees, Algorithm::ring}) {
    InnetConfig c = base(a);
    c.drop_probability = 0.01;
    expect_incomplete(run_innet(*t, c));
  }
}

// The ring's packets follow the network's routes, which avoid a failed spine from the failure
// on: what was on the spine when it failed is lost, and the ring cannot resend it.
TEST(InnetFaults, RingLosesWhatAFailedSpineHeld) {
  auto t = small_tree();
  InnetConfig c = base(Algorithm::ring);
  c.faults.push_back(Fault{21, -1, 5e-6});
  expect_incomplete(run_innet(*t, c));
  c.faults[0].time_s = 190e-6;  // after the ring finished: nothing lost
  const InnetResult late = run_innet(*t, c);
  EXPECT_TRUE(late.exact);
}
