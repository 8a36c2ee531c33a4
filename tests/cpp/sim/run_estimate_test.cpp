// The pre-run estimate (src/sim/run_estimate.hpp) against the engine: small runs are read in
// full and count what the engine sends; large ones are sampled the same way every time.
#include "sim/run_estimate.hpp"

#include <gtest/gtest.h>

#include <memory>

#include "core/registry.hpp"
#include "sim/simulate.hpp"
#include "topology/mapping.hpp"
#include "topology/routing.hpp"
#include "topology/topology.hpp"

namespace topocoll::sim {
namespace {

struct EstimatedRun {
  std::unique_ptr<topo::Topology> topology;
  std::unique_ptr<topo::Router> router;
  SchedulePtr schedule;
  topo::Mapping mapping;

  EstimatedRun(const std::string& spec, const std::string& algorithm, std::vector<int> dims = {}) {
    topology = topo::make_topology(spec, topo::NetworkParams{});
    router = topo::make_router(*topology, "minimal");
    ScheduleRequest request;
    request.ranks = topology->host_count();
    request.dims = std::move(dims);
    schedule = registry().build(algorithm, request);
    mapping = topo::make_mapping("linear", schedule->ranks(), *topology);
  }
  [[nodiscard]] SimConfig config(Model model = Model::flow) const {
    SimConfig c;
    c.model = model;
    c.vector_bytes = 1 << 20;
    return c;
  }
};

TEST(RunEstimate, SmallRunsCountWhatTheEngineSends) {
  for (const auto& [spec, algorithm] : std::vector<std::pair<std::string, std::string>>{
           {"ring:8", "ring"}, {"fattree:2:2:2:2", "recdoub-bw"}, {"hypercube:3", "bine-bw"}}) {
    SCOPED_TRACE(spec + " " + algorithm);
    const EstimatedRun run(spec, algorithm);
    const RunEstimate e = estimate_run(*run.schedule, *run.topology, *run.router, run.mapping,
                                       run.config(Model::analytic));
    const SimResult r = simulate(*run.schedule, *run.topology, *run.router, run.mapping,
                                 run.config(Model::analytic));
    EXPECT_TRUE(e.exact);
    EXPECT_DOUBLE_EQ(e.messages, static_cast<double>(r.messages));
    EXPECT_DOUBLE_EQ(e.transfers, static_cast<double>(r.transfers));
    EXPECT_GT(e.link_crossings, 0);
    EXPECT_GE(e.packets, e.transfers);
  }
}

TEST(RunEstimate, LargeRunsAreSampledAndDeterministic) {
  const EstimatedRun run("torus:32x32", "swing-bw", {32, 32});
  const RunEstimate a =
      estimate_run(*run.schedule, *run.topology, *run.router, run.mapping, run.config());
  const RunEstimate b =
      estimate_run(*run.schedule, *run.topology, *run.router, run.mapping, run.config());
  EXPECT_FALSE(a.exact);
  EXPECT_EQ(a.rank_steps, 1024u * a.max_steps);
  EXPECT_DOUBLE_EQ(a.transfers, b.transfers);
  EXPECT_DOUBLE_EQ(a.flow_work, b.flow_work);
  const SimResult r =
      simulate(*run.schedule, *run.topology, *run.router, run.mapping, run.config());
  EXPECT_NEAR(a.messages, static_cast<double>(r.messages), 0.05 * static_cast<double>(r.messages));
  // The flow model's symmetry, found as the engine finds it.
  EXPECT_EQ(a.symmetry_group, r.symmetry_group);
  EXPECT_GT(a.symmetry_group, 1);
  EXPECT_FALSE(a.drifts);
}

// A Dragonfly's flows end at their own instants (run_estimate.cpp): the flow model's estimate
// counts the drift there, not on a fat tree, and not under the analytic model.
TEST(RunEstimate, DragonfliesDrift) {
  for (const auto& [spec, drifts] :
       std::vector<std::pair<std::string, bool>>{{"dragonfly:4:2:2:2", true},
                                                 {"dragonfly+:2:2:4:2:2", true},
                                                 {"fattree:2:4:4:2", false}}) {
    SCOPED_TRACE(spec);
    const EstimatedRun run(spec, "recdoub-bw");
    const RunEstimate flow =
        estimate_run(*run.schedule, *run.topology, *run.router, run.mapping, run.config());
    EXPECT_EQ(flow.drifts, drifts);
    EXPECT_GT(flow.drift_work, flow.event_work);
    const RunEstimate analytic = estimate_run(*run.schedule, *run.topology, *run.router,
                                              run.mapping, run.config(Model::analytic));
    EXPECT_FALSE(analytic.drifts);
  }
}

TEST(RunEstimate, MappingMustFit) {
  const EstimatedRun run("ring:8", "ring");
  topo::Mapping short_mapping{{0, 1, 2}};
  EXPECT_THROW(
      (void)estimate_run(*run.schedule, *run.topology, *run.router, short_mapping, run.config()),
      UnsupportedRequest);
}

}  // namespace
}  // namespace topocoll::sim
