#pragma once
// Which ranks of a communicator share a node, for the hierarchical compositions (hier:INNER,
// leader:INNER; docs/hierarchical.md, "Runtime"). The nodes come from
// MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), or, with TOPOCOLL_RANKS_PER_NODE=K, from the
// emulation: rank r of MPI_COMM_WORLD is on node r / K. The compositions assume the block
// layout (rank r of the communicator on node r / K, K ranks on every node); a communicator
// whose nodes are not laid out so gets the reason instead of K.
#include <mpi.h>

#include <string>
#include <vector>

namespace topocoll::mpi {

struct NodeLayout {
  int per_node = 1;       // K, when the layout is blocked
  int nodes = 1;          // N = P / K
  std::string rejection;  // why the compositions cannot run here; empty when K holds
  bool emulated = false;  // from TOPOCOLL_RANKS_PER_NODE
};

// The layout of `keys` (one per rank of the communicator, in rank order; equal keys: one
// node), found with `source` (named in the reason).
[[nodiscard]] NodeLayout layout_of(const std::vector<int>& keys, const std::string& source);

// Collective over `comm` (the runtime's private duplicate): the node of each rank from
// MPI_COMM_TYPE_SHARED, or from `emulated_per_node` > 0. Communicates once; the caller caches.
[[nodiscard]] NodeLayout detect_nodes(MPI_Comm comm, int emulated_per_node);

// "2x4" for N nodes of K ranks.
[[nodiscard]] std::string describe(const NodeLayout& layout);

}  // namespace topocoll::mpi
