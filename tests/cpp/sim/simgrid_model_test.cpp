// The simgrid model, the independent check of the flow model: closed forms for single
// messages, sharing and steps; agreement with the flow model within 1% for several algorithms on
// each of ring, torus, hypercube and fat tree (dor routing); repeated runs in one process; and
// refusal of what it cannot model. Compiled only when SimGrid was found.
#ifdef TOPOCOLL_HAVE_SIMGRID
#include "sim/simgrid_model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "sim/simulate.hpp"
#include "support/sim_test_support.hpp"
#include "topology/mapping.hpp"
#include "topology/routing.hpp"
#include "topology/topology.hpp"

namespace topocoll::sim {
namespace {

using testing::build;
using testing::paper_params;
using Network = testing::TestNetwork;

Network setup(const std::string& spec, int ranks, const std::string& routing = "dor",
              topo::NetworkParams params = paper_params()) {
  return testing::make_network(spec, ranks, routing, params);
}

SimResult run(const Schedule& schedule, const Network& n, Model model, std::uint64_t bytes) {
  SimConfig config;
  config.model = model;
  config.vector_bytes = bytes;
  return model == Model::simgrid
             ? simulate_simgrid(schedule, *n.topology, *n.router, n.mapping, config)
             : simulate(schedule, *n.topology, *n.router, n.mapping, config);
}

// One message of B bytes over h links: h x (link + hop latency) + B / bandwidth, plus alpha.
TEST(SimGridModel, OneMessageCostsLatencyPlusBytesOverBandwidth) {
  const Network n = setup("ring:8", 8);
  ExplicitSchedule schedule = [] {
    ScheduleInfo info;
    info.collective = Collective::allreduce;
    info.ranks = 8;
    info.blocks = 1;
    std::vector<std::vector<Step>> steps(8);
    steps[0].push_back(Step{{Operation::send(3, BlockSet::single(0))}});
    steps[3].push_back(Step{{Operation::recv(0, BlockSet::single(0), Combine::copy)}});
    return ExplicitSchedule(info, std::move(steps));
  }();
  const double bytes = 1 << 20;
  const double expected = 1.5e-6 + 3 * 400e-9 + bytes / (400e9 / 8);
  const SimResult result = run(schedule, n, Model::simgrid, 1 << 20);
  EXPECT_NEAR(result.time_s, expected, expected * 1e-4);  // SimGrid rounds to 1 ns
  EXPECT_EQ(result.messages, 1u);
  // Each call runs SimGrid in its own process: a second run in this process works and agrees.
  EXPECT_EQ(run(schedule, n, Model::simgrid, 1 << 20).time_s, result.time_s);
  EXPECT_NEAR(result.goodput_gbps, bytes * 8 / result.time_s / 1e9, 1e-9);
}

// Sends are eager: rank 0's message to rank 1 flows while rank 1 is still busy with rank 2, so
// rank 1's later receive completes at once. Blocks of 1 MiB; rank 1 and 2 exchange 4 of them.
TEST(SimGridModel, EagerSendsFlowBeforeTheReceiveIsPosted) {
  const Network n = setup("ring:8", 8);
  ExplicitSchedule schedule = [] {
    ScheduleInfo info;
    info.collective = Collective::allreduce;
    info.ranks = 8;
    info.blocks = 5;
    const BlockSet four = BlockSet::range(1, 5);
    std::vector<std::vector<Step>> steps(8);
    steps[0].push_back(Step{{Operation::send(1, BlockSet::single(0))}});
    steps[1].push_back(Step{{Operation::send(2, four), Operation::recv(2, four, Combine::reduce)}});
    steps[1].push_back(Step{{Operation::recv(0, BlockSet::single(0), Combine::copy)}});
    steps[2].push_back(Step{{Operation::send(1, four), Operation::recv(1, four, Combine::reduce)}});
    return ExplicitSchedule(info, std::move(steps));
  }();
  const double block = 1 << 20;
  const double expected = 2 * 1.5e-6 + 400e-9 + 4 * block / (400e9 / 8);
  const SimResult simgrid = run(schedule, n, Model::simgrid, 5 << 20);
  const SimResult flow = run(schedule, n, Model::flow, 5 << 20);
  EXPECT_NEAR(simgrid.time_s, expected, expected * 1e-4);
  EXPECT_NEAR(flow.time_s, expected, expected * 1e-4);
  ASSERT_EQ(simgrid.rank_finish_s.size(), 8u);
  EXPECT_NEAR(simgrid.rank_finish_s[0], 1.5e-6 + 400e-9 + block / (400e9 / 8), 1e-9);
  EXPECT_EQ(simgrid.messages, 3u);
}

struct Case {
  const char* spec;
  const char* algorithm;
  Collective collective;
  int ranks;
  std::vector<int> dims;
};

// Every case runs on both models with dor routing; the times agree within 1%.
void expect_agreement(const std::vector<Case>& cases, std::uint64_t bytes) {
  for (const Case& c : cases) {
    const Network n = setup(c.spec, c.ranks);
    const auto schedule = build(c.algorithm, c.collective, c.ranks, c.dims);
    const SimResult flow = run(*schedule, n, Model::flow, bytes);
    const SimResult simgrid = run(*schedule, n, Model::simgrid, bytes);
    const std::string what = std::string(c.algorithm) + " " +
                             std::string(collective_name(c.collective)) + " on " + c.spec + " (" +
                             std::to_string(bytes) + " B)";
    ASSERT_GT(flow.time_s, 0) << what;
    EXPECT_NEAR(simgrid.time_s / flow.time_s, 1.0, 0.01)
        << what << ": flow " << flow.time_s << " s, simgrid " << simgrid.time_s << " s";
    EXPECT_EQ(simgrid.messages, flow.messages) << what;
  }
}

const std::vector<Case>& ring_cases() {
  static const std::vector<Case> cases = {
      {"ring:16", "ring", Collective::allreduce, 16, {}},
      {"ring:16", "recdoub-bw", Collective::allreduce, 16, {}},
      {"ring:16", "swing-bw", Collective::allreduce, 16, {}},
      {"ring:12", "bucket", Collective::reduce_scatter, 12, {}},
  };
  return cases;
}

const std::vector<Case>& torus_cases() {
  static const std::vector<Case> cases = {
      {"torus:4x4", "swing-bw", Collective::allreduce, 16, {4, 4}},
      {"torus:4x4", "bucket", Collective::allreduce, 16, {4, 4}},
      {"torus:4x4", "recdoub-bw", Collective::allreduce, 16, {4, 4}},
      {"torus:4x4", "hamiltonian-rings", Collective::allreduce, 16, {4, 4}},
      {"torus:8x4", "recdoub-lat", Collective::allreduce, 32, {8, 4}},
  };
  return cases;
}

const std::vector<Case>& hypercube_cases() {
  static const std::vector<Case> cases = {
      {"hypercube:4", "recdoub-bw", Collective::allreduce, 16, {2, 2, 2, 2}},
      {"hypercube:4", "hamiltonian-cycle", Collective::allgather, 16, {2, 2, 2, 2}},
      {"hypercube:4", "hamiltonian-d-cycles", Collective::reduce_scatter, 16, {2, 2, 2, 2}},
      // 2- and 3-hop flows share links: SimGrid's latency-weighted shares would show here.
      {"hypercube:4", "swing-lat", Collective::allreduce, 16, {}},
  };
  return cases;
}

const std::vector<Case>& fattree_cases() {
  static const std::vector<Case> cases = {
      {"fattree:2:4:4:2", "ring", Collective::allreduce, 16, {}},
      {"fattree:2:4:4:2", "recdoub-bw", Collective::allreduce, 16, {}},
      {"fattree:2:4:4:2", "swing-bw", Collective::allreduce, 16, {}},
      {"fattree:2:4:4:2", "bucket", Collective::allgather, 16, {}},
  };
  return cases;
}

TEST(SimGridModel, AgreesWithTheFlowModelOnRings) {
  expect_agreement(ring_cases(), 1 << 20);
  expect_agreement(ring_cases(), 96);
}

TEST(SimGridModel, AgreesWithTheFlowModelOnTori) {
  expect_agreement(torus_cases(), 1 << 22);
  expect_agreement(torus_cases(), 256);
}

TEST(SimGridModel, AgreesWithTheFlowModelOnHypercubes) {
  expect_agreement(hypercube_cases(), 1 << 22);
  expect_agreement(hypercube_cases(), 64);
}

TEST(SimGridModel, AgreesWithTheFlowModelOnFatTrees) {
  expect_agreement(fattree_cases(), 1 << 22);
  expect_agreement(fattree_cases(), 128);
}

TEST(SimGridModel, RefusesMultiPathRoutingAndTraces) {
  // On a 4x4 torus, minimal routing splits the distance-2 messages of recursive doubling over
  // two directions.
  const Network minimal = setup("torus:4x4", 16, "minimal");
  const auto schedule = build("recdoub-lat", Collective::allreduce, 16, {4, 4}, 1);
  try {
    (void)run(*schedule, minimal, Model::simgrid, 1024);
    FAIL() << "multi-path routing should be refused";
  } catch (const UnsupportedRequest& e) {
    EXPECT_NE(std::string(e.what()).find("--routing dor"), std::string::npos) << e.what();
  }
  const Network dor = setup("torus:4x4", 16);
  SimConfig config;
  config.model = Model::simgrid;
  config.vector_bytes = 1024;
  config.trace_path = "/tmp/never-written.json";
  EXPECT_THROW((void)simulate_simgrid(*schedule, *dor.topology, *dor.router, dor.mapping, config),
               UnsupportedRequest);
}

}  // namespace
}  // namespace topocoll::sim
#endif  // TOPOCOLL_HAVE_SIMGRID
