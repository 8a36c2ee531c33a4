#pragma once
// What a node of the machine is (docs/nodes.md): K ranks on an intra-node fabric and M NICs
// into the network. A machine file's `nodes` section or `--ranks-per-node K` give it;
// node_topology.hpp turns a network and a NodeSpec into the network the engines run on.
#include <optional>
#include <string>
#include <string_view>

#include "topology/topology.hpp"

namespace topocoll::topo {

// How the ranks of one node reach each other.
enum class Fabric : std::uint8_t {
  // Copies through memory: each rank copies at most fabric_bandwidth (its copy rate), and all
  // intra-node transfers of the node together at most memory_bandwidth.
  shared_memory,
  gpu_mesh,     // a link of fabric_bandwidth between every pair of ranks (GPUs fully connected)
  node_switch,  // one port of fabric_bandwidth per rank on a switch inside the node
};

struct NodeSpec {
  int ranks_per_node = 1;         // K
  std::string mapping = "block";  // "block" (r / K), "cyclic" (r % N) or "file:PATH"
  Fabric fabric = Fabric::shared_memory;
  // Bytes per second; 0 = unset, resolved by the node topology (docs/nodes.md "Defaults"):
  double fabric_bandwidth = 0;  // per rank (shared memory), per pair (mesh), per port (switch)
  double memory_bandwidth = 0;  // shared memory only: node-wide; 0 = no node-wide cap
  double nic_bandwidth = 0;     // per NIC, each direction; 0 = its network ports' sum
  // Rank to rank through the fabric, seconds; unset = the network's link latency.
  std::optional<double> fabric_latency;
  int nics = 1;  // M: network hosts per node; rank of local index l uses NIC l % M
  // LogGP host costs of a message between two ranks of one node (a calibration's on-node
  // pair); unset: the machine's host costs for every message.
  std::optional<HostCosts> intra_host;

  // Whether the spec changes nothing: one rank per node on one NIC of the network's own
  // speed, placed in rank order. Callers then run the plain network, bit for bit as without
  // nodes.
  [[nodiscard]] bool trivial() const {
    return ranks_per_node == 1 && nics == 1 && nic_bandwidth == 0 && !intra_host &&
           !mapping.starts_with("file:");
  }
};

inline constexpr int kMaxRanksPerNode = 1024;
inline constexpr int kMaxNicsPerNode = 64;

// "shared-memory", "gpu-mesh" or "switch"; throws UnsupportedRequest naming the accepted ones.
[[nodiscard]] Fabric parse_fabric(std::string_view name);
[[nodiscard]] std::string_view fabric_name(Fabric fabric);
// Throws UnsupportedRequest, one line naming the field and its accepted values, for a spec
// outside the ranges (K in 1..1024, M in 1..64, rates within the bandwidth range, a mapping of
// an accepted form).
void check_node_spec(const NodeSpec& spec);

}  // namespace topocoll::topo
