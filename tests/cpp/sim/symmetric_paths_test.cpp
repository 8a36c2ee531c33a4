// The symmetric paths of the flow model kept honest: on every topology family that reduces a
// run by translations (tori and rings, hypercubes, HyperX, HammingMesh), the comparison of a
// reduced run with the full run that passes with the group the search finds fails with a wrong
// one (a group the schedule does not have, imposed on the engine). And schedules whose ranges
// wrap at block 0 for some ranks only reduce exactly when the engine cannot tell a wrapped
// range from a whole one (one message per send, packing free), and run in full otherwise.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/engine.hpp"
#include "sim/simulate.hpp"
#include "support/sim_test_support.hpp"

namespace topocoll::sim {
namespace {

using testing::build;
using testing::make_network;

SimConfig flow_config(std::uint64_t bytes) {
  SimConfig config;
  config.model = Model::flow;
  config.vector_bytes = bytes;
  config.record_links = true;
  return config;
}

SimResult run(const Schedule& schedule, const testing::TestNetwork& net, const SimConfig& config,
              const std::optional<TranslationSymmetry>& imposed = std::nullopt) {
  Engine engine(schedule, *net.topology, *net.router, net.mapping, config, imposed);
  return engine.run();
}

bool close(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

// Whether two runs report the same: time, messages, transfers, every rank's finish, every
// link's bytes and busy time.
bool same_run(const SimResult& a, const SimResult& b) {
  if (!close(a.time_s, b.time_s) || a.messages != b.messages || a.transfers != b.transfers ||
      a.rank_finish_s.size() != b.rank_finish_s.size() || a.links.size() != b.links.size())
    return false;
  for (std::size_t r = 0; r < a.rank_finish_s.size(); ++r)
    if (!close(a.rank_finish_s[r], b.rank_finish_s[r])) return false;
  for (std::size_t l = 0; l < a.links.size(); ++l)
    if (!close(a.links[l].bytes, b.links[l].bytes) || !close(a.links[l].busy_s, b.links[l].busy_s))
      return false;
  return true;
}

// Whether a run reduced by a group the schedule does not have gives itself away: the engine
// finds a receive without its send (a rank left out is not the translate it stands for), or
// the figures differ from the full run's.
bool wrong_group_caught(const Schedule& schedule, const testing::TestNetwork& net,
                        const SimConfig& config, const TranslationSymmetry& group,
                        const SimResult& full) {
  try {
    return !same_run(full, run(schedule, net, config, group));
  } catch (const std::exception&) {
    return true;
  }
}

// Every translation of the network's grid (each dimension by its translation step).
TranslationSymmetry all_translations(const topo::Topology& topology) {
  std::vector<int> periods;
  for (int d = 0; d < static_cast<int>(topology.grid_dims().size()); ++d)
    periods.push_back(topology.translation_step(d));
  return TranslationSymmetry::imposed(topology, periods, {});
}

struct FamilyCase {
  std::string spec;
  std::string routing;
  int ranks = 0;
  std::string algorithm;
  std::vector<int> dims;  // the schedule's torus shape; empty: its 1D schedule
};

// Per family, a schedule with a symmetry smaller than every translation of its network: the
// reduced run by the group found equals the full run, the reduced run by every translation
// (wrong for this schedule) does not.
TEST(SimSymmetricPaths, AWrongTranslationGroupChangesTheRunOnEveryFamily) {
  const std::vector<FamilyCase> cases = {
      {"torus:8x8", "minimal", 64, "swing-bw", {8, 8}},  // Swing: peers follow coordinate parity
      {"torus:4x4x4", "minimal", 64, "swing-bw", {4, 4, 4}},  // 3D
      {"torus:16", "minimal", 16, "recdoub-bw", {}},  // ring: x, x+8 differ at the last step
      {"hypercube:6", "minimal", 64, "ring", {}},     // a ring is no XOR pattern
      {"hyperx:8x8", "dor", 64, "swing-bw", {8, 8}},  // ports move to the moved coordinate
      {"hammingmesh:2x2:4x4", "minimal", 64, "recdoub-bw", {8, 8}},  // whole boards move
  };
  for (const FamilyCase& c : cases) {
    const std::string what = c.algorithm + " on " + c.spec + " " + c.routing;
    const auto used = make_network(c.spec, c.ranks, c.routing);
    const auto schedule = build(c.algorithm, Collective::allreduce, c.ranks, c.dims);
    SimConfig config = flow_config(3 << 20);  // equal blocks for 2 to 6 ports per rank
    config.use_symmetry = false;
    const SimResult full = run(*schedule, used, config);
    config.use_symmetry = true;
    const SimResult found = run(*schedule, used, config);
    const TranslationSymmetry every = all_translations(*used.topology);
    EXPECT_GT(found.symmetry_group, 1) << what;
    EXPECT_LT(found.symmetry_group, every.group_size()) << what;
    EXPECT_TRUE(same_run(full, found)) << what;
    EXPECT_TRUE(wrong_group_caught(*schedule, used, config, every, full))
        << what << ": a wrong group went unnoticed";
  }
}

// Bruck, Trivance and Bine's two transmissions send a range that wraps at block 0 as two
// ranges on some ranks and as one on their translates. With one message per send and free
// packing the engine sees the same bytes either way, so they reduce, and the reduced runs
// equal the full ones.
TEST(SimSymmetricPaths, WrappedRangesReduceWhenTheEngineSeesOnlyBytes) {
  const auto net = make_network("torus:8x8", 64, "minimal");
  const auto nine = make_network("torus:9x9", 81, "minimal");
  struct Case {
    const char* algorithm;
    const testing::TestNetwork* net;
    std::vector<int> dims;
  };
  for (const Case& c : {Case{"bruck-bw", &net, {8, 8}}, Case{"trivance-bw", &nine, {9, 9}},
                        Case{"trivance-lat", &nine, {9, 9}}, Case{"bine-bw-two", &net, {}}}) {
    const int ranks = c.net->topology->host_count();
    const auto schedule = build(c.algorithm, Collective::allreduce, ranks, c.dims);
    // Multiples of ranks^2 bytes: every block the same size (the reduction's precondition).
    const auto square = static_cast<std::uint64_t>(ranks) * static_cast<std::uint64_t>(ranks);
    for (const std::uint64_t bytes : {square * 16, square * 1024}) {
      const std::string what = std::string(c.algorithm) + " " + std::to_string(bytes) + " B";
      SimConfig config = flow_config(bytes);
      const SimResult reduced = run(*schedule, *c.net, config);
      config.use_symmetry = false;
      const SimResult full = run(*schedule, *c.net, config);
      EXPECT_GT(reduced.symmetry_group, 1) << what;
      EXPECT_TRUE(same_run(full, reduced)) << what;
    }
  }
}

// Where the engine does tell a wrapped range from a whole one, the same schedule has no such
// symmetry: one message per range (a wrapped range is two flows), or packing charged at the
// copy rate (a two-range message costs a copy a one-range message does not). The search finds
// none and the run equals the full one; imposing the group that one message per send allows
// changes the run, so a search that ignored the ranges here would be caught.
TEST(SimSymmetricPaths, WrappedRangesRunInFullWhenTheEngineChargesThem) {
  topo::NetworkParams packing = testing::paper_params();
  packing.host.copy_s_per_byte = 1e-10;
  const auto plain = make_network("torus:8x8", 64, "minimal");
  const auto packed = make_network("torus:8x8", 64, "minimal", packing);
  const auto schedule = build("bruck-bw", Collective::allreduce, 64, {8, 8});
  const std::uint64_t bytes = 1 << 20;
  const SimResult bytes_only = run(*schedule, plain, flow_config(bytes));
  ASSERT_GT(bytes_only.symmetry_group, 1);
  const auto group = all_translations(*plain.topology);
  ASSERT_EQ(bytes_only.symmetry_group, group.group_size());  // Bruck is the same from every host

  SimConfig per_range = flow_config(bytes);
  per_range.message_per_range = true;
  SimConfig costed = flow_config(bytes);
  struct Case {
    const char* what;
    const testing::TestNetwork* net;
    SimConfig config;
  };
  for (const Case& c : {Case{"one message per range", &plain, per_range},
                        Case{"packing charged", &packed, costed}}) {
    SimConfig config = c.config;
    const SimResult searched = run(*schedule, *c.net, config);
    config.use_symmetry = false;
    const SimResult full = run(*schedule, *c.net, config);
    EXPECT_EQ(searched.symmetry_group, 1) << c.what;
    EXPECT_TRUE(same_run(full, searched)) << c.what;
    EXPECT_TRUE(
        wrong_group_caught(*schedule, *c.net, config, all_translations(*c.net->topology), full))
        << c.what << ": a wrong group went unnoticed";
  }
}

}  // namespace
}  // namespace topocoll::sim
