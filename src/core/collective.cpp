#include "core/collective.hpp"

#include <array>
#include <utility>

namespace topocoll {
namespace {
constexpr std::array<std::pair<Collective, std::string_view>, 8> kNames{{
    {Collective::allreduce, "allreduce"},
    {Collective::reduce_scatter, "reduce-scatter"},
    {Collective::allgather, "allgather"},
    {Collective::bcast, "bcast"},
    {Collective::reduce, "reduce"},
    {Collective::gather, "gather"},
    {Collective::scatter, "scatter"},
    {Collective::alltoall, "alltoall"},
}};
}  // namespace

std::string_view collective_name(Collective c) {
  for (const auto& [value, name] : kNames)
    if (value == c) return name;
  return "?";
}

std::optional<Collective> parse_collective(std::string_view name) {
  for (const auto& [value, n] : kNames)
    if (n == name) return value;
  return std::nullopt;
}

const std::vector<Collective>& all_collectives() {
  static const std::vector<Collective> all = [] {
    std::vector<Collective> v;
    for (const auto& [value, name] : kNames) v.push_back(value);
    return v;
  }();
  return all;
}

std::string collective_names_list() {
  std::string out;
  for (const auto& [value, name] : kNames) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

bool is_reduction(Collective c) {
  return c == Collective::allreduce || c == Collective::reduce_scatter || c == Collective::reduce;
}

bool is_rooted(Collective c) {
  return c == Collective::bcast || c == Collective::reduce || c == Collective::gather ||
         c == Collective::scatter;
}

bool is_chunked_per_rank(Collective c) {
  return c == Collective::reduce_scatter || c == Collective::allgather || c == Collective::gather ||
         c == Collective::scatter || c == Collective::alltoall;
}

}  // namespace topocoll
