#include "topology/node_mapping.hpp"

#include <string>

#include "core/registry.hpp"
#include "topology/input_file.hpp"
#include "topology/rank_pair_file.hpp"
#include "topology/spec_parse.hpp"

namespace topocoll::topo {
namespace {

[[noreturn]] void node_mapping_error(std::string_view spec, const std::string& problem) {
  throw UnsupportedRequest("node mapping '" + printable(spec) + "': " + problem +
                           "; accepted: block, cyclic, file:PATH of rank,node lines");
}

// Per rank its node, from the file's "rank,node" lines.
std::vector<int> read_nodes(std::string_view spec, const std::string& path, int ranks, int nodes) {
  try {
    return read_rank_pairs(path, {"node mapping file", "node"}, ranks, nodes);
  } catch (const RankPairProblem& problem) {
    node_mapping_error(spec, problem.what());
  }
}

}  // namespace

Mapping make_node_mapping(std::string_view spec, int ranks, const NodeTopology& topology) {
  const int k = topology.ranks_per_node();
  if (ranks < 1) node_mapping_error(spec, "the job needs at least one rank");
  if (ranks > topology.host_count())
    node_mapping_error(spec, std::to_string(ranks) + " ranks do not fit " +
                                 std::to_string(topology.nodes()) + " nodes of " +
                                 std::to_string(k) + " ranks");
  const int used = (ranks + k - 1) / k;  // the job's nodes
  Mapping m;
  m.host_of.resize(static_cast<std::size_t>(ranks));
  if (spec == "block" || spec == "cyclic") {
    const bool block = spec == "block";
    for (int r = 0; r < ranks; ++r)
      m.host_of[static_cast<std::size_t>(r)] =
          block ? topology.slot(r / k, r % k) : topology.slot(r % used, r / used);
    return m;
  }
  if (!spec.starts_with("file:") || spec.size() == 5) node_mapping_error(spec, "unknown form");
  const std::vector<int> node_of =
      read_nodes(spec, std::string(spec.substr(5)), ranks, topology.nodes());
  std::vector<int> filled(static_cast<std::size_t>(topology.nodes()), 0);
  for (int r = 0; r < ranks; ++r) {  // local indices in increasing rank order
    const int node = node_of[static_cast<std::size_t>(r)];
    int& local = filled[static_cast<std::size_t>(node)];
    if (local == k)
      node_mapping_error(
          spec, "node " + std::to_string(node) + " gets more than " + std::to_string(k) + " ranks");
    m.host_of[static_cast<std::size_t>(r)] = topology.slot(node, local++);
  }
  return m;
}

}  // namespace topocoll::topo
