#pragma once
// Which node each rank runs on, and its local index there (docs/nodes.md): as a Mapping onto
// the rank slots of a NodeTopology (rank r on host slot(node, local)). The job takes the
// first J = ceil(P / K) nodes. "block": rank r on node r / K, local index r % K; "cyclic":
// node r % J, local index r / J; "file:PATH": lines "rank,node", at most K ranks per node,
// local indices in increasing rank order.
#include <string_view>

#include "topology/mapping.hpp"
#include "topology/node_topology.hpp"

namespace topocoll::topo {

// Throws UnsupportedRequest when the ranks do not fit the nodes or the spec or file is
// malformed.
[[nodiscard]] Mapping make_node_mapping(std::string_view spec, int ranks,
                                        const NodeTopology& topology);

}  // namespace topocoll::topo
