#include "topology/node_mapping.hpp"

#include <charconv>
#include <cstdint>
#include <string>

#include "core/registry.hpp"
#include "topology/input_file.hpp"
#include "topology/spec_parse.hpp"

namespace topocoll::topo {
namespace {

// A rank,node line per rank of at most 2^20 ranks, with room for comments.
constexpr std::uint64_t kMaxNodeMappingFileBytes = std::uint64_t{64} << 20;

[[noreturn]] void node_mapping_error(std::string_view spec, const std::string& problem) {
  throw UnsupportedRequest("node mapping '" + printable(spec) + "': " + problem +
                           "; accepted: block, cyclic, file:PATH of rank,node lines");
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
    text.remove_suffix(1);
  return text;
}

bool parse_index(std::string_view text, long long& value) {
  text = trim(text);
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && error == std::errc() && end == text.data() + text.size();
}

// Per rank its node, from the file's "rank,node" lines.
std::vector<int> read_nodes(std::string_view spec, const std::string& path, int ranks, int nodes) {
  const std::string content = read_input_file(path, "node mapping file", kMaxNodeMappingFileBytes);
  std::vector<int> node_of(static_cast<std::size_t>(ranks), -1);
  std::size_t begin = 0;
  for (int number = 1; begin < content.size(); ++number) {
    const std::size_t end = std::min(content.find('\n', begin), content.size());
    const std::string_view text = trim(std::string_view(content).substr(begin, end - begin));
    begin = end + 1;
    if (text.empty() || text.front() == '#') continue;
    const std::string where = printable(path) + ":" + std::to_string(number) + ": ";
    const std::size_t comma = text.find(',');
    long long rank = 0, node = 0;
    if (comma == std::string_view::npos || !parse_index(text.substr(0, comma), rank) ||
        !parse_index(text.substr(comma + 1), node))
      node_mapping_error(spec, where + "expected 'rank,node', got " + quoted(text));
    if (rank < 0 || rank >= ranks)
      node_mapping_error(spec, where + "rank " + std::to_string(rank) + " outside [0, " +
                                   std::to_string(ranks - 1) + "]");
    if (node < 0 || node >= nodes)
      node_mapping_error(spec, where + "node " + std::to_string(node) + " outside [0, " +
                                   std::to_string(nodes - 1) + "]");
    if (node_of[static_cast<std::size_t>(rank)] >= 0)
      node_mapping_error(spec, where + "rank " + std::to_string(rank) + " placed twice");
    node_of[static_cast<std::size_t>(rank)] = static_cast<int>(node);
  }
  for (int rank = 0; rank < ranks; ++rank)
    if (node_of[static_cast<std::size_t>(rank)] < 0)
      node_mapping_error(spec, "rank " + std::to_string(rank) + " has no node");
  return node_of;
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
