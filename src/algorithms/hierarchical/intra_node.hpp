#pragma once
// The intra-node phases of the compositions: each is one step in which a rank talks to the
// other ranks of its node at once (Bine 6.2: each GPU exchanges with the other three
// concurrently), its K - 1 sends and K - 1 receives on distinct ports. The exchange with the
// local index m of a node uses port (m - l - 1) mod K from local index l, so both ends agree
// and one rank's ports are all different; a composition therefore has at least K - 1 ports.
#include <functional>
#include <memory>

#include "algorithms/hierarchical/node_map.hpp"
#include "core/schedule.hpp"

namespace topocoll::algorithms::hierarchical {

// The blocks a phase attaches to a rank (its part, or its chunk).
using BlocksOf = std::function<BlockSet(int rank)>;
// Whether a rank takes part in a phase.
using RankFilter = std::function<bool(int rank)>;

// Reduce-scatter inside every node: rank (n, l) sends part(m) to each (n, m) and reduces the
// others' part(l) into its own, in rank order.
[[nodiscard]] SchedulePtr reduce_scatter_in_nodes(ScheduleInfo info,
                                                  std::shared_ptr<const NodeMap> nodes,
                                                  BlocksOf part);
// Allgather inside every node: rank (n, l) sends part(l) to each (n, m) and receives part(m).
// A rank for which `complete` holds already has every part: it receives nothing.
[[nodiscard]] SchedulePtr allgather_in_nodes(ScheduleInfo info,
                                             std::shared_ptr<const NodeMap> nodes, BlocksOf part,
                                             RankFilter complete);
// The ranks of a node send `blocks` to its local index `leader`, which reduces them into its
// own in rank order.
[[nodiscard]] SchedulePtr reduce_to_leader(ScheduleInfo info, std::shared_ptr<const NodeMap> nodes,
                                           int leader, BlocksOf blocks);
// The ranks of a node send `blocks(rank)` to its leader, which stores them (a gather), on the
// nodes of the ranks `node_active` accepts.
[[nodiscard]] SchedulePtr gather_to_leader(ScheduleInfo info, std::shared_ptr<const NodeMap> nodes,
                                           int leader, BlocksOf blocks, RankFilter node_active);
// The leader of a node sends `blocks(rank)` to each other rank of the node (bcast or scatter).
[[nodiscard]] SchedulePtr send_from_leader(ScheduleInfo info, std::shared_ptr<const NodeMap> nodes,
                                           int leader, BlocksOf blocks, RankFilter node_active);

// Every rank's node is active.
[[nodiscard]] RankFilter every_node();

}  // namespace topocoll::algorithms::hierarchical
