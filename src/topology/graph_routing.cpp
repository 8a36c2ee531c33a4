#include "topology/graph_routing.hpp"

#include <array>
#include <queue>

namespace topocoll::topo {

GraphRouter::GraphRouter(const Topology& topology, bool minimal)
    : topology_(topology),
      minimal_(minimal),
      in_links_(static_cast<std::size_t>(topology.node_count())),
      distance_to_(static_cast<std::size_t>(topology.host_count())) {
  for (int id = 0; id < static_cast<int>(topology.links().size()); ++id) {
    in_links_[topology.links()[id].to].push_back(id);
  }
}

const std::vector<int>& GraphRouter::distances_to(int dst) const {
  const std::lock_guard lock(mutex_);
  if (distance_to_[dst]) return *distance_to_[dst];
  auto distance = std::make_unique<std::vector<int>>(topology_.node_count(), -1);
  std::queue<int> frontier;
  (*distance)[dst] = 0;
  frontier.push(dst);
  while (!frontier.empty()) {
    const int node = frontier.front();
    frontier.pop();
    for (const int link : in_links_[node]) {
      const int previous = topology_.links()[link].from;
      if ((*distance)[previous] < 0) {
        (*distance)[previous] = (*distance)[node] + 1;
        frontier.push(previous);
      }
    }
  }
  distance_to_[dst] = std::move(distance);
  return *distance_to_[dst];
}

void GraphRouter::route_set(int src, int dst, RouteSet& out) const {
  out.clear();
  if (src == dst) return;
  const std::vector<int>& distance = distances_to(dst);
  const int length = distance[src];
  if (length < 0) return;  // unreachable: GraphTopology rejects such host pairs
  const int wanted = minimal_ ? max_paths : 1;
  // Depth-first over the shortest-path DAG; `next[d]` is the index in the out-links of the
  // node at depth d of the link to try next.
  // Scratch reused across calls (per thread), so routing allocates only while paths grow.
  thread_local std::vector<int> nodes;
  thread_local std::vector<std::size_t> next;
  thread_local std::vector<int> path;
  nodes.resize(static_cast<std::size_t>(length) + 1);
  next.assign(static_cast<std::size_t>(length) + 1, 0);
  path.resize(static_cast<std::size_t>(length));
  nodes[0] = src;
  int depth = 0;
  int found = 0;
  while (depth >= 0 && found < wanted) {
    if (depth == length) {
      out.links.insert(out.links.end(), path.begin(), path.end());
      out.close_path(0);
      ++found;
      --depth;
      continue;
    }
    const std::vector<int>& candidates = topology_.out_links(nodes[depth]);
    bool advanced = false;
    while (next[depth] < candidates.size()) {
      const int link = candidates[next[depth]++];
      const int to = topology_.links()[link].to;
      if (distance[to] == length - depth - 1) {
        path[depth] = link;
        nodes[depth + 1] = to;
        next[depth + 1] = 0;
        ++depth;
        advanced = true;
        break;
      }
    }
    if (!advanced) --depth;
  }
  for (double& share : out.shares) share = 1.0 / found;
}

}  // namespace topocoll::topo
