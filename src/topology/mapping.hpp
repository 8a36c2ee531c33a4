#pragma once
// Where each rank runs: rank r on host host_of[r]. "linear" (rank r on host r), "random:SEED",
// or a file of "rank,host" lines; a schedule that assumes a placement (ScheduleInfo) composes
// with it.
#include <string_view>
#include <vector>

#include "topology/topology.hpp"

namespace topocoll::topo {

struct Mapping {
  std::vector<int> host_of;  // one entry per rank, distinct hosts
};

// Throws UnsupportedRequest when the job has more ranks than the topology has hosts or the
// spec is malformed.
[[nodiscard]] Mapping make_mapping(std::string_view spec, int ranks, const Topology& topology);

}  // namespace topocoll::topo
