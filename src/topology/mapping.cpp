// Rank placement: linear, random:SEED (a seeded Fisher-Yates shuffle of the hosts with our own
// generator, so the permutation is the same on every platform), or a file of "rank,host" lines.
#include "topology/mapping.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <numeric>

#include "core/registry.hpp"
#include "topology/input_file.hpp"
#include "topology/rank_pair_file.hpp"
#include "topology/spec_parse.hpp"

namespace topocoll::topo {

namespace {

constexpr const char* accepted =
    "accepted: linear, random:SEED, file:PATH (or a PATH) of rank,host lines";

[[noreturn]] void mapping_error(std::string_view spec, const std::string& problem) {
  throw UnsupportedRequest("mapping '" + printable(spec) + "': " + problem + "; " + accepted);
}

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

Mapping random_mapping(std::string_view spec, std::string_view seed_text, int ranks, int hosts) {
  std::uint64_t seed = 0;
  const auto [end, error] =
      std::from_chars(seed_text.data(), seed_text.data() + seed_text.size(), seed);
  if (seed_text.empty() || error != std::errc() || end != seed_text.data() + seed_text.size()) {
    mapping_error(spec, quoted(seed_text) + " is not a seed (an integer in 0.." +
                            std::to_string(UINT64_MAX) + ")");
  }
  std::vector<int> order(static_cast<std::size_t>(hosts));
  std::iota(order.begin(), order.end(), 0);
  std::uint64_t state = seed;
  for (int i = hosts - 1; i > 0; --i) {
    const auto j = static_cast<int>(splitmix64(state) % static_cast<std::uint64_t>(i + 1));
    std::swap(order[i], order[j]);
  }
  order.resize(static_cast<std::size_t>(ranks));
  return Mapping{std::move(order)};
}

Mapping file_mapping(std::string_view spec, const std::string& path, int ranks, int hosts) {
  try {
    return Mapping{read_rank_pairs(path, {"mapping file", "host", true}, ranks, hosts)};
  } catch (const RankPairProblem& problem) {
    mapping_error(spec, problem.what());
  }
}

}  // namespace

Mapping make_mapping(std::string_view spec, int ranks, const Topology& topology) {
  const int hosts = topology.host_count();
  if (ranks < 1) mapping_error(spec, "the job needs at least one rank");
  if (ranks > hosts) {
    mapping_error(spec, std::to_string(ranks) + " ranks do not fit the " + std::to_string(hosts) +
                            " hosts of '" + topology.spec() + "'");
  }
  if (spec == "linear") {
    std::vector<int> host_of(static_cast<std::size_t>(ranks));
    std::iota(host_of.begin(), host_of.end(), 0);
    return Mapping{std::move(host_of)};
  }
  if (spec.starts_with("random:")) return random_mapping(spec, spec.substr(7), ranks, hosts);
  if (spec.starts_with("file:"))
    return file_mapping(spec, std::string(spec.substr(5)), ranks, hosts);
  if (spec.empty()) mapping_error(spec, "empty mapping");
  return file_mapping(spec, std::string(spec), ranks, hosts);
}

}  // namespace topocoll::topo
