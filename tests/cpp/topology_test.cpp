#include "topology/topology.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/registry.hpp"
#include "topology/params.hpp"
#include "topology_test_support.hpp"

namespace topocoll::topo {
namespace {

// Out-degree of every node, as a histogram {degree: nodes}.
std::map<int, int> degrees(const Topology& topology, bool hosts_only) {
  std::map<int, int> histogram;
  const int nodes = hosts_only ? topology.host_count() : topology.node_count();
  for (int node = 0; node < nodes; ++node) ++histogram[topology.out_links(node).size()];
  return histogram;
}

std::string error_of(const std::string& spec) {
  try {
    (void)make_topology(spec, NetworkParams{});
  } catch (const UnsupportedRequest& error) {
    return error.what();
  }
  return "";
}

TEST(Topology, RingHasTwoLinksPerHost) {
  const auto ring = make_topology("ring:8", NetworkParams{});
  EXPECT_EQ(ring->host_count(), 8);
  EXPECT_EQ(ring->node_count(), 8);
  EXPECT_EQ(ring->links().size(), 16u);
  EXPECT_EQ(degrees(*ring, false), (std::map<int, int>{{2, 8}}));
  EXPECT_EQ(ring->grid_dims(), std::vector<int>{8});
  const auto distance = testing::hop_distances(*ring, 0);
  EXPECT_EQ(distance[4], 4);
  EXPECT_EQ(distance[7], 1);
}

TEST(Topology, LinkLatencyIsLinkPlusHopLatency) {
  NetworkParams params;
  params.bandwidth_bytes_per_s = 1e9;
  params.link_latency_s = 100e-9;
  params.hop_latency_s = 300e-9;
  const auto ring = make_topology("ring:4", params);
  for (const Link& link : ring->links()) {
    EXPECT_DOUBLE_EQ(link.latency_s, 400e-9);
    EXPECT_DOUBLE_EQ(link.bandwidth_bytes_per_s, 1e9);
    EXPECT_FALSE(link.label.empty());
  }
}

TEST(Topology, TorusHasTwoPortsPerDimension) {
  const auto torus = make_topology("torus:4x3x5", NetworkParams{});
  EXPECT_EQ(torus->host_count(), 60);
  EXPECT_EQ(torus->links().size(), 60u * 6);
  EXPECT_EQ(degrees(*torus, false), (std::map<int, int>{{6, 60}}));
  EXPECT_EQ(torus->grid_dims(), (std::vector<int>{4, 3, 5}));
  // Dimension 0 varies fastest: node 1 is the + neighbour of node 0 along dimension 0, node 4
  // along dimension 1, node 12 along dimension 2.
  const auto distance = testing::hop_distances(*torus, 0);
  EXPECT_EQ(distance[1], 1);
  EXPECT_EQ(distance[4], 1);
  EXPECT_EQ(distance[12], 1);
  EXPECT_EQ(distance[2 + 4 * 1 + 12 * 2], 2 + 1 + 2);
}

TEST(Topology, SizeTwoTorusDimensionHasTwoCables) {
  const auto torus = make_topology("torus:2x4", NetworkParams{});
  EXPECT_EQ(degrees(*torus, false), (std::map<int, int>{{4, 8}}));
  int to_neighbour = 0;
  for (const int link : torus->out_links(0)) to_neighbour += torus->links()[link].to == 1;
  EXPECT_EQ(to_neighbour, 2);
}

TEST(Topology, MeshHasNoWrapAround) {
  const auto mesh = make_topology("mesh:4x4", NetworkParams{});
  EXPECT_EQ(mesh->links().size(), 2u * (4 * 3 * 2));
  EXPECT_EQ(degrees(*mesh, false), (std::map<int, int>{{2, 4}, {3, 8}, {4, 4}}));
  EXPECT_EQ(testing::hop_distances(*mesh, 0)[15], 6);
}

TEST(Topology, HypercubeHasOnePortPerDimension) {
  const auto cube = make_topology("hypercube:5", NetworkParams{});
  EXPECT_EQ(cube->host_count(), 32);
  EXPECT_EQ(cube->links().size(), 32u * 5);
  EXPECT_EQ(degrees(*cube, false), (std::map<int, int>{{5, 32}}));
  EXPECT_EQ(testing::hop_distances(*cube, 0)[31], 5);
  EXPECT_EQ(cube->grid_dims(), std::vector<int>(5, 2));
}

TEST(Topology, BadSpecsNameTheProblemAndTheAcceptedForms) {
  EXPECT_NE(error_of("torus:8xa").find("'a' is not an integer"), std::string::npos);
  EXPECT_NE(error_of("torus:8xa").find("accepted: ring:N"), std::string::npos);
  EXPECT_NE(error_of("ring:1").find("out of range"), std::string::npos);
  EXPECT_NE(error_of("ring:4x4").find("one size"), std::string::npos);
  EXPECT_NE(error_of("donut:4").find("unknown kind 'donut'"), std::string::npos);
  EXPECT_NE(error_of("torus").find("missing ':'"), std::string::npos);
  EXPECT_NE(error_of("torus:").find("not an integer"), std::string::npos);
  EXPECT_NE(error_of("torus:8x").find("not an integer"), std::string::npos);
  EXPECT_NE(error_of("hypercube:0").find("out of range"), std::string::npos);
}

TEST(Topology, SizeLimitIsEnforcedBeforeBuilding) {
  EXPECT_NE(error_of("torus:2048x2048").find("hosts exceed the limit of 1048576"),
            std::string::npos);
  EXPECT_NE(error_of("torus:1048576x1048576x1048576").find("exceed the limit"), std::string::npos);
  EXPECT_NE(error_of("hypercube:40").find("out of range"), std::string::npos);
}

TEST(Topology, HelpListsEveryKind) {
  const std::string help = topology_spec_help();
  for (const char* kind : {"ring:", "torus:", "mesh:", "hypercube:"}) {
    EXPECT_NE(help.find(kind), std::string::npos) << kind;
  }
}

TEST(Params, PresetsMatchThePapers) {
  const NetworkParams swing = preset_params("swing");
  EXPECT_DOUBLE_EQ(swing.bandwidth_bytes_per_s, 50e9);
  EXPECT_DOUBLE_EQ(swing.link_latency_s, 100e-9);
  EXPECT_DOUBLE_EQ(swing.hop_latency_s, 300e-9);
  EXPECT_DOUBLE_EQ(swing.alpha_s, 0);
  const NetworkParams trivance = preset_params("trivance");
  EXPECT_DOUBLE_EQ(trivance.bandwidth_bytes_per_s, 100e9);
  EXPECT_DOUBLE_EQ(trivance.hop_latency_s, 100e-9);
  EXPECT_DOUBLE_EQ(trivance.alpha_s, 1.5e-6);
  try {
    (void)preset_params("sst");
    FAIL();
  } catch (const UnsupportedRequest& error) {
    EXPECT_NE(std::string(error.what()).find("accepted: swing, trivance"), std::string::npos);
  }
}

}  // namespace
}  // namespace topocoll::topo
