// The `nodes` section of machine files (docs/nodes.md): every key read with its source, the
// shape `topocoll calibrate` writes (nodes.intra_node), and refusals naming the key.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "core/registry.hpp"
#include "topology/machine_file.hpp"
#include "topology/node_mapping.hpp"
#include "topology/node_topology.hpp"
#include "topology/topology.hpp"

namespace topocoll::topo {
namespace {

std::string entry(const std::string& value) {
  return R"({"value": )" + value + R"(, "source": "hand-written test value"})";
}

std::string machine(const std::string& nodes) {
  return R"({"format": "topocoll-machine/1", "name": "m", "description": "d",
             "host": {"send_overhead": )" +
         entry(R"("1us")") + R"(, "copy_rate": )" + entry(R"("10GBps")") + R"(},
             "nodes": )" +
         nodes + "}";
}

TEST(NodeMachineFile, EveryKeyIsReadWithItsSource) {
  const Machine m =
      parse_machine(machine(R"({"ranks_per_node": )" + entry("4") + R"(, "mapping": )" +
                            entry(R"("cyclic")") + R"(, "fabric": )" + entry(R"("gpu-mesh")") +
                            R"(, "fabric_bandwidth": )" + entry(R"("100GBps")") +
                            R"(, "fabric_latency": )" + entry(R"("2us")") + R"(, "nics": )" +
                            entry("4") + R"(, "nic_bandwidth": )" + entry(R"("200Gbps")") + "}"),
                    "m.json");
  ASSERT_TRUE(m.nodes);
  EXPECT_EQ(m.nodes->ranks_per_node, 4);
  EXPECT_EQ(m.nodes->mapping, "cyclic");
  EXPECT_EQ(m.nodes->fabric, Fabric::gpu_mesh);
  EXPECT_DOUBLE_EQ(m.nodes->fabric_bandwidth, 100e9);
  EXPECT_DOUBLE_EQ(*m.nodes->fabric_latency, 2e-6);
  EXPECT_EQ(m.nodes->nics, 4);
  EXPECT_DOUBLE_EQ(m.nodes->nic_bandwidth, 25e9);
  EXPECT_FALSE(m.nodes->intra_host);
  EXPECT_EQ(m.sources.at("nodes.nic_bandwidth"), "hand-written test value");
  EXPECT_EQ(m.sources.at("nodes.ranks_per_node"), "hand-written test value");
}

TEST(NodeMachineFile, AnEmptySectionIsNoNodes) {
  EXPECT_FALSE(parse_machine(machine("{}"), "m.json").nodes);
}

// What python/topocoll/calibration.py writes for an on-node pair: its wire values become the
// fabric's (latency: link plus hop), its host values the intra-node host costs over the
// machine's (the copy rate, which the pair does not give, stays the machine's).
TEST(NodeMachineFile, CalibratedIntraNodePairGivesTheFabricAndHostCosts) {
  const Machine m =
      parse_machine(machine(R"({"ranks_per_node": )" + entry("2") + R"(, "intra_node": {"network": {
        "link_latency": )" + entry(R"("400ns")") +
                            R"(, "hop_latency": )" + entry(R"("0ns")") + R"(, "bandwidth": )" +
                            entry(R"("8GBps")") + R"(}, "host": {"send_overhead": )" +
                            entry(R"("300ns")") + R"(, "recv_overhead": )" + entry(R"("250ns")") +
                            R"(, "gap": )" + entry(R"("50ns")") + R"(, "eager_threshold": )" +
                            entry(R"("16KiB")") + "}}}"),
                    "m.json");
  ASSERT_TRUE(m.nodes);
  EXPECT_EQ(m.nodes->fabric, Fabric::shared_memory);
  EXPECT_DOUBLE_EQ(m.nodes->fabric_bandwidth, 8e9);
  EXPECT_DOUBLE_EQ(*m.nodes->fabric_latency, 400e-9);
  ASSERT_TRUE(m.nodes->intra_host);
  EXPECT_DOUBLE_EQ(m.nodes->intra_host->send_overhead_s, 300e-9);
  EXPECT_DOUBLE_EQ(m.nodes->intra_host->recv_overhead_s, 250e-9);
  EXPECT_DOUBLE_EQ(m.nodes->intra_host->gap_s, 50e-9);
  EXPECT_EQ(m.nodes->intra_host->eager_threshold_bytes, 16u << 10);
  EXPECT_DOUBLE_EQ(m.nodes->intra_host->copy_s_per_byte, 1e-10);
  EXPECT_DOUBLE_EQ(m.params.host.send_overhead_s, 1e-6);  // the machine's own, unchanged
  EXPECT_EQ(m.sources.count("nodes.intra_node.host.gap"), 1u);
}

// The section's own fabric keys win over the calibrated pair.
TEST(NodeMachineFile, ExplicitFabricKeysWinOverTheCalibratedPair) {
  const Machine m = parse_machine(
      machine(R"({"fabric_bandwidth": )" + entry(R"("20GBps")") +
              R"(, "intra_node": {"network": {"bandwidth": )" + entry(R"("8GBps")") + "}}}"),
      "m.json");
  EXPECT_DOUBLE_EQ(m.nodes->fabric_bandwidth, 20e9);
}

void expect_refused(const std::string& nodes, const std::string& part) {
  try {
    (void)parse_machine(machine(nodes), "bad.json");
    ADD_FAILURE() << "accepted: " << nodes;
  } catch (const UnsupportedRequest& error) {
    EXPECT_NE(std::string(error.what()).find(part), std::string::npos) << error.what();
  }
}

TEST(NodeMachineFile, MalformedSectionsAreRefusedNamingTheKey) {
  expect_refused(R"({"ranks": )" + entry("4") + "}", "key 'nodes.ranks'");
  expect_refused(R"({"ranks_per_node": )" + entry("0") + "}", "1..1024");
  expect_refused(R"({"ranks_per_node": )" + entry("2.5") + "}", "'nodes.ranks_per_node'");
  expect_refused(R"({"nics": )" + entry("65") + "}", "1..64");
  expect_refused(R"({"fabric": )" + entry(R"("nvlink")") + "}", "shared-memory, gpu-mesh, switch");
  expect_refused(R"({"mapping": )" + entry(R"("random")") + "}", "block, cyclic, file:PATH");
  expect_refused(R"({"nic_bandwidth": )" + entry(R"("1bps")") + "}", "1Mbps to 1Pbps");
  expect_refused(R"({"fabric": )" + entry(R"("switch")") + R"(, "memory_bandwidth": )" +
                     entry(R"("100GBps")") + "}",
                 "shared-memory fabric only");
  expect_refused(R"({"ranks_per_node": 4})", "'nodes.ranks_per_node'");
  expect_refused(R"({"intra_node": {"wire": {}}})", "'nodes.intra_node.wire'");
  expect_refused(R"({"intra_node": {"host": {"reduce_rate": )" + entry(R"("1GBps")") + "}}}",
                 "'nodes.intra_node.host.reduce_rate'");
}

// Hosts only: the network under the nodes of the mapping tests (no links are crossed).
class Hosts final : public Topology {
 public:
  explicit Hosts(int hosts) : Topology("hosts", NetworkParams{}) {
    for (int h = 0; h < hosts; ++h) add_node(true);
  }
  [[nodiscard]] double host_injection_bandwidth(int) const override { return 1e9; }
};

TEST(NodeMapping, AFileGivesEachRankItsNodeLocalIndicesInRankOrder) {
  const std::string path = ::testing::TempDir() + "node_mapping.txt";
  std::ofstream(path) << "# rank,node\n0,1\n1,0\n2,1\n3,0\n";
  NodeSpec spec;
  spec.ranks_per_node = 2;
  const Hosts hosts(2);
  const NodeTopology nodes(hosts, spec);
  EXPECT_EQ(make_node_mapping("file:" + path, 4, nodes).host_of, (std::vector<int>{2, 0, 3, 1}));
  std::ofstream(path) << "0,1\n1,1\n2,1\n3,0\n";
  EXPECT_THROW((void)make_node_mapping("file:" + path, 4, nodes), UnsupportedRequest);
  EXPECT_THROW((void)make_node_mapping("block", 5, nodes), UnsupportedRequest);
}

// Link kinds and labels say which links are the node's: --links output separates them.
TEST(NodeTopology, LinksAreLabelledByNodeAndKind) {
  NodeSpec spec;
  spec.ranks_per_node = 2;
  spec.nics = 2;
  const Hosts hosts(4);
  const NodeTopology nodes(hosts, spec);
  EXPECT_EQ(nodes.nodes(), 2);
  EXPECT_EQ(nodes.host_count(), 4);
  EXPECT_EQ(nodes.nic_host(nodes.slot(1, 1)), 3);
  int intra = 0, nic = 0;
  for (const Link& l : nodes.links()) {
    if (l.kind == LinkKind::intra_node) ++intra;
    if (l.kind == LinkKind::nic) ++nic;
  }
  EXPECT_EQ(intra, 2 * (2 + 2 + 1));  // per node: two legs per rank and the memory link
  EXPECT_EQ(nic, 2 * 2 * 4);          // per NIC: its two links, one rank's two legs
  std::vector<std::string> labels;
  for (const Link& l : nodes.links()) labels.push_back(l.label);
  for (const char* label : {"n1.r0->n1.mem", "n1.memory", "n1.mem->n1.r1", "n1.r1->n1.nic1",
                            "n1.nic1->h3", "h3->n1.nic1", "n1.nic1->n1.r1"})
    EXPECT_NE(std::find(labels.begin(), labels.end(), label), labels.end()) << label;
  EXPECT_EQ(link_kind_name(LinkKind::intra_node), "intra-node");
  spec.nics = 3;
  EXPECT_THROW(NodeTopology(hosts, spec), UnsupportedRequest);
}

}  // namespace
}  // namespace topocoll::topo
