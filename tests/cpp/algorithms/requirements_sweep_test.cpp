// Requirements are complete data: for every algorithm, collective and a spread of shapes (rings
// 2..64, 2D and 3D tori with odd and even sides and sides of 1, binary cubes), port counts,
// roots and operators, the registry's data accepts a request exactly when the build succeeds.
// A rule that only the build function knows (a hidden throw) fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "support/sweep_sample.hpp"

namespace topocoll {
namespace {

std::vector<std::vector<int>> sweep_shapes() {
  std::vector<std::vector<int>> shapes;
  for (int p = 2; p <= 64; ++p) shapes.push_back({p});
  const std::vector<std::vector<int>> tori = {{2, 2},
                                              {2, 3},
                                              {3, 3},
                                              {2, 4},
                                              {4, 4},
                                              {3, 4},
                                              {3, 5},
                                              {5, 5},
                                              {4, 6},
                                              {6, 6},
                                              {2, 8},
                                              {8, 8},
                                              {1, 8},
                                              {8, 1},
                                              {1, 1},
                                              {2, 2, 2},
                                              {3, 3, 3},
                                              {2, 3, 4},
                                              {4, 4, 4},
                                              {2, 2, 4},
                                              {1, 2, 4},
                                              {3, 2, 2},
                                              {2, 6, 2},
                                              {4, 1, 2},
                                              {3, 1, 3},
                                              {2, 2, 2, 2},
                                              {2, 2, 2, 3},
                                              {2, 2, 2, 2, 2},
                                              {2, 2, 2, 2, 2, 2}};
  shapes.insert(shapes.end(), tori.begin(), tori.end());
  return shapes;
}

std::string shape_text(const std::vector<int>& dims) {
  std::string out;
  for (int size : dims) out += (out.empty() ? "" : "x") + std::to_string(size);
  return out;
}

// Port counts to try: the default (0), every count a rule can name, and one no rule names.
std::set<int> port_choices(int d) { return {0, 1, 2, d, 2 * d, 2 * d + 1}; }

std::set<int> root_choices(const AlgorithmInfo& algo, Collective c, int ranks) {
  if (!algo.uses_root(c)) return {0};
  return {0, ranks - 1, ranks};  // ranks: out of range
}

// Builds the request and touches every step of the first and the last rank, so that a lazily
// built schedule that refuses a shape late also counts as a refusal.
bool builds(const std::string& name, const ScheduleRequest& request, std::string& why) {
  try {
    const SchedulePtr schedule = registry().build(name, request);
    Step step;
    for (int rank : {0, schedule->info().ranks - 1})
      for (int k = 0; k < schedule->step_count(rank); ++k) schedule->build_step(rank, k, step);
    return true;
  } catch (const UnsupportedRequest& e) {
    why = e.what();
    return false;
  }
}

TEST(RequirementsSweepSlow, DataAcceptsExactlyWhatBuilds) {
  int accepted = 0, refused = 0;
  for (const AlgorithmInfo& algo : registry().all()) {
    for (Collective c : algo.collectives) {
      for (const auto& dims : sweep_shapes()) {
        const int d = static_cast<int>(dims.size());
        int ranks = 1;
        for (int size : dims) ranks *= size;
        for (int ports : port_choices(d)) {
          for (int root : root_choices(algo, c, ranks)) {
            for (bool commutative : {true, false}) {
              ScheduleRequest request;
              request.collective = c;
              request.ranks = ranks;
              request.dims = dims;
              request.ports = ports;
              request.root = root;
              request.commutative = commutative;
              if (!sweep::in_sample(sweep::instance_name(algo.name, " ", collective_name(c), " ",
                                                         shape_text(dims), " ports=", ports,
                                                         " root=", root, " ", commutative),
                                    ranks <= 16))
                continue;
              const bool data_accepts = !Registry::rejection(algo, request).has_value();
              std::string why;
              const bool built = builds(algo.name, request, why);
              EXPECT_EQ(data_accepts, built)
                  << algo.name << " " << collective_name(c) << " dims=" << shape_text(dims)
                  << " ports=" << ports << " root=" << root << " commutative=" << commutative
                  << (built ? "" : ": " + why);
              ++(built ? accepted : refused);
            }
          }
        }
      }
    }
  }
  EXPECT_GT(accepted, 0);
  EXPECT_GT(refused, 0);
}

// The shape rules as stated: binary cubes for the hypercube family, even sides for the Bine
// torus variants, and the root of gather-bcast for every one of its collectives.
TEST(RequirementsSweep, ShapeRulesAreData) {
  for (const char* name :
       {"hamiltonian-cycle", "hamiltonian-d-cycles", "reduce-and-spread", "hamiltonian-cycle-gray",
        "spanning-trees", "gather-bcast", "rotated-binomial"}) {
    const AlgorithmInfo& algo = registry().get(name);
    EXPECT_EQ(algo.requirements.sides, SideRule::binary_cube) << name;
    ScheduleRequest request;
    request.collective = algo.collectives.front();
    request.ranks = 16;
    request.dims = {4, 4};
    EXPECT_NE(Registry::rejection(algo, request).value_or("").find("2x2x...x2"), std::string::npos)
        << name;
    request.dims = {2, 2, 2, 2};
    EXPECT_FALSE(Registry::rejection(algo, request)) << name;
  }
  for (const char* name : {"bine-lat-torus", "bine-bw-torus"}) {
    const AlgorithmInfo& algo = registry().get(name);
    EXPECT_EQ(algo.requirements.sides, SideRule::even) << name;
    ScheduleRequest request;
    request.collective = Collective::allreduce;
    request.ranks = 24;
    request.dims = {3, 8};
    EXPECT_NE(Registry::rejection(algo, request).value_or("").find("every torus side even"),
              std::string::npos)
        << name;
    request.dims = {1, 24};
    EXPECT_FALSE(Registry::rejection(algo, request)) << name;
  }
  const AlgorithmInfo& gather_bcast = registry().get("gather-bcast");
  EXPECT_TRUE(gather_bcast.uses_root(Collective::allreduce));
  EXPECT_FALSE(registry().get("ring").uses_root(Collective::allreduce));
}

}  // namespace
}  // namespace topocoll
