#pragma once
// Checks shared by the topology, routing and mapping tests.
#include <gtest/gtest.h>

#include <fstream>
#include <queue>
#include <string>
#include <vector>

#include "topology/routing.hpp"
#include "topology/topology.hpp"

namespace topocoll::topo::testing {

// Writes a graph file of a 4-cycle of switches with a host on each (two shortest paths
// between opposite hosts) into the test's temporary folder; returns its path.
inline std::string write_cycle_graph(const std::string& file_name) {
  const std::string path = ::testing::TempDir() + file_name;
  std::ofstream(path) << R"({"nodes": [
      {"name": "h0", "host": true}, {"name": "h1", "host": true}, {"name": "h2", "host": true},
      {"name": "h3", "host": true}, {"name": "s0"}, {"name": "s1"}, {"name": "s2"}, {"name": "s3"}],
    "links": [{"from": "h0", "to": "s0"}, {"from": "h1", "to": "s1"}, {"from": "h2", "to": "s2"},
      {"from": "h3", "to": "s3"}, {"from": "s0", "to": "s1"}, {"from": "s1", "to": "s2"},
      {"from": "s2", "to": "s3"}, {"from": "s3", "to": "s0"}]})";
  return path;
}

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
