// Machine files (topology/machine_file.hpp): a full file read value by value with its sources,
// the defaults of what a file leaves out, and one refusal per way a file can be malformed,
// each naming the key and the accepted values.
#include "topology/machine_file.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "core/registry.hpp"

namespace topocoll::topo {
namespace {

std::string entry(const std::string& value) {
  return R"({"value": )" + value + R"(, "source": "hand-written test value"})";
}

const std::string kFull = R"({
  "format": "topocoll-machine/1",
  "name": "test-machine",
  "description": "every key once",
  "topology": )" + entry(R"("torus:8x8")") +
                          R"(,
  "network": {
    "bandwidth": )" + entry(R"("400Gbps")") +
                          R"(,
    "link_latency": )" + entry(R"("100ns")") +
                          R"(,
    "hop_latency": )" + entry(R"("0.3us")") +
                          R"(,
    "nic_ports": )" + entry("2") +
                          R"(
  },
  "host": {
    "step_overhead": )" + entry(R"("1.5us")") +
                          R"(,
    "send_overhead": )" + entry(R"("200ns")") +
                          R"(,
    "recv_overhead": )" + entry(R"("300ns")") +
                          R"(,
    "gap": )" + entry(R"("50ns")") +
                          R"(,
    "step_cpu": )" + entry(R"("400ns")") +
                          R"(,
    "call_overhead": )" + entry(R"("0.8us")") +
                          R"(,
    "copy_rate": )" + entry(R"("20GBps")") +
                          R"(,
    "reduce_rate": )" + entry(R"("10GBps")") +
                          R"(,
    "eager_threshold": )" +
                          entry(R"("64KiB")") +
                          R"(,
    "rendezvous_overhead": )" +
                          entry(R"("1.2us")") + R"(
  }
})";

TEST(MachineFile, ReadsEveryValueWithItsSource) {
  const Machine m = parse_machine(kFull, "full.json");
  EXPECT_EQ(m.name, "test-machine");
  EXPECT_EQ(m.description, "every key once");
  ASSERT_TRUE(m.topology.has_value());
  EXPECT_EQ(*m.topology, "torus:8x8");
  EXPECT_DOUBLE_EQ(m.params.bandwidth_bytes_per_s, 50e9);
  EXPECT_DOUBLE_EQ(m.params.link_latency_s, 100e-9);
  EXPECT_DOUBLE_EQ(m.params.hop_latency_s, 300e-9);
  EXPECT_EQ(m.params.nic_ports, 2);
  EXPECT_DOUBLE_EQ(m.params.alpha_s, 1.5e-6);
  EXPECT_DOUBLE_EQ(m.params.host.send_overhead_s, 200e-9);
  EXPECT_DOUBLE_EQ(m.params.host.recv_overhead_s, 300e-9);
  EXPECT_DOUBLE_EQ(m.params.host.gap_s, 50e-9);
  EXPECT_DOUBLE_EQ(m.params.host.step_cpu_s, 400e-9);
  EXPECT_DOUBLE_EQ(m.params.host.call_overhead_s, 800e-9);
  EXPECT_DOUBLE_EQ(m.params.host.copy_s_per_byte, 1 / 20e9);
  EXPECT_DOUBLE_EQ(m.params.reduce_s_per_byte, 1 / 10e9);
  EXPECT_EQ(m.params.host.eager_threshold_bytes, 65536u);
  EXPECT_DOUBLE_EQ(m.params.host.rendezvous_s, 1.2e-6);
  EXPECT_EQ(m.sources.size(), 15u);
  EXPECT_EQ(m.sources.at("host.gap"), "hand-written test value");
  EXPECT_EQ(m.sources.at("topology"), "hand-written test value");
  // One rate for every datatype class.
  EXPECT_DOUBLE_EQ(m.params_for("float").reduce_s_per_byte, 1 / 10e9);
}

TEST(MachineFile, WhatAFileLeavesOutKeepsTheDefaults) {
  const Machine m = parse_machine(
      R"({"format": "topocoll-machine/1", "name": "bare", "description": "nothing"})", "bare");
  const NetworkParams defaults;
  EXPECT_FALSE(m.topology.has_value());
  EXPECT_EQ(m.params.bandwidth_bytes_per_s, defaults.bandwidth_bytes_per_s);
  EXPECT_EQ(m.params.link_latency_s, defaults.link_latency_s);
  EXPECT_TRUE(m.params.host.idle());
  EXPECT_TRUE(m.sources.empty());
}

TEST(MachineFile, ReductionRatesPerDatatypeClass) {
  const Machine m = parse_machine(R"({"format": "topocoll-machine/1", "name": "m",
      "description": "d", "host": {"reduce_rate": {"value": {"float": "8GBps", "double": "4GBps"},
      "source": "s"}, "eager_threshold": {"value": "none", "source": "s"}}})",
                                  "classes");
  EXPECT_DOUBLE_EQ(m.params_for("double").reduce_s_per_byte, 1 / 4e9);
  EXPECT_DOUBLE_EQ(m.params_for("float").reduce_s_per_byte, 1 / 8e9);
  EXPECT_EQ(m.params.host.eager_threshold_bytes, HostCosts::kAlwaysEager);
  try {
    (void)m.params_for("int");
    FAIL() << "no rate for int";
  } catch (const UnsupportedRequest& e) {
    EXPECT_NE(std::string(e.what()).find("accepted: double, float"), std::string::npos) << e.what();
  }
}

// `text` is refused with a message holding each of `parts`.
void expect_refused(const std::string& text, std::initializer_list<std::string> parts) {
  try {
    (void)parse_machine(text, "bad.json");
    ADD_FAILURE() << "accepted: " << text;
  } catch (const UnsupportedRequest& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("machine file 'bad.json'"), std::string::npos) << message;
    for (const auto& part : parts)
      EXPECT_NE(message.find(part), std::string::npos) << message << "\n  lacks: " << part;
  }
}

std::string with_host(const std::string& host) {
  return R"({"format": "topocoll-machine/1", "name": "m", "description": "d", "host": {)" + host +
         "}}";
}

TEST(MachineFile, MalformedFilesAreRefusedNamingTheKey) {
  expect_refused("{", {"not valid JSON"});
  expect_refused("[]", {"accepted: {KEY"});
  expect_refused(R"({"format": "topocoll-machine/2", "name": "m", "description": "d"})",
                 {"key 'format'", "topocoll-machine/1"});
  expect_refused(R"({"format": "topocoll-machine/1", "name": "Big Name", "description": "d"})",
                 {"key 'name'", "a-z, 0-9 and -"});
  expect_refused(R"({"format": "topocoll-machine/1", "name": "m"})", {"key 'description'"});
  expect_refused(R"({"format": "topocoll-machine/1", "name": "m", "description": "d", "speed": 1})",
                 {"key 'speed': is unknown", "accepted: format, name"});
  expect_refused(with_host(R"("gap": {"value": "1ns", "source": "s"}, "gap": {"value": "2ns",
                 "source": "s"})"),
                 {"key 'gap'", "appears twice"});
  expect_refused(with_host(R"("latency": {"value": "1ns", "source": "s"})"),
                 {"key 'host.latency': is unknown", "send_overhead"});
  expect_refused(with_host(R"("gap": {"value": "1ns"})"), {"key 'host.gap'", "source"});
  expect_refused(with_host(R"("gap": {"value": "1ns", "source": " "})"),
                 {"key 'host.gap'", "non-empty"});
  expect_refused(with_host(R"("gap": {"value": "1ns", "source": "s", "note": "x"})"),
                 {"key 'host.gap.note': is unknown", "value, source"});
  expect_refused(with_host(R"("gap": {"value": "fast", "source": "s"})"),
                 {"key 'host.gap'", "accepted: a number with a unit ns"});
  expect_refused(with_host(R"("gap": {"value": 5, "source": "s"})"),
                 {"key 'host.gap'", "not a string"});
  expect_refused(with_host(R"("gap": {"value": "2s", "source": "s"})"),
                 {"'host.gap'", "accepted: 0s to 1s"});
  expect_refused(with_host(R"("copy_rate": {"value": "0GBps", "source": "s"})"),
                 {"key 'host.copy_rate'", "accepted: a positive number"});
  expect_refused(with_host(R"("copy_rate": {"value": "1KBps", "source": "s"})"),
                 {"key 'host.copy_rate'", "at least 1MBps"});
  expect_refused(with_host(R"("lent_reduce_rate": {"value": "1KBps", "source": "s"})"),
                 {"key 'host.lent_reduce_rate'", "at least 1MBps"});
  expect_refused(with_host(R"("lent_rate": {"value": "1GBps", "source": "s"})"),
                 {"key 'host.lent_rate': is unknown", "lent_copy_rate, lent_reduce_rate"});
  expect_refused(with_host(R"("eager_threshold": {"value": "lots", "source": "s"})"),
                 {"key 'host.eager_threshold'", "\"none\""});
  expect_refused(with_host(R"("reduce_rate": {"value": {"half": "1GBps"}, "source": "s"})"),
                 {"key 'host.reduce_rate.half': is unknown", "float, double, int"});
  expect_refused(with_host(R"("reduce_rate": {"value": {}, "source": "s"})"),
                 {"key 'host.reduce_rate'", "no datatype class"});
  expect_refused(R"({"format": "topocoll-machine/1", "name": "m", "description": "d",
                 "network": {"nic_ports": {"value": 1.5, "source": "s"}}})",
                 {"key 'network.nic_ports'", "1..64"});
  expect_refused(R"({"format": "topocoll-machine/1", "name": "m", "description": "d",
                 "network": {"bandwidth": {"value": "1bps", "source": "s"}}})",
                 {"'network.bandwidth'", "1Mbps to 1Pbps"});
  expect_refused(R"({"format": "topocoll-machine/1", "name": "m", "description": "d",
                 "nodes": {"ranks_per_node": 4}})",
                 {"key 'nodes.ranks_per_node'", "value, source"});
}

std::string with_working_set(const std::string& points) {
  return R"({"format": "topocoll-machine/1", "name": "m", "description": "d", "working_set": )" +
         entry(points) + "}";
}

TEST(MachineFile, RatesByWorkingSetAreReadPerPointInTheEnginesUnits) {
  const Machine m = parse_machine(with_working_set(R"([
      {"bytes": "1MiB", "copy_rate": "20GBps", "reduce_rate": {"int": "10GBps"}},
      {"bytes": "64MiB", "bandwidth": "3GBps", "fabric_bandwidth": "4GBps",
       "memory_bandwidth": "8GBps", "reduce_rate": "5GBps"}])"),
                                  "table");
  ASSERT_EQ(m.working_set.size(), 2u);
  EXPECT_EQ(m.working_set[0].bytes, 1u << 20);
  EXPECT_DOUBLE_EQ(m.working_set[0].values.at("copy_s_per_byte"), 1 / 20e9);
  EXPECT_DOUBLE_EQ(m.working_set[0].values.at("reduce_s_per_byte:int"), 1 / 10e9);
  EXPECT_EQ(m.working_set[0].values.size(), 2u);
  EXPECT_EQ(m.working_set[1].bytes, 64u << 20);
  EXPECT_DOUBLE_EQ(m.working_set[1].values.at("bandwidth_bytes_per_s"), 3e9);
  EXPECT_DOUBLE_EQ(m.working_set[1].values.at("fabric_bandwidth"), 4e9);
  EXPECT_DOUBLE_EQ(m.working_set[1].values.at("memory_bandwidth"), 8e9);
  EXPECT_DOUBLE_EQ(m.working_set[1].values.at("reduce_s_per_byte"), 1 / 5e9);
  EXPECT_EQ(m.sources.at("working_set"), "hand-written test value");
}

TEST(MachineFile, LentRatesAreReadInTheHostAndPerPoint) {
  const Machine host =
      parse_machine(with_host(R"("lent_copy_rate": {"value": "10GBps", "source": "s"},
                   "lent_reduce_rate": {"value": "4GBps", "source": "s"})"),
                    "host");
  EXPECT_DOUBLE_EQ(host.params.host.lent_copy_s_per_byte, 1 / 10e9);
  EXPECT_DOUBLE_EQ(host.params.host.lent_reduce_s_per_byte, 1 / 4e9);
  EXPECT_FALSE(host.params.host.idle());
  const Machine table =
      parse_machine(with_working_set(R"([{"bytes": "32KiB", "lent_copy_rate": "12GBps",
                            "lent_reduce_rate": "4GBps"}])"),
                    "table");
  EXPECT_DOUBLE_EQ(table.working_set[0].values.at("lent_copy_s_per_byte"), 1 / 12e9);
  EXPECT_DOUBLE_EQ(table.working_set[0].values.at("lent_reduce_s_per_byte"), 1 / 4e9);
}

TEST(MachineFile, MalformedWorkingSetTablesAreRefusedNamingThePoint) {
  expect_refused(with_working_set(R"({"bytes": "1MiB"})"), {"key 'working_set'", "a list of 1"});
  expect_refused(with_working_set("[]"), {"key 'working_set'", "a list of 1"});
  expect_refused(with_working_set(R"([{"copy_rate": "1GBps"}])"),
                 {"key 'working_set[0]'", "no \"bytes\""});
  expect_refused(with_working_set(R"([{"bytes": "0B", "copy_rate": "1GBps"}])"),
                 {"key 'working_set[0].bytes'", "above 0"});
  expect_refused(with_working_set(R"([{"bytes": "1MiB"}])"),
                 {"key 'working_set[0]'", "gives no rate"});
  expect_refused(with_working_set(R"([{"bytes": "1MiB", "latency": "1ns"}])"),
                 {"key 'working_set[0].latency': is unknown", "copy_rate"});
  expect_refused(with_working_set(R"([{"bytes": "1MiB", "copy_rate": "1KBps"}])"),
                 {"key 'working_set[0].copy_rate'", "at least 1MBps"});
  expect_refused(with_working_set(R"([{"bytes": "1MiB", "lent_copy_rate": "0GBps"}])"),
                 {"key 'working_set[0].lent_copy_rate'", "accepted: a positive number"});
  expect_refused(with_working_set(R"([{"bytes": "4MiB", "copy_rate": "1GBps"},
                 {"bytes": "1MiB", "copy_rate": "2GBps"}])"),
                 {"key 'working_set[1].bytes'", "increasing sizes"});
}

TEST(MachineFile, FilesAreReadWithinALimit) {
  const std::string path = ::testing::TempDir() + "topocoll_machine_test.json";
  {
    std::ofstream out(path);
    out << kFull;
  }
  EXPECT_EQ(read_machine_file(path).name, "test-machine");
  {
    std::ofstream out(path);
    out << std::string(kMaxMachineFileBytes + 1, ' ');
  }
  EXPECT_THROW((void)read_machine_file(path), UnsupportedRequest);
  std::remove(path.c_str());
  EXPECT_THROW((void)read_machine_file(path), UnsupportedRequest);
}

}  // namespace
}  // namespace topocoll::topo
