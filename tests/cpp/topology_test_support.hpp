#pragma once
// Checks shared by the topology, routing and mapping tests.
#include <gtest/gtest.h>

#include <queue>
#include <vector>

#include "topology/routing.hpp"
#include "topology/topology.hpp"

namespace topocoll::topo::testing {

// Hop distance from `src` to every node over the directed links.
inline std::vector<int> hop_distances(const Topology& topology, int src) {
  std::vector<int> distance(static_cast<std::size_t>(topology.node_count()), -1);
  std::queue<int> frontier;
  distance[src] = 0;
  frontier.push(src);
  while (!frontier.empty()) {
    const int node = frontier.front();
    frontier.pop();
    for (const int link : topology.out_links(node)) {
      const int next = topology.links()[link].to;
      if (distance[next] < 0) {
        distance[next] = distance[node] + 1;
        frontier.push(next);
      }
    }
  }
  return distance;
}

// Every path is a chain of links from src to dst and the shares sum to 1. Returns the paths.
inline RouteSet checked_routes(const Topology& topology, const Router& router, int src, int dst) {
  RouteSet set;
  router.route_set(src, dst, set);
  EXPECT_GE(set.size(), 1) << src << "->" << dst;
  double total = 0;
  for (int i = 0; i < set.size(); ++i) {
    int node = src;
    for (const int link : set.path(i)) {
      EXPECT_EQ(topology.links()[link].from, node) << src << "->" << dst << " path " << i;
      node = topology.links()[link].to;
    }
    EXPECT_EQ(node, dst) << src << "->" << dst << " path " << i;
    EXPECT_GT(set.shares[i], 0);
    total += set.shares[i];
  }
  EXPECT_NEAR(total, 1.0, 1e-12) << src << "->" << dst;
  return set;
}

// As checked_routes, and every path has the minimal hop count.
inline RouteSet checked_minimal_routes(const Topology& topology, const Router& router, int src,
                                       int dst, const std::vector<int>& distance_from_src) {
  RouteSet set = checked_routes(topology, router, src, dst);
  for (int i = 0; i < set.size(); ++i) {
    EXPECT_EQ(static_cast<int>(set.path(i).size()), distance_from_src[dst])
        << src << "->" << dst << " path " << i;
  }
  return set;
}

}  // namespace topocoll::topo::testing
