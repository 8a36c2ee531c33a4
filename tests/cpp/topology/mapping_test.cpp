#include "topology/mapping.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "core/registry.hpp"
#include "topology/topology.hpp"

namespace topocoll::topo {
namespace {

std::string mapping_error(std::string_view spec, int ranks, const Topology& topology) {
  try {
    (void)make_mapping(spec, ranks, topology);
  } catch (const UnsupportedRequest& error) {
    return error.what();
  }
  return "";
}

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

TEST(Mapping, LinearPlacesRankOnHostOfSameId) {
  const auto torus = make_topology("torus:4x4", NetworkParams{});
  const Mapping mapping = make_mapping("linear", 10, *torus);
  ASSERT_EQ(mapping.host_of.size(), 10u);
  for (int rank = 0; rank < 10; ++rank) EXPECT_EQ(mapping.host_of[rank], rank);
}

TEST(Mapping, RandomIsADeterministicPlacementOnDistinctHosts) {
  const auto torus = make_topology("torus:8x8", NetworkParams{});
  const Mapping a = make_mapping("random:7", 64, *torus);
  const Mapping b = make_mapping("random:7", 64, *torus);
  const Mapping c = make_mapping("random:8", 64, *torus);
  EXPECT_EQ(a.host_of, b.host_of);
  EXPECT_NE(a.host_of, c.host_of);
  std::vector<int> sorted = a.host_of;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 64; ++i) EXPECT_EQ(sorted[i], i);
  EXPECT_NE(a.host_of, make_mapping("linear", 64, *torus).host_of);
  // Fewer ranks than hosts: still distinct hosts in range.
  const Mapping some = make_mapping("random:7", 10, *torus);
  std::vector<int> hosts = some.host_of;
  std::sort(hosts.begin(), hosts.end());
  EXPECT_EQ(std::unique(hosts.begin(), hosts.end()), hosts.end());
  EXPECT_LT(hosts.back(), 64);
}

TEST(Mapping, FileIsReadAndValidated) {
  const auto ring = make_topology("ring:4", NetworkParams{});
  const std::string good = write_file("map_good.csv", "# rank,host\n0,3\n1, 2\n\n2,0\n");
  EXPECT_EQ(make_mapping(good, 3, *ring).host_of, (std::vector<int>{3, 2, 0}));
  EXPECT_EQ(make_mapping("file:" + good, 3, *ring).host_of, (std::vector<int>{3, 2, 0}));

  const std::string twice = write_file("map_twice.csv", "0,1\n1,1\n");
  EXPECT_NE(mapping_error(twice, 2, *ring).find("host 1 already holds rank 0"), std::string::npos);
  const std::string missing = write_file("map_missing.csv", "0,1\n");
  EXPECT_NE(mapping_error(missing, 2, *ring).find("rank 1 has no host"), std::string::npos);
  const std::string range = write_file("map_range.csv", "0,4\n");
  EXPECT_NE(mapping_error(range, 1, *ring).find("host 4 outside [0, 3]"), std::string::npos);
  const std::string rank = write_file("map_rank.csv", "5,1\n");
  EXPECT_NE(mapping_error(rank, 1, *ring).find("rank 5 outside"), std::string::npos);
  const std::string garbage = write_file("map_garbage.csv", "0;1\n");
  EXPECT_NE(mapping_error(garbage, 1, *ring).find(":1: expected 'rank,host'"), std::string::npos);
  const std::string dup = write_file("map_dup.csv", "0,1\n0,2\n");
  EXPECT_NE(mapping_error(dup, 1, *ring).find("rank 0 placed twice"), std::string::npos);
}

TEST(Mapping, ErrorsNameTheAcceptedForms) {
  const auto ring = make_topology("ring:4", NetworkParams{});
  const std::string too_many = mapping_error("linear", 5, *ring);
  EXPECT_NE(too_many.find("5 ranks do not fit the 4 hosts"), std::string::npos);
  EXPECT_NE(too_many.find("accepted: linear, random:SEED"), std::string::npos);
  EXPECT_NE(mapping_error("random:x", 4, *ring).find("not a seed (an integer in 0.."),
            std::string::npos);
  EXPECT_NE(mapping_error("random:18446744073709551616", 4, *ring).find("not a seed"),
            std::string::npos);
  EXPECT_NE(mapping_error("/nonexistent/map.csv", 4, *ring).find("no such file"),
            std::string::npos);
  // A directory, or a file that is not UTF-8, is named as such (not a stream error).
  EXPECT_NE(mapping_error(::testing::TempDir(), 4, *ring).find("is a directory"),
            std::string::npos);
  const std::string binary = ::testing::TempDir() + "mapping_binary.csv";
  std::ofstream(binary) << "0,0\n1,\xff\n";
  EXPECT_NE(mapping_error(binary, 4, *ring).find("not UTF-8 text (byte 6)"), std::string::npos);
}

}  // namespace
}  // namespace topocoll::topo
