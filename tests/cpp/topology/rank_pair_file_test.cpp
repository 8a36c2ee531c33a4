#include "topology/rank_pair_file.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

namespace topocoll::topo {
namespace {

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

std::string problem(const std::string& path, const RankPairFormat& format, int ranks, int targets) {
  try {
    (void)read_rank_pairs(path, format, ranks, targets);
  } catch (const RankPairProblem& error) {
    return error.what();
  }
  return "";
}

const RankPairFormat kHosts{"mapping file", "host", true};
const RankPairFormat kNodes{"node mapping file", "node", false};

TEST(RankPairFile, ReadsEveryRankSkippingCommentsAndBlankLines) {
  const std::string path = write_file("pairs_good.csv", "# rank,target\n1 ,\t2\r\n\n0,0\n");
  EXPECT_EQ(read_rank_pairs(path, kHosts, 2, 3), (std::vector<int>{0, 2}));
}

// Hosts take one rank each; nodes take several (the node model's K ranks per node).
TEST(RankPairFile, OneRankPerTargetOnlyWhenAsked) {
  const std::string path = write_file("pairs_shared.csv", "0,1\n1,1\n");
  EXPECT_EQ(read_rank_pairs(path, kNodes, 2, 2), (std::vector<int>{1, 1}));
  EXPECT_NE(problem(path, kHosts, 2, 2).find(":2: host 1 already holds rank 0"), std::string::npos);
}

TEST(RankPairFile, ProblemsNameTheLineAndTheTarget) {
  const auto check = [](const std::string& name, const std::string& text,
                        const std::string& expected) {
    const std::string got = problem(write_file(name, text), kNodes, 2, 2);
    EXPECT_NE(got.find(expected), std::string::npos) << name << ": " << got;
  };
  check("pairs_form.csv", "0;1\n", ":1: expected 'rank,node', got '0;1'");
  check("pairs_rank.csv", "2,0\n", ":1: rank 2 outside [0, 1]");
  check("pairs_target.csv", "0,0\n1,-1\n", ":2: node -1 outside [0, 1]");
  check("pairs_twice.csv", "0,0\n0,1\n", ":2: rank 0 placed twice");
  check("pairs_missing.csv", "1,0\n", "rank 0 has no node");
}

}  // namespace
}  // namespace topocoll::topo
