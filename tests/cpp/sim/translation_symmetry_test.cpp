// The flow model's symmetry reduction (src/sim/translation_symmetry.hpp): a run that simulates
// one host per orbit of the run's translation symmetry must give what the run of every rank
// gives, link by link and rank by rank.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "sim/simulate.hpp"
#include "support/sim_test_support.hpp"

namespace topocoll::sim {
namespace {

using testing::build;
using testing::make_network;

bool close(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

SimResult run(const Schedule& schedule, const testing::TestNetwork& net, std::uint64_t bytes,
              bool symmetry) {
  SimConfig config;
  config.model = Model::flow;
  config.vector_bytes = bytes;
  config.record_links = true;
  config.use_symmetry = symmetry;
  return simulate(schedule, *net.topology, *net.router, net.mapping, config);
}

// Runs both ways and compares everything the result reports; returns the group used.
std::int64_t expect_reduction_exact(const Schedule& schedule, const testing::TestNetwork& net,
                                    std::uint64_t bytes, const std::string& what) {
  const SimResult full = run(schedule, net, bytes, false);
  const SimResult reduced = run(schedule, net, bytes, true);
  EXPECT_EQ(full.symmetry_group, 1) << what;
  EXPECT_TRUE(close(full.time_s, reduced.time_s))
      << what << ": " << full.time_s << " vs " << reduced.time_s;
  EXPECT_EQ(full.messages, reduced.messages) << what;
  EXPECT_EQ(full.transfers, reduced.transfers) << what;
  EXPECT_TRUE(close(full.max_link_utilization, reduced.max_link_utilization)) << what;
  EXPECT_TRUE(close(full.mean_link_utilization, reduced.mean_link_utilization)) << what;
  EXPECT_EQ(full.rank_finish_s.size(), reduced.rank_finish_s.size()) << what;
  for (std::size_t r = 0; r < full.rank_finish_s.size(); ++r)
    EXPECT_TRUE(close(full.rank_finish_s[r], reduced.rank_finish_s[r])) << what << " rank " << r;
  EXPECT_EQ(full.links.size(), reduced.links.size()) << what;
  for (std::size_t l = 0; l < full.links.size(); ++l) {
    EXPECT_TRUE(close(full.links[l].bytes, reduced.links[l].bytes)) << what << " link " << l;
    EXPECT_TRUE(close(full.links[l].busy_s, reduced.links[l].busy_s)) << what << " link " << l;
  }
  return reduced.symmetry_group;
}

// The algorithm on the torus shape when it takes one, else as a ring of the ranks mapped
// linearly (as `topocoll compare` does).
SchedulePtr build_for(const AlgorithmInfo& algo, const std::vector<int>& dims,
                      Collective collective = Collective::allreduce) {
  int ranks = 1;
  for (int d : dims) ranks *= d;
  try {
    return build(algo.name, collective, ranks, dims);
  } catch (const UnsupportedRequest&) {
  }
  try {
    return build(algo.name, collective, ranks);
  } catch (const UnsupportedRequest&) {
    return nullptr;
  }
}

// Every allreduce algorithm, both routings, two sizes whose blocks are equal (the reduction's
// precondition): the reduced run equals the full one wherever a symmetry was found.
TEST(SimSymmetrySlow, ReducedRunsEqualFullRunsForEveryAllreduceAlgorithm) {
  int reduced = 0;
  for (const std::vector<int>& dims : {std::vector<int>{8, 8}, std::vector<int>{4, 4, 4}}) {
    const std::string spec = dims.size() == 2 ? "torus:8x8" : "torus:4x4x4";
    for (const std::string routing : {"minimal", "dor"}) {
      const auto net = make_network(spec, 64, routing);
      for (const AlgorithmInfo* algo : registry().for_collective(Collective::allreduce)) {
        const auto schedule = build_for(*algo, dims);
        if (!schedule) continue;
        for (const std::uint64_t bytes : {std::uint64_t{1} << 16, std::uint64_t{1} << 22}) {
          const std::string what =
              algo->name + " on " + spec + " " + routing + " " + std::to_string(bytes) + " B";
          if (expect_reduction_exact(*schedule, net, bytes, what) > 1) ++reduced;
        }
      }
    }
  }
  EXPECT_GE(reduced, 40);  // most of them have a symmetry on these tori
}

// The other collectives: chunked ones (blocks per rank), rooted ones (the root breaks every
// translation but a tree can still repeat), alltoall (receive slots mirror the send slots).
TEST(SimSymmetrySlow, ReducedRunsEqualFullRunsForEveryCollective) {
  const auto net = make_network("torus:8x8", 64, "minimal");
  int reduced = 0;
  for (const Collective c : all_collectives()) {
    if (c == Collective::allreduce) continue;  // above
    for (const AlgorithmInfo* algo : registry().for_collective(c)) {
      const auto schedule = build_for(*algo, {8, 8}, c);
      if (!schedule) continue;
      if (expect_reduction_exact(*schedule, net, 1 << 16,
                                 algo->name + " " + std::string(collective_name(c))) > 1)
        ++reduced;
    }
  }
  EXPECT_GE(reduced, 15);  // reduce-scatter, allgather and alltoall schedules repeat too
}

// The groups found follow the schedules' structure: bucket is the same from every rank, Swing's
// peers alternate with the parity of the coordinates, recursive doubling on 8x8 repeats every
// 4 (its last step in a dimension pairs x with x xor 4, so the search must read to the end),
// a linearly mapped ring of 64 ranks on 8x8 repeats every row.
TEST(SimSymmetry, GroupsFollowTheSchedules) {
  const auto net = make_network("torus:8x8", 64, "minimal");
  const std::uint64_t bytes = 1 << 20;
  EXPECT_EQ(
      run(*build("bucket", Collective::allreduce, 64, {8, 8}), net, bytes, true).symmetry_group,
      64);
  EXPECT_EQ(
      run(*build("swing-bw", Collective::allreduce, 64, {8, 8}), net, bytes, true).symmetry_group,
      16);
  EXPECT_EQ(
      run(*build("recdoub-bw", Collective::allreduce, 64, {8, 8}), net, bytes, true).symmetry_group,
      4);
  EXPECT_EQ(run(*build("ring", Collective::allreduce, 64), net, bytes, true).symmetry_group, 8);
  // Bruck's ranges wrap at block 0 for some ranks only, but a send is one message of its bytes
  // and packing is free here, so every host is the same (symmetric_paths_test.cpp has the runs
  // where the ranges count).
  EXPECT_EQ(
      run(*build("bruck-bw", Collective::allreduce, 64, {8, 8}), net, bytes, true).symmetry_group,
      64);
}

// Hamiltonian rings repeat along a diagonal only: on an RxC torus, cycle A's runs start one
// column left per row and cycle B's advance C-1 rows per column, so moving a host one row down
// and one column left maps both cycles onto themselves, and C rows down (C divides R) maps
// them onto themselves too. No axis period below the sides sees the first, so the group needs
// translations along several dimensions at once; the reduced run must still equal the full one.
TEST(SimSymmetry, HamiltonianRingsRepeatAlongADiagonal) {
  for (const std::string routing : {"minimal", "dor"}) {
    const auto square = make_network("torus:8x8", 64, routing);
    EXPECT_EQ(expect_reduction_exact(*build("hamiltonian-rings", Collective::allreduce, 64, {8, 8}),
                                     square, 1 << 20, "hamiltonian-rings 8x8 " + routing),
              8);
    const auto tall = make_network("torus:8x16", 128, routing);
    EXPECT_EQ(
        expect_reduction_exact(*build("hamiltonian-rings", Collective::allreduce, 128, {8, 16}),
                               tall, 1 << 20, "hamiltonian-rings 8x16 " + routing),
        16);
  }
}

// HyperX moves its links with its hosts too (a link's target coordinate shifts with it): every
// allreduce algorithm on hyperx:8x8 reduces to what the full run gives, and bucket to one host.
TEST(SimSymmetry, HyperXRunsReduceLikeTori) {
  int reduced = 0;
  for (const std::string routing : {"minimal", "dor"}) {
    const auto net = make_network("hyperx:8x8", 64, routing);
    for (const AlgorithmInfo* algo : registry().for_collective(Collective::allreduce)) {
      const auto schedule = build_for(*algo, {8, 8});
      if (!schedule) continue;
      if (expect_reduction_exact(*schedule, net, 1 << 20,
                                 algo->name + " on hyperx:8x8 " + routing) > 1)
        ++reduced;
    }
    EXPECT_EQ(expect_reduction_exact(*build("bucket", Collective::allreduce, 64, {8, 8}), net,
                                     1 << 20, "bucket on hyperx:8x8 " + routing),
              64);
  }
  EXPECT_GE(reduced, 20);
}

// HammingMesh moves by whole boards (its switches with their rows and columns): every allreduce
// algorithm on an 8x8 grid of 2x2 boards (Hx2Mesh) and of 4x4 boards (Hx4Mesh) reduces to what
// the full run gives; bucket repeats on every board, so one board stands for all.
TEST(SimSymmetry, HammingMeshRunsReduceByWholeBoards) {
  int reduced = 0;
  for (const auto& [spec, routing, board_group] : {std::tuple{"hammingmesh:2x2:4x4", "minimal", 16},
                                                   std::tuple{"hammingmesh:4x4:2x2", "dor", 4}}) {
    const auto net = make_network(spec, 64, routing);
    const std::string where = std::string(" on ") + spec + " " + routing;
    for (const AlgorithmInfo* algo : registry().for_collective(Collective::allreduce)) {
      const auto schedule = build_for(*algo, {8, 8});
      if (!schedule) continue;
      if (expect_reduction_exact(*schedule, net, 1 << 20, algo->name + where) > 1) ++reduced;
    }
    EXPECT_EQ(expect_reduction_exact(*build("bucket", Collective::allreduce, 64, {8, 8}), net,
                                     1 << 20, "bucket" + where),
              board_group);
  }
  EXPECT_GE(reduced, 10);
}

// Recursive doubling's XOR pairs are translations of the hypercube: one rank stands for all.
TEST(SimSymmetry, HypercubeTranslationsAreXors) {
  const auto net = make_network("hypercube:6", 64, "minimal");
  const auto schedule = build("recdoub-bw", Collective::allreduce, 64);
  EXPECT_EQ(expect_reduction_exact(*schedule, net, 1 << 20, "recdoub-bw on hypercube:6"), 64);
}

// No reduction where its preconditions fail: blocks of unequal sizes (100 B over 64 blocks),
// a mesh (its edges break translations), a mapping that scatters the ranks, a trace.
TEST(SimSymmetry, NoReductionWithoutItsPreconditions) {
  const auto schedule = build("bucket", Collective::allreduce, 64, {8, 8});
  const auto torus = make_network("torus:8x8", 64, "minimal");
  EXPECT_EQ(expect_reduction_exact(*schedule, torus, 100, "unequal blocks"), 1);
  const auto mesh = make_network("mesh:8x8", 64, "minimal");
  EXPECT_EQ(expect_reduction_exact(*schedule, mesh, 1 << 20, "mesh"), 1);
  auto scattered = make_network("torus:8x8", 64, "minimal");
  scattered.mapping = topo::make_mapping("random:7", 64, *scattered.topology);
  EXPECT_EQ(expect_reduction_exact(*schedule, scattered, 1 << 20, "random mapping"), 1);
  SimConfig traced;
  traced.vector_bytes = 1 << 20;
  traced.trace_path = ::testing::TempDir() + "symmetry_trace.json";
  EXPECT_EQ(
      simulate(*schedule, *torus.topology, *torus.router, torus.mapping, traced).symmetry_group, 1);
}

}  // namespace
}  // namespace topocoll::sim
