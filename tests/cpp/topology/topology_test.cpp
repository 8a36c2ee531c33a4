#include "topology/topology.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>

#include "core/registry.hpp"
#include "support/topology_test_support.hpp"
#include "topology/params.hpp"
#include "topology/units.hpp"

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

TEST(Topology, HyperXLinksEveryHostOfARow) {
  const auto hyperx = make_topology("hyperx:4x3", NetworkParams{});
  EXPECT_EQ(hyperx->host_count(), 12);
  EXPECT_EQ(hyperx->links().size(), 12u * (3 + 2));
  EXPECT_EQ(degrees(*hyperx, false), (std::map<int, int>{{5, 12}}));
  EXPECT_EQ(hyperx->grid_dims(), (std::vector<int>{4, 3}));
  const auto distance = testing::hop_distances(*hyperx, 0);
  EXPECT_EQ(distance[3], 1);
  EXPECT_EQ(distance[8], 1);
  EXPECT_EQ(distance[11], 2);
}

TEST(Topology, TwoLevelFatTree) {
  const auto tree = make_topology("fattree:2:4:3:2", NetworkParams{});
  EXPECT_EQ(tree->host_count(), 12);
  EXPECT_EQ(tree->node_count(), 12 + 4 + 2);
  EXPECT_EQ(tree->links().size(), 2u * (12 + 4 * 2));
  EXPECT_EQ(degrees(*tree, true), (std::map<int, int>{{1, 12}}));
  std::map<int, int> switches;
  for (int node = 12; node < tree->node_count(); ++node) ++switches[tree->out_links(node).size()];
  EXPECT_EQ(switches, (std::map<int, int>{{3 + 2, 4}, {4, 2}}));
  const auto distance = testing::hop_distances(*tree, 0);
  EXPECT_EQ(distance[2], 2);
  EXPECT_EQ(distance[3], 4);
  EXPECT_TRUE(tree->grid_dims().empty());
}

TEST(Topology, CanaryPresetIsTheFgcs24Fabric) {
  const auto tree = make_topology("fattree:canary", NetworkParams{});
  EXPECT_EQ(tree->host_count(), 1024);
  EXPECT_EQ(tree->node_count(), 1024 + 64);
  // 1024 host cables and 32 x 32 leaf-spine cables, two directions each.
  EXPECT_EQ(tree->links().size(), 2u * (1024 + 1024));
  EXPECT_EQ(preset_params("canary").bandwidth_bytes_per_s, 100e9 / 8);
}

TEST(Topology, ThreeLevelFatTreeFromRadix) {
  // The k-ary fat tree for k = 4: 4 pods of 2 leaves and 2 aggregation switches, 4 cores,
  // 16 hosts; every switch has 4 ports.
  const auto tree = make_topology("fattree:radix=4:levels=3", NetworkParams{});
  EXPECT_EQ(tree->host_count(), 16);
  EXPECT_EQ(tree->node_count(), 16 + 8 + 8 + 4);
  EXPECT_EQ(tree->links().size(), 2u * (16 + 16 + 16));
  for (int node = 16; node < tree->node_count(); ++node) {
    EXPECT_EQ(tree->out_links(node).size(), 4u) << node;
  }
  EXPECT_EQ(testing::hop_distances(*tree, 0)[15], 6);
  // 2:1 oversubscribed radix-6 leaves: 4 hosts and 2 up-links each.
  const auto tapered = make_topology("fattree:radix=6:oversub=2", NetworkParams{});
  EXPECT_EQ(tapered->host_count(), 6 * 4);
  EXPECT_EQ(tapered->node_count(), 24 + 6 + 2);
}

TEST(Topology, HostCableBundlesTheNicPorts) {
  NetworkParams params;
  params.nic_ports = 4;
  const auto tree = make_topology("fattree:2:2:2:2", params);
  EXPECT_DOUBLE_EQ(tree->links()[tree->out_links(0)[0]].bandwidth_bytes_per_s,
                   4 * params.bandwidth_bytes_per_s);
}

TEST(Topology, DragonflyGroupsAndGlobalCables) {
  // 5 groups of 4 all-to-all routers with 2 hosts each; 4 x 2 = 8 global ports per group
  // join each of the 4 other groups with 2 cables.
  const auto fly = make_topology("dragonfly:5:4:2:2", NetworkParams{});
  EXPECT_EQ(fly->host_count(), 40);
  EXPECT_EQ(fly->node_count(), 40 + 20);
  EXPECT_EQ(fly->links().size(), 2u * (40 + 5 * 6 + 10 * 2));
  std::map<int, int> routers;
  for (int node = 40; node < fly->node_count(); ++node) ++routers[fly->out_links(node).size()];
  EXPECT_EQ(routers, (std::map<int, int>{{2 + 3 + 2, 20}}));
  const auto distance = testing::hop_distances(*fly, 0);
  EXPECT_EQ(distance[1], 2);
  EXPECT_EQ(distance[2], 3);
  for (int host = 8; host < 40; ++host) EXPECT_LE(distance[host], 5) << host;
}

TEST(Topology, DragonflyPlusGroupsAreLeafSpine) {
  // 3 groups of 2 leaves (3 hosts each) and 2 spines with 2 global ports: 2 cables per pair.
  const auto fly = make_topology("dragonfly+:3:2:3:2:2", NetworkParams{});
  EXPECT_EQ(fly->host_count(), 18);
  EXPECT_EQ(fly->node_count(), 18 + 3 * 4);
  EXPECT_EQ(fly->links().size(), 2u * (18 + 3 * 4 + 3 * 2));
  const auto distance = testing::hop_distances(*fly, 0);
  EXPECT_EQ(distance[3], 4);
  EXPECT_EQ(distance[6], 5);
}

TEST(Topology, MachinePresetsHaveThePapersGroupSizes) {
  const auto lumi = make_topology("dragonfly:lumi", NetworkParams{});
  EXPECT_EQ(lumi->host_count(), 24 * 124);
  const auto leonardo = make_topology("dragonfly+:leonardo", NetworkParams{});
  EXPECT_EQ(leonardo->host_count(), 23 * 180);
}

TEST(Topology, HammingMeshBoardsAndFatTrees) {
  // Hx2Mesh with 3x2 boards: a 6x4 grid; every host is on a board edge in both dimensions.
  const auto hx2 = make_topology("hammingmesh:2x2:3x2", NetworkParams{});
  EXPECT_EQ(hx2->host_count(), 24);
  EXPECT_EQ(hx2->node_count(), 24 + 4 + 6);
  EXPECT_EQ(hx2->grid_dims(), (std::vector<int>{6, 4}));
  // Every host: one on-board neighbour and one fat-tree cable per dimension.
  EXPECT_EQ(degrees(*hx2, true), (std::map<int, int>{{4, 24}}));
  const auto distance = testing::hop_distances(*hx2, 0);
  EXPECT_EQ(distance[1], 1);  // same board
  EXPECT_EQ(distance[2], 2);  // next board, through the row's switch
  EXPECT_EQ(distance[5], 2);
  EXPECT_EQ(distance[3], 2);  // east edge of the next board, through the row's switch
  EXPECT_EQ(distance[7], 2);  // (1, 1): on the board
  EXPECT_EQ(distance[9], 3);  // (3, 1): the row's switch and one on-board hop
  // 4x4 boards: the inner hosts have no fat-tree cable; a board's far edge is 2 hops away.
  const auto hx4 = make_topology("hammingmesh:4x4:2x2", NetworkParams{});
  EXPECT_EQ(degrees(*hx4, true), (std::map<int, int>{{4, 64}}));
  EXPECT_EQ(testing::hop_distances(*hx4, 0)[3], 2);
  EXPECT_EQ(testing::hop_distances(*hx4, 1)[2], 1);
  EXPECT_EQ(testing::hop_distances(*hx4, 1 + 8)[2 + 8], 1);
}

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

TEST(Topology, GraphFileWithPerLinkParameters) {
  const std::string path = write_file("graph_ok.json", R"({
    "nodes": [{"name": "s0"}, {"name": "a", "host": true}, {"name": "b", "host": true},
              {"name": "c", "host": true}],
    "links": [{"from": "a", "to": "s0", "bandwidth": "100Gbps", "latency": "1us"},
              {"from": "b", "to": "s0"},
              {"from": "c", "to": "s0", "bandwidth": "25GB/s", "bidirectional": false},
              {"from": "s0", "to": "c", "latency": "2ns", "bidirectional": false}]})");
  NetworkParams params;
  params.hop_latency_s = 300e-9;
  const auto graph = make_topology("graph:" + path, params);
  EXPECT_EQ(graph->host_count(), 3);
  EXPECT_EQ(graph->node_count(), 4);
  ASSERT_EQ(graph->links().size(), 6u);
  // Hosts first in file order: a = 0, b = 1, c = 2, then s0 = 3.
  const Link& a_up = graph->links()[0];
  EXPECT_EQ(a_up.from, 0);
  EXPECT_EQ(a_up.to, 3);
  EXPECT_DOUBLE_EQ(a_up.bandwidth_bytes_per_s, 100e9 / 8);
  EXPECT_NEAR(a_up.latency_s, 1.3e-6, 1e-15);
  EXPECT_EQ(a_up.label, "a->s0");
  EXPECT_DOUBLE_EQ(graph->links()[2].bandwidth_bytes_per_s, params.bandwidth_bytes_per_s);
  EXPECT_DOUBLE_EQ(graph->links()[4].bandwidth_bytes_per_s, 25e9);
  EXPECT_NEAR(graph->links()[5].latency_s, 302e-9, 1e-15);
}

TEST(Topology, BadGraphFilesAreRejected) {
  const auto graph_error = [](const std::string& name, const std::string& text) {
    return error_of("graph:" + write_file(name, text));
  };
  EXPECT_NE(error_of("graph:/nonexistent.json").find("no such file"), std::string::npos);
  EXPECT_NE(graph_error("g1.json", "{").find("not valid JSON"), std::string::npos);
  EXPECT_NE(graph_error("g2.json", "{}").find("needs an array \"nodes\""), std::string::npos);
  const std::string nodes =
      R"("nodes": [{"name": "a", "host": true}, {"name": "b", "host": true}])";
  EXPECT_NE(graph_error("g3.json", "{" + nodes + R"(, "links": [{"from": "a", "to": "z"}]})")
                .find("unknown node 'z'"),
            std::string::npos);
  EXPECT_NE(graph_error("g4.json", "{" + nodes + R"(, "links": []})").find("not connected"),
            std::string::npos);
  EXPECT_NE(
      graph_error("g5.json",
                  "{" + nodes + R"(, "links": [{"from": "a", "to": "b", "bandwidth": "fast"}]})")
          .find("rate 'fast' is not understood"),
      std::string::npos);
  EXPECT_NE(
      graph_error("g6.json",
                  "{" + nodes + R"(, "links": [{"from": "a", "to": "b", "bidirectional": false}]})")
          .find("not connected both ways"),
      std::string::npos);
  EXPECT_NE(graph_error("g7.json", R"({"nodes": [{"name": "a", "host": "yes"}], "links": []})")
                .find("nodes[0].host: expected true or false, got the string 'yes'"),
            std::string::npos);
  EXPECT_NE(graph_error("g8.json",
                        R"({"nodes": [{"name": "a", "host": true}, {"name": "a"}], "links": []})")
                .find("defined twice"),
            std::string::npos);
}

TEST(Topology, GraphFilesRejectUnknownKeysAndValuesOutOfRange) {
  const auto graph_error = [](const std::string& name, const std::string& text) {
    return error_of("graph:" + write_file(name, text));
  };
  const std::string nodes =
      R"("nodes": [{"name": "a", "host": true}, {"name": "b", "host": true}])";
  const auto with_link = [&](const std::string& link) {
    return "{" + nodes + R"(, "links": [)" + link + "]}";
  };
  // A misspelt key is named with the accepted ones, at every level, with the file.
  const std::string top = graph_error("k1.json", "{" + nodes + R"(, "links": [], "link": []})");
  EXPECT_NE(top.find("graph file '"), std::string::npos) << top;
  EXPECT_NE(top.find("k1.json': unknown key 'link'; accepted keys: nodes, links"),
            std::string::npos)
      << top;
  EXPECT_NE(graph_error("k2.json", R"({"nodes": [{"name": "a", "hots": true}], "links": []})")
                .find("nodes[0]: unknown key 'hots'; accepted keys: name, host"),
            std::string::npos);
  EXPECT_NE(graph_error("k3.json", with_link(R"({"from": "a", "to": "b", "bandwith": "1Gbps"})"))
                .find("links[0]: unknown key 'bandwith'; accepted keys: from, to, bandwidth, "
                      "latency, bidirectional"),
            std::string::npos);
  // Values of the wrong type or out of the parameter table's range.
  EXPECT_NE(graph_error("k4.json", with_link(R"({"from": "a", "to": "b", "bandwidth": 400})"))
                .find("links[0].bandwidth: expected a string with a unit"),
            std::string::npos);
  EXPECT_NE(graph_error("k5.json", with_link(R"({"from": "a", "to": "b", "bandwidth": "1bps"})"))
                .find("links[0].bandwidth 0.125 B/s is out of range; accepted: 1Mbps to 1Pbps"),
            std::string::npos);
  EXPECT_NE(graph_error("k6.json", with_link(R"({"from": "a", "to": "b", "latency": "2s"})"))
                .find("links[0].latency 2 s is out of range; accepted: 0s to 1s"),
            std::string::npos);
  EXPECT_NE(graph_error("k7.json", with_link(R"({"from": "a", "to": 7})"))
                .find("links[0].to: expected a non-empty string, got a number"),
            std::string::npos);
  EXPECT_NE(graph_error("k8.json", with_link(R"({"from": "a", "to": "b", "bidirectional": 1})"))
                .find("links[0].bidirectional: expected true or false"),
            std::string::npos);
  EXPECT_NE(graph_error("k9.json", with_link(R"({"from": "a"})")).find("\"to\" is required"),
            std::string::npos);
  EXPECT_NE(graph_error("k10.json", R"({"nodes": [{"name": ""}], "links": []})")
                .find("nodes[0].name: expected a non-empty string"),
            std::string::npos);
  // A control character in a name is escaped: the message stays on one line.
  const std::string escaped = graph_error(
      "k11.json", R"({"nodes": [{"name": "a\n", "host": true}, {"name": "a\n"}], "links": []})");
  EXPECT_NE(escaped.find("node 'a\\n' is defined twice"), std::string::npos) << escaped;
  // A key given twice in one object (JSON leaves it to the reader, which kept the last).
  EXPECT_NE(graph_error("k13.json", "{" + nodes + R"(, "links": [], "links": []})")
                .find("the key 'links' appears twice in one object"),
            std::string::npos);
  EXPECT_NE(graph_error("k14.json", with_link(R"({"from": "a", "to": "b", "to": "a"})"))
                .find("the key 'to' appears twice"),
            std::string::npos);
  // The file itself: a directory, or bytes that are not UTF-8.
  EXPECT_NE(error_of("graph:" + ::testing::TempDir()).find("is a directory"), std::string::npos);
  EXPECT_NE(graph_error("k12.json", "{\"nodes\": [\xff]}").find("not UTF-8 text (byte 11)"),
            std::string::npos);
}

TEST(Units, RatesAndTimes) {
  EXPECT_DOUBLE_EQ(parse_rate("400Gbps"), 50e9);
  EXPECT_DOUBLE_EQ(parse_rate("1.6Tbps"), 200e9);
  EXPECT_DOUBLE_EQ(parse_rate("50GBps"), 50e9);
  EXPECT_DOUBLE_EQ(parse_rate("12.5GB/s"), 12.5e9);
  EXPECT_DOUBLE_EQ(parse_rate(" 100 kbit/s "), 12.5e3);
  EXPECT_DOUBLE_EQ(parse_rate(".8Kbps"), 100);
  EXPECT_DOUBLE_EQ(parse_time("100ns"), 100e-9);
  EXPECT_DOUBLE_EQ(parse_time("1.5us"), 1.5e-6);
  EXPECT_DOUBLE_EQ(parse_time("2 \u00b5s"), 2e-6);
  EXPECT_DOUBLE_EQ(parse_time("2ms"), 2e-3);
  EXPECT_DOUBLE_EQ(parse_time("0s"), 0);
  for (const char* bad : {"400", "400gbps", "-1Gbps", "0Gbps", "Gbps", "", "1e3Gbps", "1.Gbps"}) {
    EXPECT_THROW((void)parse_rate(bad), UnsupportedRequest) << bad;
  }
  for (const char* bad : {"100", "-1ns", "nan", "1e400s", "5ps", "1.5 u s"}) {
    EXPECT_THROW((void)parse_time(bad), UnsupportedRequest) << bad;
  }
  try {
    (void)parse_rate("fast");
  } catch (const UnsupportedRequest& error) {
    EXPECT_NE(std::string(error.what()).find("accepted: a positive number with a unit bps"),
              std::string::npos);
  }
}

TEST(Topology, BadSpecsNameTheProblemAndTheAcceptedForms) {
  EXPECT_NE(error_of("hammingmesh:2x2").find("expected hammingmesh:AxB:XxY"), std::string::npos);
  EXPECT_NE(error_of("hammingmesh:2x2x2:2x2").find("2 dimensions"), std::string::npos);
  EXPECT_NE(
      error_of("dragonfly:10:2:2:1").find("2 global ports per group cannot reach the other 9"),
      std::string::npos);
  EXPECT_NE(error_of("dragonfly:4:4").find("expected dragonfly:GROUPS"), std::string::npos);
  EXPECT_NE(error_of("dragonfly+:4:4:4:4").find("expected dragonfly+:GROUPS"), std::string::npos);
  EXPECT_NE(error_of("fattree:2:4:4").find("expected fattree:2:LEAVES"), std::string::npos);
  EXPECT_NE(error_of("fattree:radix=10:oversub=2").find("not divisible"), std::string::npos);
  EXPECT_NE(error_of("fattree:radix=8:color=red").find("unknown fat tree parameter"),
            std::string::npos);
  EXPECT_NE(error_of("fattree:levels=3").find("missing radix"), std::string::npos);
  EXPECT_NE(error_of("fattree:3:1024:1024:1024:1:1").find("hosts exceed"), std::string::npos);
  EXPECT_NE(error_of("torus:8xa").find("'a' is not an integer"), std::string::npos);
  EXPECT_NE(error_of("torus:8xa").find("accepted: ring:N"), std::string::npos);
  EXPECT_NE(error_of("ring:1").find("ring size 1 is out of range [2, 1048576]"), std::string::npos);
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
  // 2^20 hosts would fit, but their 20 x 2^20 links do not: the dimension's range says so.
  EXPECT_NE(error_of("hypercube:20").find("hypercube dimension 20 is out of range [1, 19]"),
            std::string::npos);
}

TEST(Topology, FatTreeParametersGivenTwiceAreRefused) {
  EXPECT_NE(error_of("fattree:radix=8:levels=3:levels=2").find("'levels' is given twice"),
            std::string::npos);
  EXPECT_NE(error_of("fattree:radix=8:radix=4").find("'radix' is given twice"), std::string::npos);
}

TEST(Topology, HelpListsEveryKind) {
  const std::string help = topology_spec_help();
  for (const char* kind :
       {"ring:", "torus:", "mesh:", "hypercube:", "hyperx:", "fattree:2:", "fattree:3:",
        "fattree:radix=", "fattree:canary", "dragonfly:", "dragonfly:lumi",
        "dragonfly+:", "dragonfly+:leonardo", "hammingmesh:", "graph:"}) {
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
    EXPECT_NE(std::string(error.what()).find("accepted: swing, trivance, canary"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace topocoll::topo
