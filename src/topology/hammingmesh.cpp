#include "topology/hammingmesh.hpp"

#include <algorithm>
#include <utility>

#include "topology/spec_parse.hpp"
#include "topology/topology_builders.hpp"

namespace topocoll::topo {

long long HammingMeshTopology::link_count(const std::vector<int>& board,
                                          const std::vector<int>& boards) {
  const long long width = static_cast<long long>(board[0]) * boards[0];
  const long long height = static_cast<long long>(board[1]) * boards[1];
  const long long mesh = height * boards[0] * (board[0] - 1) + width * boards[1] * (board[1] - 1);
  const long long trees = height * boards[0] * 2 + width * boards[1] * 2;
  return 2 * (mesh + trees);
}

HammingMeshTopology::HammingMeshTopology(std::string spec, const NetworkParams& params,
                                         std::vector<int> board, std::vector<int> boards)
    : Topology(std::move(spec), params), board_(std::move(board)) {
  const int w = board_[0] * boards[0];
  const int h = board_[1] * boards[1];
  set_grid_dims({w, h});
  reserve(w * h + w + h, link_count(board_, boards));
  for (int n = 0; n < w * h; ++n) add_node(true);
  for (int s = 0; s < w + h; ++s) add_node(false);
  ports_.assign(static_cast<std::size_t>(w) * h * 8, -1);
  const double bandwidth = params.bandwidth_bytes_per_s;
  const double latency = params.link_latency_s + params.hop_latency_s;
  const auto host = [](int n) { return numbered("h", n); };
  for (int n = 0; n < w * h; ++n) {
    for (int dim = 0; dim < 2; ++dim) {
      const int local = coordinate(n, dim) % board_[dim];
      const int step = dim == 0 ? 1 : w;
      if (local + 1 < board_[dim]) {
        const int id = add_cable(n, n + step, bandwidth, latency, host(n), host(n + step));
        record_port(n, 2 * dim, id);
        record_port(n + step, 2 * dim + 1, id + 1);
      }
      // The row's switch (dim 0) or the column's (dim 1).
      const int tree = dim == 0 ? w * h + coordinate(n, 1) : w * h + h + coordinate(n, 0);
      const std::string tree_name =
          (dim == 0 ? "row" : "col") + std::to_string(coordinate(n, 1 - dim));
      if (local == 0)
        record_port(n, 4 + 2 * dim, add_cable(n, tree, bandwidth, latency, host(n), tree_name));
      if (local == board_[dim] - 1)
        record_port(n, 4 + 2 * dim + 1, add_cable(n, tree, bandwidth, latency, host(n), tree_name));
    }
  }
}

void HammingMeshTopology::record_port(int host, int port, int link) {
  ports_[static_cast<std::size_t>(host) * 8 + static_cast<std::size_t>(port)] = link;
  const bool tree = port >= 4;
  const auto needed = static_cast<std::size_t>(link) + (tree ? 2 : 1);
  if (link_port_.size() < needed) link_port_.resize(needed);
  link_port_[static_cast<std::size_t>(link)] = {host, port, false};
  if (tree) link_port_[static_cast<std::size_t>(link) + 1] = {host, port, true};
}

int HammingMeshTopology::translated_link(int link, std::span<const int> offset) const {
  const LinkPort& p = link_port_[static_cast<std::size_t>(link)];
  const int moved = ports_[static_cast<std::size_t>(translated_node(p.host, offset)) * 8 +
                           static_cast<std::size_t>(p.port)];
  return moved + (p.towards_host ? 1 : 0);
}

// hammingmesh:AxB:XxY
TopologyPtr build_hammingmesh(std::string_view spec, std::string_view body,
                              const NetworkParams& params) {
  const std::vector<std::string_view> parts = split(body, ':');
  if (parts.size() != 2) spec_error(spec, "expected hammingmesh:AxB:XxY (board AxB, XxY boards)");
  const std::vector<int> board = parse_dims(spec, parts[0], 1, max_hosts);
  const std::vector<int> boards = parse_dims(spec, parts[1], 1, max_hosts);
  if (board.size() != 2 || boards.size() != 2) {
    spec_error(spec, "a HammingMesh has 2 dimensions: hammingmesh:AxB:XxY");
  }
  long long hosts = 1;
  for (const int size : {board[0], board[1], boards[0], boards[1]}) {
    hosts = std::min(hosts * size, max_hosts + 1);
  }
  if (hosts < 2) spec_error(spec, "a HammingMesh needs at least 2 hosts");
  check_size(spec, hosts, hosts > max_hosts ? 0 : HammingMeshTopology::link_count(board, boards));
  return std::make_unique<HammingMeshTopology>(std::string(spec), params, board, boards);
}

}  // namespace topocoll::topo
