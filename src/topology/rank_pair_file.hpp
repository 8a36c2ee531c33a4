#pragma once
// A file of "rank,TARGET" lines, one per rank: a mapping file (TARGET a host, mapping.cpp) or a
// node mapping file (TARGET a node, node_mapping.cpp). Blank lines and lines that start with
// '#' are skipped; spaces and tabs around the numbers are allowed.
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace topocoll::topo {

// A line of the file that is not one: the problem, with "PATH:LINE: " where a line has it. The
// caller names its spec and the accepted forms around it.
class RankPairProblem : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RankPairFormat {
  std::string_view what;    // the file's role in messages: "mapping file"
  std::string_view target;  // what a rank is placed on: "host", "node"
  bool one_rank_per_target = false;
};

// Per rank its target in [0, targets): every rank once, each line in range (and each target
// once when `one_rank_per_target`). The file may hold a line per rank of 2^20 ranks with room
// for comments (64 MiB).
[[nodiscard]] std::vector<int> read_rank_pairs(const std::string& path,
                                               const RankPairFormat& format, int ranks,
                                               int targets);

}  // namespace topocoll::topo
