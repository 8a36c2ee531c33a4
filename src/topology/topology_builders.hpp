#pragma once
// Spec parsers of the topology kinds, each next to its topology; make_topology dispatches on
// the kind before the first ':' and passes the rest as `body`.
#include <memory>
#include <string_view>

#include "topology/topology.hpp"

namespace topocoll::topo {

using TopologyPtr = std::unique_ptr<Topology>;

TopologyPtr build_fattree(std::string_view spec, std::string_view body,
                          const NetworkParams& params);
TopologyPtr build_dragonfly(std::string_view spec, std::string_view body,
                            const NetworkParams& params);
TopologyPtr build_dragonfly_plus(std::string_view spec, std::string_view body,
                                 const NetworkParams& params);
TopologyPtr build_hammingmesh(std::string_view spec, std::string_view body,
                              const NetworkParams& params);
TopologyPtr build_graph(std::string_view spec, std::string_view body, const NetworkParams& params);

}  // namespace topocoll::topo
