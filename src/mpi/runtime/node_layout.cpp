#include "node_layout.hpp"

#include <algorithm>
#include <map>

namespace topocoll::mpi {
namespace {

std::string sizes_text(const std::vector<int>& sizes) {
  std::string out;
  for (std::size_t i = 0; i < sizes.size() && i < 8; ++i)
    out += (i ? ", " : "") + std::to_string(sizes[i]);
  if (sizes.size() > 8) out += ", ...";
  return out;
}

// The key of this rank's node: the lowest rank of `comm` on it (MPI_COMM_TYPE_SHARED).
int shared_memory_key(MPI_Comm comm, int rank) {
  MPI_Comm node = MPI_COMM_NULL;
  if (PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS ||
      node == MPI_COMM_NULL)
    return rank;  // no shared memory known: a node of its own
  int key = rank;
  PMPI_Allreduce(&rank, &key, 1, MPI_INT, MPI_MIN, node);
  PMPI_Comm_free(&node);
  return key;
}

}  // namespace

NodeLayout layout_of(const std::vector<int>& keys, const std::string& source) {
  NodeLayout layout;
  const int p = static_cast<int>(keys.size());
  if (p == 0) return layout;
  // Nodes in order of their first rank, and their sizes.
  std::vector<int> sizes;
  std::map<int, std::size_t> index;
  bool runs = true;
  for (int r = 0; r < p; ++r) {
    const auto [it, added] = index.emplace(keys[static_cast<std::size_t>(r)], sizes.size());
    if (added) sizes.push_back(0);
    // A rank joins the node of the rank before it, or starts a new one.
    if (!added && (r == 0 || keys[static_cast<std::size_t>(r - 1)] != it->first)) runs = false;
    ++sizes[it->second];
  }
  layout.nodes = static_cast<int>(sizes.size());
  const bool equal = std::all_of(sizes.begin(), sizes.end(), [&](int s) { return s == sizes[0]; });
  if (!runs) {
    layout.rejection = "the ranks of a node (" + source +
                       ") are not consecutive ranks of the communicator; accepted: the block "
                       "layout, rank r on node r / K";
  } else if (!equal) {
    layout.rejection = "the nodes (" + source + ") have " + sizes_text(sizes) +
                       " ranks of the communicator; accepted: the same number K on every node";
  } else {
    layout.per_node = sizes[0];
    return layout;
  }
  layout.nodes = 1;
  return layout;
}

NodeLayout detect_nodes(MPI_Comm comm, int emulated_per_node) {
  int rank = 0, size = 0;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  int key = 0;
  std::string source = "MPI_COMM_TYPE_SHARED";
  if (emulated_per_node > 0) {
    int world_rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    key = world_rank / emulated_per_node;
    source = "TOPOCOLL_RANKS_PER_NODE=" + std::to_string(emulated_per_node) +
             ": rank r of MPI_COMM_WORLD on node r / " + std::to_string(emulated_per_node);
  } else {
    key = shared_memory_key(comm, rank);
  }
  std::vector<int> keys(static_cast<std::size_t>(size));
  if (PMPI_Allgather(&key, 1, MPI_INT, keys.data(), 1, MPI_INT, comm) != MPI_SUCCESS) {
    NodeLayout failed;
    failed.rejection = "the nodes could not be found (" + source + ")";
    failed.emulated = emulated_per_node > 0;
    return failed;
  }
  NodeLayout layout = layout_of(keys, source);
  layout.emulated = emulated_per_node > 0;
  return layout;
}

std::string describe(const NodeLayout& layout) {
  return std::to_string(layout.nodes) + "x" + std::to_string(layout.per_node);
}

}  // namespace topocoll::mpi
