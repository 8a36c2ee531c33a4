// The model choices canary-fgcs24 leaves open (docs/innet.md), each an option whose effect is real:
// how descriptor tables index block ids, the host timer derived from the worst-case round trip
// (no retransmission in a lossless run without failures), the per-host window, and the
// congestion traffic's routing and offered load.
#include <gtest/gtest.h>

#include "sim/innet/bounds.hpp"
#include "sim/innet/engine.hpp"
#include "topology/fattree.hpp"
#include "topology/params.hpp"
#include "topology/topology.hpp"

using namespace topocoll;
using namespace topocoll::sim::innet;

namespace {

std::unique_ptr<topo::Topology> tree(const char* spec = "fattree:2:4:4:4") {
  return topo::make_topology(spec, topo::preset_params("canary"));
}

InnetConfig congested(Algorithm algorithm = Algorithm::canary) {
  InnetConfig c;
  c.algorithm = algorithm;
  c.trees = 4;
  c.hosts = 8;
  c.size_bytes = 256 << 10;
  c.congestion = true;
  c.seed = 3;
  return c;
}

}  // namespace

// One hash shared by every switch makes a colliding block collide at every switch it crosses;
// the static index never collides while the table holds every live block, and a small table
// still forces collisions (and tree restoration keeps the sums exact).
TEST(InnetTableIndex, StaticIndexIsCollisionFreeAndSmallTablesStillCollide) {
  auto t = tree("fattree:2:8:8:8");
  InnetConfig c = congested();
  c.hosts = 40;
  c.size_bytes = 1 << 20;  // 1024 blocks
  c.table_entries = 1024;
  c.congestion = false;
  c.table_index = TableIndex::static_slots;
  const InnetResult fixed = run_innet(*t, c);
  c.table_index = TableIndex::shared_hash;
  const InnetResult shared = run_innet(*t, c);
  c.table_index = TableIndex::per_switch_hash;
  const InnetResult salted = run_innet(*t, c);
  for (const InnetResult* r : {&fixed, &shared, &salted}) EXPECT_TRUE(r->exact);
  EXPECT_EQ(fixed.collisions, 0u);
  EXPECT_GT(shared.collisions, 0u);
  EXPECT_GT(salted.collisions, 0u);
  c.table_index = TableIndex::static_slots;
  c.table_entries = 8;
  const InnetResult tiny = run_innet(*t, c);
  EXPECT_TRUE(tiny.exact);
  EXPECT_GT(tiny.collisions, 0u);
  EXPECT_GT(tiny.to_leader, 0u);
}

// With the timer's minimum derived from the worst-case round trip, a lossless run without
// failures never retransmits, under either congestion pattern and any traffic routing.
TEST(InnetTimers, LosslessRunWithoutFailuresRetransmitsNothing) {
  auto t = tree();
  for (std::uint64_t seed : {1, 2, 3}) {
    for (bool permutation : {false, true}) {
      InnetConfig c = congested();
      c.seed = seed;
      c.background_permutation = permutation;
      c.background_load = 1;
      c.background_routing = BackgroundRouting::adaptive;
      const InnetResult r = run_innet(*t, c);
      EXPECT_TRUE(r.exact);
      EXPECT_EQ(r.retransmissions, 0u) << seed << permutation;
      EXPECT_EQ(r.restarts, 0u);
      EXPECT_LT(r.max_block_rtt_s, r.rto_s);
      EXPECT_DOUBLE_EQ(r.rto_s,
                       worst_case_rtt_s(dynamic_cast<const topo::FatTreeTopology&>(*t), c));
    }
  }
  // a timer below the round trip does retransmit (what the default avoids)
  InnetConfig c = congested();
  c.background_load = 1;
  c.rto_s = 5e-6;
  c.adaptive_rto = false;
  EXPECT_GT(run_innet(*t, c).retransmissions, 0u);
}

// A window of blocks in flight throttles a host (a window of 2 cannot cover the round trip),
// and the skew it bounds enters the worst-case round trip.
TEST(InnetTimers, WindowBoundsBlocksInFlight) {
  auto t = tree();
  InnetConfig c = congested();
  c.congestion = false;
  c.window_blocks = 0;
  const InnetResult open = run_innet(*t, c);
  c.window_blocks = 2;
  const InnetResult narrow = run_innet(*t, c);
  EXPECT_TRUE(open.exact);
  EXPECT_TRUE(narrow.exact);
  EXPECT_LT(narrow.goodput_gbps * 2, open.goodput_gbps);
  const auto& fat = dynamic_cast<const topo::FatTreeTopology&>(*t);
  InnetConfig wide = c;
  wide.window_blocks = 200;
  EXPECT_GT(worst_case_rtt_s(fat, wide), worst_case_rtt_s(fat, c));
}

// Offered load: more of it keeps the links busier; routing: the oblivious choices and the
// adaptive rule send the same traffic over different links.
TEST(InnetBackground, LoadAndRoutingAreOptions) {
  auto t = tree();
  InnetConfig c = congested(Algorithm::static_trees);
  c.background_load = 0.2;
  const InnetResult light = run_innet(*t, c);
  c.background_load = 0.6;
  const InnetResult heavy = run_innet(*t, c);
  EXPECT_TRUE(light.exact);
  EXPECT_TRUE(heavy.exact);
  EXPECT_LT(light.mean_link_utilization, heavy.mean_link_utilization);
  std::vector<std::uint64_t> events;
  for (BackgroundRouting routing :
       {BackgroundRouting::default_port, BackgroundRouting::ecmp, BackgroundRouting::adaptive}) {
    c.background_routing = routing;
    const InnetResult r = run_innet(*t, c);
    EXPECT_TRUE(r.exact);
    events.push_back(r.events);
  }
  EXPECT_NE(events[0], events[1]);
  EXPECT_NE(events[1], events[2]);
}

// Utilization is busy time over the span, so it never exceeds 100%, even when the horizon
// cuts transmissions short.
TEST(InnetBackground, UtilizationStaysAtMostOne) {
  auto t = tree();
  InnetConfig c = congested();
  c.link_stats = true;
  c.max_time_s = 1e-9;
  const InnetResult cut = run_innet(*t, c);
  EXPECT_FALSE(cut.completed);
  for (const LinkUse& l : cut.links) EXPECT_LE(l.utilization, 1.0);
  EXPECT_LE(cut.mean_link_utilization, 1.0);
}
