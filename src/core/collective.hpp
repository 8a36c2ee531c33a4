#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace topocoll {

enum class Collective {
  allreduce,
  reduce_scatter,
  allgather,
  bcast,
  reduce,
  gather,
  scatter,
  alltoall
};

[[nodiscard]] std::string_view collective_name(Collective c);
[[nodiscard]] std::optional<Collective> parse_collective(std::string_view name);
[[nodiscard]] const std::vector<Collective>& all_collectives();
// "allreduce, reduce-scatter, ..." for error messages.
[[nodiscard]] std::string collective_names_list();

// Whether the collective combines contributions (as opposed to moving them).
[[nodiscard]] bool is_reduction(Collective c);
// Whether the collective has a root rank.
[[nodiscard]] bool is_rooted(Collective c);
// Whether the user data is chunked per rank (MPI counts are per rank: reduce-scatter,
// allgather, gather, scatter, alltoall) rather than one vector (allreduce, bcast, reduce).
[[nodiscard]] bool is_chunked_per_rank(Collective c);

}  // namespace topocoll
