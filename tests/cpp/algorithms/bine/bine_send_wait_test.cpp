// bine-bw-send-wait: bine-bw whose ranks idle in the allgather's exchange step wait for their
// first butterfly peer (docs/efficiency.md, "Found defects").
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/registry.hpp"
#include "core/verifier/verifier.hpp"
#include "sim/simulate.hpp"
#include "support/sweep_sample.hpp"
#include "topology/mapping.hpp"
#include "topology/routing.hpp"
#include "topology/topology.hpp"

namespace topocoll {
namespace {

const std::vector<Collective> kCollectives = {Collective::allreduce, Collective::reduce_scatter,
                                              Collective::allgather};

SchedulePtr build(const std::string& name, Collective c, int p) {
  ScheduleRequest request;
  request.collective = c;
  request.ranks = p;
  return registry().build(name, request);
}

// The range of bine-bw's own sweep (bine_test.cpp): every even P natively, odd P folded.
TEST(BineSendWaitSlow, ExactForEverySizeAndCollective) {
  for (Collective c : kCollectives)
    for (int p = 2; p <= 130; ++p) {
      if (!sweep::in_sample(
              sweep::instance_name("bine-bw-send-wait ", collective_name(c), " P=", p), p <= 16))
        continue;
      auto schedule = build("bine-bw-send-wait", c, p);
      VerifyOptions options;
      options.mode = VerifyMode::exact;
      auto report = verify(*schedule, options);
      EXPECT_TRUE(report.ok) << collective_name(c) << " P=" << p << ": " << report.message;
    }
}

bool idle_first(const std::vector<Step>& steps) { return steps.empty() || steps[0].ops.empty(); }

// Ranks whose first step is one zero-byte receive: the waiting ones.
std::vector<int> waiting(const Schedule& schedule) {
  std::vector<int> out;
  for (int r = 0; r < schedule.ranks(); ++r) {
    const auto steps = schedule.steps_of(r);
    if (!steps.empty() && steps[0].ops.size() == 1 && steps[0].ops[0].kind == OpKind::recv &&
        steps[0].ops[0].blocks.empty())
      out.push_back(r);
  }
  return out;
}

// The ranks that wait are exactly those idle in bine-bw's exchange step (rank 0 among them; at
// P = 2 both ranks are idle and peers, so neither waits), and the rest of the schedule is
// bine-bw's: every rank moves the same blocks in the same order.
TEST(BineSendWait, OnlyTheRanksIdleInTheExchangeWait) {
  for (int p = 2; p <= 130; p += 2) {
    auto paper = build("bine-bw", Collective::allgather, p);
    auto fixed = build("bine-bw-send-wait", Collective::allgather, p);
    std::vector<int> idle;
    for (int r = 0; r < p; ++r)
      if (idle_first(paper->steps_of(r))) idle.push_back(r);
    if (p == 2) {
      EXPECT_EQ(idle, (std::vector<int>{0, 1}));
      EXPECT_TRUE(waiting(*fixed).empty());
      continue;
    }
    ASSERT_FALSE(idle.empty()) << "P=" << p;
    EXPECT_EQ(idle.front(), 0) << "P=" << p;
    EXPECT_EQ(waiting(*fixed), idle) << "P=" << p;
    for (int r = 0; r < p; ++r) {
      std::vector<std::string> a, b;
      for (const Step& s : paper->steps_of(r))
        for (const Operation& op : s.ops)
          if (!op.blocks.empty()) a.push_back(std::to_string(op.peer) + op.blocks.to_string());
      for (const Step& s : fixed->steps_of(r))
        for (const Operation& op : s.ops)
          if (!op.blocks.empty()) b.push_back(std::to_string(op.peer) + op.blocks.to_string());
      EXPECT_EQ(a, b) << "P=" << p << " rank " << r;
    }
  }
  // Hand-checked at P = 32: h(r) = r for rank 0 only; its first peer is rank 11.
  auto fixed = build("bine-bw-send-wait", Collective::allgather, 32);
  EXPECT_EQ(waiting(*fixed), std::vector<int>{0});
  EXPECT_EQ(fixed->steps_of(0)[0].ops[0].peer, 11);
}

// 32 ranks on one 160-host leaf of a non-blocking fat tree, no latency: the allgather moves 31
// blocks in the butterfly and one in the exchange, so it can end at 32 blocks' time, the whole
// 16 MiB vector at a host's link rate (335.5 us at 400 Gb/s). The paper's schedule does not.
TEST(BineSendWait, AllgatherOnANonBlockingFatTreeTakesItsBytesTime) {
  topo::NetworkParams params;
  params.bandwidth_bytes_per_s = 400e9 / 8;
  params.link_latency_s = 0;
  params.hop_latency_s = 0;
  const auto topology = topo::make_topology("fattree:2:8:160:160", params);
  const auto router = topo::make_router(*topology, "minimal");
  const auto mapping = topo::make_mapping("linear", 32, *topology);
  sim::SimConfig config;
  config.vector_bytes = 512ull << 10;  // per rank: a 16 MiB vector
  auto time = [&](const std::string& name) {
    auto schedule = build(name, Collective::allgather, 32);
    return sim::simulate(*schedule, *topology, *router, mapping, config).time_s;
  };
  const double bytes_time =
      32.0 * static_cast<double>(config.vector_bytes) / params.bandwidth_bytes_per_s;
  EXPECT_NEAR(time("bine-bw-send-wait"), bytes_time, 1e-3 * bytes_time);
  EXPECT_GT(time("bine-bw"), 1.15 * bytes_time);
}

}  // namespace
}  // namespace topocoll
