#include "topology/routing.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/registry.hpp"
#include "topology/topology.hpp"
#include "topology_test_support.hpp"

namespace topocoll::topo {
namespace {

using testing::checked_minimal_routes;
using testing::checked_routes;
using testing::hop_distances;

// Every pair of hosts gets minimal paths whose shares sum to 1.
void expect_all_pairs_minimal(const std::string& spec, const std::string& routing) {
  const auto topology = make_topology(spec, NetworkParams{});
  const auto router = make_router(*topology, routing);
  for (int src = 0; src < topology->host_count(); ++src) {
    const auto distance = hop_distances(*topology, src);
    for (int dst = 0; dst < topology->host_count(); ++dst) {
      if (src != dst) checked_minimal_routes(*topology, *router, src, dst, distance);
    }
  }
}

// The dimension each link of a grid path moves along, from the node ids it joins.
int dimension_of(const Topology& grid, int link) {
  const Link& l = grid.links()[link];
  int stride = 1;
  for (int dim = 0; dim < static_cast<int>(grid.grid_dims().size()); ++dim) {
    const int n = grid.grid_dims()[dim];
    if ((l.from / stride) % n != (l.to / stride) % n) return dim;
    stride *= n;
  }
  return -1;
}

TEST(Routing, GridPathsAreMinimal) {
  for (const char* spec : {"ring:7", "ring:8", "torus:4x4", "torus:5x6", "torus:2x3x4", "mesh:3x4",
                           "mesh:2x2x3", "hypercube:4"}) {
    SCOPED_TRACE(spec);
    expect_all_pairs_minimal(spec, "minimal");
    expect_all_pairs_minimal(spec, "dor");
  }
}

TEST(Routing, DorFollowsDimensionOrderAndBreaksTiesPlus) {
  const auto torus = make_topology("torus:4x4x4", NetworkParams{});
  const auto dor = make_router(*torus, "dor");
  const int src = 0;
  const int dst = 2 + 4 * 3 + 16 * 1;  // offsets: +2 (tie), -1, +1
  const RouteSet set = checked_routes(*torus, *dor, src, dst);
  ASSERT_EQ(set.size(), 1);
  std::vector<int> dims;
  for (const int link : set.path(0)) dims.push_back(dimension_of(*torus, link));
  EXPECT_EQ(dims, (std::vector<int>{0, 0, 1, 2}));
  // The tie on dimension 0 goes +: 0 -> 1 -> 2.
  EXPECT_EQ(torus->links()[set.path(0)[0]].to, 1);
  // Dimension 1 goes - (3 = -1 mod 4): 2 -> 2 + 4 * 3.
  EXPECT_EQ(torus->links()[set.path(0)[2]].to, 2 + 12);
}

TEST(Routing, MinimalSplitsOverRotationsAndTies) {
  const auto torus = make_topology("torus:4x4x4", NetworkParams{});
  const auto minimal = make_router(*torus, "minimal");
  // One differing dimension, no tie: a single path.
  EXPECT_EQ(checked_routes(*torus, *minimal, 0, 1).size(), 1);
  // One tied dimension: + and -, half each.
  const RouteSet tie = checked_routes(*torus, *minimal, 0, 2);
  ASSERT_EQ(tie.size(), 2);
  EXPECT_DOUBLE_EQ(tie.shares[0], 0.5);
  EXPECT_NE(torus->links()[tie.path(0)[0]].to, torus->links()[tie.path(1)[0]].to);
  // Three differing dimensions, one tied: 3 rotations x 2 tie directions.
  const RouteSet mixed = checked_routes(*torus, *minimal, 0, 2 + 4 * 3 + 16 * 1);
  ASSERT_EQ(mixed.size(), 6);
  std::set<int> first_dims;
  for (int i = 0; i < mixed.size(); ++i) first_dims.insert(dimension_of(*torus, mixed.path(i)[0]));
  EXPECT_EQ(first_dims, (std::set<int>{0, 1, 2}));
}

TEST(Routing, SizeTwoTorusDimensionUsesBothCables) {
  const auto torus = make_topology("torus:2x2", NetworkParams{});
  const auto minimal = make_router(*torus, "minimal");
  const RouteSet set = checked_routes(*torus, *minimal, 0, 1);
  ASSERT_EQ(set.size(), 2);
  EXPECT_NE(set.path(0)[0], set.path(1)[0]);
  const auto dor = make_router(*torus, "dor");
  EXPECT_EQ(checked_routes(*torus, *dor, 0, 1).size(), 1);
}

TEST(Routing, HypercubePathsFlipBitsInOrder) {
  const auto cube = make_topology("hypercube:4", NetworkParams{});
  const auto dor = make_router(*cube, "dor");
  const RouteSet set = checked_routes(*cube, *dor, 0b0000, 0b1011);
  ASSERT_EQ(set.size(), 1);
  std::vector<int> nodes;
  for (const int link : set.path(0)) nodes.push_back(cube->links()[link].to);
  EXPECT_EQ(nodes, (std::vector<int>{0b0001, 0b0011, 0b1011}));
  const auto minimal = make_router(*cube, "minimal");
  EXPECT_EQ(checked_routes(*cube, *minimal, 0b0000, 0b1011).size(), 3);
}

TEST(Routing, RoutesMatchesRouteSet) {
  const auto torus = make_topology("torus:4x4", NetworkParams{});
  const auto minimal = make_router(*torus, "minimal");
  std::vector<Path> paths;
  minimal->routes(0, 5, paths);
  RouteSet set;
  minimal->route_set(0, 5, set);
  ASSERT_EQ(static_cast<int>(paths.size()), set.size());
  for (int i = 0; i < set.size(); ++i) {
    EXPECT_EQ(paths[i].links, std::vector<int>(set.path(i).begin(), set.path(i).end()));
    EXPECT_DOUBLE_EQ(paths[i].share, set.shares[i]);
  }
  EXPECT_EQ(minimal->name(), "minimal");
}

TEST(Routing, UnknownRoutingNamesTheAcceptedOnes) {
  const auto torus = make_topology("torus:4x4", NetworkParams{});
  try {
    (void)make_router(*torus, "valiant");
    FAIL();
  } catch (const UnsupportedRequest& error) {
    EXPECT_NE(std::string(error.what()).find("accepted: minimal, dor"), std::string::npos);
  }
}

}  // namespace
}  // namespace topocoll::topo
