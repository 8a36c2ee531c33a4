#include "topology/rank_pair_file.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>

#include "topology/input_file.hpp"
#include "topology/spec_parse.hpp"

namespace topocoll::topo {
namespace {

constexpr std::uint64_t kMaxRankPairFileBytes = std::uint64_t{64} << 20;

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

std::string outside(std::string_view what, long long value, int count) {
  return std::string(what) + " " + std::to_string(value) + " outside [0, " +
         std::to_string(count - 1) + "]";
}

}  // namespace

std::vector<int> read_rank_pairs(const std::string& path, const RankPairFormat& format, int ranks,
                                 int targets) {
  const std::string content = read_input_file(path, format.what, kMaxRankPairFileBytes);
  const std::string target(format.target);
  std::vector<int> target_of(static_cast<std::size_t>(ranks), -1);
  std::vector<int> rank_on(format.one_rank_per_target ? static_cast<std::size_t>(targets) : 0, -1);
  std::size_t begin = 0;
  for (int number = 1; begin < content.size(); ++number) {
    const std::size_t end = std::min(content.find('\n', begin), content.size());
    const std::string_view text = trim(std::string_view(content).substr(begin, end - begin));
    begin = end + 1;
    if (text.empty() || text.front() == '#') continue;
    const std::string where = printable(path) + ":" + std::to_string(number) + ": ";
    const std::size_t comma = text.find(',');
    long long rank = 0, placed = 0;
    if (comma == std::string_view::npos || !parse_index(text.substr(0, comma), rank) ||
        !parse_index(text.substr(comma + 1), placed))
      throw RankPairProblem(where + "expected 'rank," + target + "', got " + quoted(text));
    if (rank < 0 || rank >= ranks) throw RankPairProblem(where + outside("rank", rank, ranks));
    if (placed < 0 || placed >= targets)
      throw RankPairProblem(where + outside(target, placed, targets));
    int& mine = target_of[static_cast<std::size_t>(rank)];
    if (mine >= 0) throw RankPairProblem(where + "rank " + std::to_string(rank) + " placed twice");
    if (format.one_rank_per_target) {
      int& holder = rank_on[static_cast<std::size_t>(placed)];
      if (holder >= 0)
        throw RankPairProblem(where + target + " " + std::to_string(placed) +
                              " already holds rank " + std::to_string(holder));
      holder = static_cast<int>(rank);
    }
    mine = static_cast<int>(placed);
  }
  for (int rank = 0; rank < ranks; ++rank)
    if (target_of[static_cast<std::size_t>(rank)] < 0)
      throw RankPairProblem("rank " + std::to_string(rank) + " has no " + target);
  return target_of;
}

}  // namespace topocoll::topo
