// Packet-level in-network allreduce: every host ends with the exact integer sum, whatever the
// network does (drops, collisions, a failed switch, several tenants), and runs repeat exactly.
#include <gtest/gtest.h>

#include "core/registry.hpp"
#include "sim/innet/engine.hpp"
#include "topology/fattree.hpp"
#include "topology/params.hpp"
#include "topology/topology.hpp"

using namespace topocoll;
using namespace topocoll::sim::innet;

namespace {

// 4 leaves of 4 hosts, 4 spines, 100 Gb/s.
std::unique_ptr<topo::Topology> small_tree() {
  return topo::make_topology("fattree:2:4:4:4", topo::preset_params("canary"));
}

InnetConfig base(Algorithm algorithm = Algorithm::canary) {
  InnetConfig c;
  c.algorithm = algorithm;
  c.hosts = 10;
  c.size_bytes = 32 << 10;
  c.congestion = true;
  c.seed = 7;
  c.rto_s = 30e-6;
  return c;
}

void expect_exact(const InnetResult& r) {
  EXPECT_TRUE(r.completed);
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.mismatches, 0u);
  EXPECT_GT(r.goodput_gbps, 0);
}

}  // namespace

TEST(InnetExact, CanaryCongestedAggregatesInNetwork) {
  auto t = small_tree();
  const InnetResult r = run_innet(*t, base());
  expect_exact(r);
  EXPECT_EQ(r.collisions, 0u);
  EXPECT_EQ(r.fallbacks, 0u);
  // 9 contributions per block, 32 blocks: most absorbed by switches
  EXPECT_GT(r.aggregated, 32u * 9 / 2);
}

TEST(InnetExact, CanaryWithDrops) {
  auto t = small_tree();
  InnetConfig c = base();
  c.drop_probability = 0.01;
  const InnetResult r = run_innet(*t, c);
  expect_exact(r);
  EXPECT_GT(r.drops, 0u);
  EXPECT_GT(r.retransmissions, 0u);
}

TEST(InnetExact, CanaryLossyTailDrop) {
  auto t = small_tree();
  InnetConfig c = base();
  c.lossless = false;
  c.buffer_bytes = 4 << 10;
  const InnetResult r = run_innet(*t, c);
  expect_exact(r);
}

TEST(InnetExact, CanaryFallsBackToHostsAfterRepeatedFailures) {
  auto t = small_tree();
  InnetConfig c = base();
  c.drop_probability = 0.05;
  c.max_attempts = 1;
  const InnetResult r = run_innet(*t, c);
  expect_exact(r);
  EXPECT_GT(r.fallbacks, 0u);
}

TEST(InnetExact, CanaryTinyTableCollidesAndRestoresTrees) {
  auto t = small_tree();
  InnetConfig c = base();
  c.table_entries = 2;
  const InnetResult r = run_innet(*t, c);
  expect_exact(r);
  EXPECT_GT(r.collisions, 0u);
  EXPECT_GT(r.to_leader, 32u);
}

TEST(InnetExact, CanarySpineFailsMidRun) {
  auto t = small_tree();
  InnetConfig c = base();
  c.faults.push_back(Fault{16 + 4 + 1, -1, 2e-6});  // spine 1
  const InnetResult r = run_innet(*t, c);
  expect_exact(r);
  EXPECT_GT(r.drops, 0u);
}

// A leaf-spine cable fails mid-run (both directions): what was on it is lost and the hosts'
// timers recover every block, for Canary's adaptive paths and for a static tree over it.
TEST(InnetExact, LeafSpineCableFailsMidRun) {
  auto t = small_tree();
  const auto& tree = dynamic_cast<const topo::FatTreeTopology&>(*t);
  for (Algorithm algorithm : {Algorithm::canary, Algorithm::static_trees}) {
    InnetConfig c = base(algorithm);
    c.background_load = 1;                                    // the cable is busy when it fails
    c.faults.push_back(Fault{-1, tree.leaf_up(0, 1), 2e-6});  // leaf 0 <-> spine 1
    const InnetResult r = run_innet(*t, c);
    expect_exact(r);
    EXPECT_GT(r.drops, 0u);
  }
}

TEST(InnetExact, CanarySeveralTenants) {
  auto t = small_tree();
  for (bool partitioned : {false, true}) {
    InnetConfig c = base();
    c.hosts = 15;
    c.tenants = 3;
    c.table_entries = 6;
    c.partition_table = partitioned;
    const InnetResult r = run_innet(*t, c);
    expect_exact(r);
    EXPECT_EQ(r.tenant_time_s.size(), 3u);
  }
}

TEST(InnetExact, CanaryWithHostNoise) {
  auto t = small_tree();
  InnetConfig c = base();
  c.noise_probability = 0.1;
  const InnetResult r = run_innet(*t, c);
  expect_exact(r);
  EXPECT_GT(r.stragglers, 0u);
}

TEST(InnetExact, StaticTreesAndRing) {
  auto t = small_tree();
  for (int trees : {1, 4}) {
    InnetConfig c = base(Algorithm::static_trees);
    c.trees = trees;
    expect_exact(run_innet(*t, c));
  }
  InnetConfig ring = base(Algorithm::ring);
  ring.size_bytes = 10000;  // chunks of unequal length
  expect_exact(run_innet(*t, ring));
  ring.tenants = 2;
  expect_exact(run_innet(*t, ring));
}

TEST(InnetExact, EcmpRouting) {
  auto t = small_tree();
  InnetConfig c = base();
  c.ecmp = true;
  expect_exact(run_innet(*t, c));
}

TEST(InnetDeterminism, SameSeedSameRun) {
  auto t = small_tree();
  InnetConfig c = base();
  c.drop_probability = 0.01;
  c.link_stats = true;
  const InnetResult a = run_innet(*t, c);
  const InnetResult b = run_innet(*t, c);
  EXPECT_EQ(a.time_s, b.time_s);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.drops, b.drops);
  ASSERT_EQ(a.links.size(), b.links.size());
  for (std::size_t i = 0; i < a.links.size(); ++i) EXPECT_EQ(a.links[i].bytes, b.links[i].bytes);
  c.seed = 8;
  EXPECT_NE(run_innet(*t, c).events, a.events);
}

TEST(InnetErrors, InvalidRequestsAreRejected) {
  auto t = small_tree();
  auto rejects = [&](auto&& change) {
    InnetConfig c = base();
    change(c);
    EXPECT_THROW((void)run_innet(*t, c), UnsupportedRequest);
  };
  rejects([](InnetConfig& c) { c.timeout_s = 0; });
  rejects([](InnetConfig& c) { c.table_entries = 0; });
  rejects([](InnetConfig& c) { c.hosts = 17; });
  rejects([](InnetConfig& c) { c.drop_probability = 1; });
  rejects([](InnetConfig& c) { c.drop_probability = -0.1; });
  rejects([](InnetConfig& c) { c.faults.push_back(Fault{20, -1, 10.0}); });
  rejects([](InnetConfig& c) { c.faults.push_back(Fault{3, -1, 1e-6}); });  // a host
  auto torus = topo::make_topology("torus:4x4", topo::preset_params("canary"));
  EXPECT_THROW((void)run_innet(*torus, base()), UnsupportedRequest);
}
