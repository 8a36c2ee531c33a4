#include "topology/routing.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <span>
#include <string>

#include "core/registry.hpp"
#include "support/topology_test_support.hpp"
#include "topology/grid.hpp"
#include "topology/topology.hpp"

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

// The offset of host `g` from host 0, per grid dimension; empty when it is not a translation
// of the network (not a multiple of the step: a HammingMesh moves by whole boards).
std::vector<int> offset_of(const Topology& topology, int g) {
  std::vector<int> offset;
  for (std::size_t d = 0; d < topology.grid_dims().size(); ++d) {
    const int n = topology.grid_dims()[d];
    if (g % n % topology.translation_step(static_cast<int>(d)) != 0) return {};
    offset.push_back(g % n);
    g /= n;
  }
  return offset;
}

// What the flow model's symmetry reduction relies on: on tori, hypercubes, HyperX and
// HammingMesh (by whole boards), the paths between translated hosts are the translated paths
// (Topology::translated_link), shares unchanged, and a translated link joins the translated
// hosts (a switch end stays a switch end, and the host a link moves with moves); a mesh does
// not claim it.
TEST(Routing, RoutesCommuteWithTranslations) {
  for (const char* spec :
       {"ring:7", "ring:8", "torus:4x6", "torus:3x4x2", "hypercube:3", "hyperx:4x3", "hyperx:3x2x3",
        "hammingmesh:2x2:3x2", "hammingmesh:2x1:2x3", "hammingmesh:1x3:3x2"}) {
    for (const char* routing : {"minimal", "dor"}) {
      SCOPED_TRACE(std::string(spec) + " " + routing);
      const auto topology = make_topology(spec, NetworkParams{});
      const auto router = make_router(*topology, routing);
      EXPECT_TRUE(topology->translatable());
      EXPECT_TRUE(router->commutes_with_translations());
      const int hosts = topology->host_count();
      RouteSet base, moved;
      for (int g = 1; g < hosts; ++g) {
        const std::vector<int> offset = offset_of(*topology, g);
        if (offset.empty()) continue;
        auto move = [&](int node) { return topology->translated_node(node, offset); };
        for (std::size_t l = 0; l < topology->links().size(); ++l) {
          const Link& link = topology->links()[l];
          const int image_id = topology->translated_link(static_cast<int>(l), offset);
          const Link& image = topology->links()[static_cast<std::size_t>(image_id)];
          for (const auto& [end, image_end] :
               {std::pair{link.from, image.from}, std::pair{link.to, image.to}}) {
            ASSERT_EQ(image_end < hosts, end < hosts) << "link " << l << " moved by " << g;
            if (end < hosts) ASSERT_EQ(image_end, move(end)) << "link " << l << " moved by " << g;
          }
          ASSERT_EQ(topology->link_host(image_id), move(topology->link_host(static_cast<int>(l))));
        }
        for (int src = 0; src < hosts; ++src) {
          for (int dst = 0; dst < hosts; ++dst) {
            if (src == dst) continue;
            router->route_set(src, dst, base);
            router->route_set(move(src), move(dst), moved);
            ASSERT_EQ(base.shares, moved.shares);
            ASSERT_EQ(base.offsets, moved.offsets);
            for (std::size_t i = 0; i < base.links.size(); ++i)
              ASSERT_EQ(moved.links[i], topology->translated_link(base.links[i], offset))
                  << src << "->" << dst << " moved by " << g;
          }
        }
      }
    }
  }
  const auto mesh = make_topology("mesh:3x4", NetworkParams{});
  EXPECT_FALSE(mesh->translatable());
  EXPECT_FALSE(make_router(*mesh, "minimal")->commutes_with_translations());
}

TEST(Routing, HyperXAndFatTreePathsAreMinimal) {
  for (const char* spec : {"hyperx:4x3", "hyperx:3x2x3", "fattree:2:4:3:2", "fattree:3:3:2:2:2:2",
                           "fattree:radix=4:levels=3"}) {
    SCOPED_TRACE(spec);
    for (const std::string& routing : routings_for(*make_topology(spec, NetworkParams{}))) {
      expect_all_pairs_minimal(spec, routing);
    }
  }
}

TEST(Routing, FatTreeEcmpSpreadsOverEveryUpPath) {
  // 3 pods of 2 leaves (2 hosts each), 2 aggregation switches per pod, 2 cores per plane.
  const auto tree = make_topology("fattree:3:3:2:2:2:2", NetworkParams{});
  const auto ecmp = make_router(*tree, "ecmp");
  EXPECT_EQ(checked_routes(*tree, *ecmp, 0, 1).size(), 1);   // same leaf
  EXPECT_EQ(checked_routes(*tree, *ecmp, 0, 2).size(), 2);   // same pod: per aggregation switch
  const RouteSet far = checked_routes(*tree, *ecmp, 0, 11);  // other pod: aggs x cores
  ASSERT_EQ(far.size(), 4);
  std::set<int> tops;
  for (int i = 0; i < far.size(); ++i) {
    ASSERT_EQ(far.path(i).size(), 6u);
    tops.insert(tree->links()[far.path(i)[2]].to);
    EXPECT_DOUBLE_EQ(far.shares[i], 0.25);
  }
  EXPECT_EQ(tops.size(), 4u);
  // Up then down: the path climbs host -> leaf -> agg -> core and descends.
  const Link& first = tree->links()[far.path(0)[0]];
  EXPECT_EQ(first.from, 0);
  EXPECT_GE(first.to, tree->host_count());
}

TEST(Routing, FatTreeDorIsDestinationModK) {
  const auto tree = make_topology("fattree:2:4:3:2", NetworkParams{});
  const auto dor = make_router(*tree, "dor");
  const int first_spine = 12 + 4;
  for (const int dst : {3, 4, 5}) {
    const RouteSet set = checked_routes(*tree, *dor, 0, dst);
    ASSERT_EQ(set.size(), 1);
    EXPECT_EQ(tree->links()[set.path(0)[1]].to, first_spine + dst % 2);
  }
}

// Links whose two ends are switches of different dragonfly groups.
int global_links(const Topology& fly, std::span<const int> path, int nodes_per_group) {
  int count = 0;
  for (const int link : path) {
    const Link& l = fly.links()[link];
    if (l.from < fly.host_count() || l.to < fly.host_count()) continue;
    count += (l.from - fly.host_count()) / nodes_per_group !=
             (l.to - fly.host_count()) / nodes_per_group;
  }
  return count;
}

TEST(Routing, DragonflyMinimalCrossesOneGlobalCable) {
  const auto fly = make_topology("dragonfly:5:4:2:2", NetworkParams{});
  const auto minimal = make_router(*fly, "minimal");
  const auto valiant = make_router(*fly, "valiant");
  const auto dor = make_router(*fly, "dor");
  for (int src = 0; src < fly->host_count(); ++src) {
    const auto distance = hop_distances(*fly, src);
    for (int dst = 0; dst < fly->host_count(); ++dst) {
      if (src == dst) continue;
      const bool same_group = src / 8 == dst / 8;
      const RouteSet paths = checked_routes(*fly, *minimal, src, dst);
      EXPECT_EQ(paths.size(), same_group ? 1 : 2);
      for (int i = 0; i < paths.size(); ++i) {
        EXPECT_EQ(global_links(*fly, paths.path(i), 4), same_group ? 0 : 1);
        EXPECT_LE(static_cast<int>(paths.path(i).size()), distance[dst] + 2);
      }
      const RouteSet detours = checked_routes(*fly, *valiant, src, dst);
      EXPECT_EQ(detours.size(), same_group ? 1 : 3);
      for (int i = 0; i < detours.size(); ++i) {
        EXPECT_EQ(global_links(*fly, detours.path(i), 4), same_group ? 0 : 2);
      }
      EXPECT_EQ(checked_routes(*fly, *dor, src, dst).size(), 1);
    }
  }
}

TEST(Routing, DragonflyPlusMinimalPathsAreShortest) {
  expect_all_pairs_minimal("dragonfly+:3:2:3:2:2", "minimal");
  expect_all_pairs_minimal("dragonfly+:3:2:3:2:2", "dor");
  const auto fly = make_topology("dragonfly+:4:2:3:2:3", NetworkParams{});
  const auto valiant = make_router(*fly, "valiant");
  // Host 0 (group 0) to host 6 (group 1) via groups 2 and 3.
  const RouteSet detours = checked_routes(*fly, *valiant, 0, 6);
  ASSERT_EQ(detours.size(), 2);
  for (int i = 0; i < 2; ++i) EXPECT_EQ(global_links(*fly, detours.path(i), 4), 2);
  // Same group, different leaves: over both spines.
  EXPECT_EQ(checked_routes(*fly, *make_router(*fly, "minimal"), 0, 3).size(), 2);
}

TEST(Routing, HammingMeshPathsAreMinimal) {
  for (const char* spec : {"hammingmesh:2x2:3x2", "hammingmesh:4x4:2x2", "hammingmesh:3x1:2x3",
                           "hammingmesh:1x1:3x3"}) {
    SCOPED_TRACE(spec);
    expect_all_pairs_minimal(spec, "minimal");
    expect_all_pairs_minimal(spec, "dor");
  }
}

TEST(Routing, HammingMeshMinimalUsesBothBoardEdges) {
  // 4x4 boards, 2x1 boards. From local x=1 of board 0 to local x=1 of board 1: exit west,
  // enter west costs 1 + 2 + 1 = 4 hops, every other combination more: one segment.
  const auto mesh = make_topology("hammingmesh:4x4:2x1", NetworkParams{});
  const auto minimal = make_router(*mesh, "minimal");
  EXPECT_EQ(checked_routes(*mesh, *minimal, 1, 5).size(), 1);
  // From local x=1 to local x=2 of the next board: west-west costs 1 + 2 + 2 = 5, west-east
  // 1 + 2 + 1 = 4, east-east 2 + 2 + 1 = 5, east-west 2 + 2 + 2 = 6: one segment of 4 hops.
  const RouteSet one = checked_routes(*mesh, *minimal, 1, 6);
  ASSERT_EQ(one.size(), 1);
  EXPECT_EQ(one.path(0).size(), 4u);
  // From local x=0 to x=3 of the same board: on-board (3 hops) loses to the row's switch
  // (0 + 2 + 0 = 2 hops).
  const RouteSet wrap = checked_routes(*mesh, *minimal, 0, 3);
  ASSERT_EQ(wrap.size(), 1);
  EXPECT_EQ(wrap.path(0).size(), 2u);
  // A 1-wide board has two cables to each fat tree: 2 exits x 2 entries.
  const auto thin = make_topology("hammingmesh:1x1:3x3", NetworkParams{});
  EXPECT_EQ(checked_routes(*thin, *make_router(*thin, "minimal"), 0, 1).size(), 4);
  EXPECT_EQ(checked_routes(*thin, *make_router(*thin, "dor"), 0, 1).size(), 1);
}

TEST(Routing, GraphRoutesSplitOverShortestPaths) {
  // A 4-cycle of switches with a host on each: two shortest paths between opposite hosts.
  const std::string path = testing::write_cycle_graph("graph_cycle.json");
  const auto graph = make_topology("graph:" + path, NetworkParams{});
  const auto minimal = make_router(*graph, "minimal");
  const auto distance = hop_distances(*graph, 0);
  const RouteSet opposite = checked_minimal_routes(*graph, *minimal, 0, 2, distance);
  EXPECT_EQ(opposite.size(), 2);
  EXPECT_EQ(checked_minimal_routes(*graph, *minimal, 0, 1, distance).size(), 1);
  const auto dor = make_router(*graph, "dor");
  EXPECT_EQ(checked_minimal_routes(*graph, *dor, 0, 2, distance).size(), 1);
  for (int src = 0; src < 4; ++src) {
    const auto from = hop_distances(*graph, src);
    for (int dst = 0; dst < 4; ++dst) {
      if (src != dst) checked_minimal_routes(*graph, *minimal, src, dst, from);
    }
  }
  // A graph of a torus: the number of shortest paths is capped at 16.
  std::string nodes;
  std::string links;
  for (int i = 0; i < 36; ++i) {
    nodes +=
        std::string(i ? "," : "") + R"({"name": "n)" + std::to_string(i) + R"(", "host": true})";
    const int right = i / 6 * 6 + (i + 1) % 6;
    const int down = (i + 6) % 36;
    links += std::string(i ? "," : "") + R"({"from": "n)" + std::to_string(i) + R"(", "to": "n)" +
             std::to_string(right) + R"("}, {"from": "n)" + std::to_string(i) + R"(", "to": "n)" +
             std::to_string(down) + R"("})";
  }
  const std::string torus_path = ::testing::TempDir() + "graph_torus.json";
  std::ofstream(torus_path) << R"({"nodes": [)" + nodes + R"(], "links": [)" + links + "]}";
  const auto torus = make_topology("graph:" + torus_path, NetworkParams{});
  const RouteSet many = checked_minimal_routes(*torus, *make_router(*torus, "minimal"), 0,
                                               3 + 6 * 3, hop_distances(*torus, 0));
  EXPECT_EQ(many.size(), 16);
  EXPECT_DOUBLE_EQ(many.shares[0], 1.0 / 16);
}

TEST(Routing, PresetsRouteEverySampledPair) {
  for (const char* spec : {"fattree:canary", "dragonfly:lumi", "dragonfly+:leonardo",
                           "hammingmesh:2x2:8x8", "fattree:radix=8:levels=3:oversub=3"}) {
    SCOPED_TRACE(spec);
    const auto topology = make_topology(spec, NetworkParams{});
    const int hosts = topology->host_count();
    for (const std::string& routing : routings_for(*topology)) {
      const auto router = make_router(*topology, routing);
      for (int i = 0; i < 200; ++i) {
        const int src = (i * 7919) % hosts;
        const int dst = (i * 104729 + 13) % hosts;
        if (src != dst) checked_routes(*topology, *router, src, dst);
      }
    }
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
