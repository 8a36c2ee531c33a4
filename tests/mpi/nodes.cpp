// The runtime's nodes (docs/hierarchical.md, "Runtime"), on 4 ranks with emulated nodes
// (TOPOCOLL_RANKS_PER_NODE, set here between calls): a composition runs on the communicator's
// nodes, seen in the point-to-point messages each rank posts (p2p_counter.cpp), counted by
// hand for each layout; a layout the compositions cannot use (interleaved nodes, nodes of
// different sizes) falls back with the reason; a rules file makes `auto` choose a composition;
// an unknown name's reason lists the composition forms. Every result is checked.
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "agreed_check.hpp"
#include "p2p_counter.h"
#include "topocoll_mpi.h"

namespace {

int rank_ = 0, size_ = 0, failures = 0;

void check(bool ok, const std::string& what) {
  topocoll::mpi_tests::agreed_check(ok, what, rank_, failures);
}

// Messages per peer (send: destinations, else sources) since the last reset.
std::map<int, int> per_peer(bool send) {
  std::map<int, int> out;
  for (int i = 0; i < p2p_counter_messages(send ? 1 : 0); ++i)
    ++out[p2p_counter_peer(send ? 1 : 0, i)];
  return out;
}

std::string text(const std::map<int, int>& peers) {
  std::string out;
  for (const auto& [peer, n] : peers)
    out += (out.empty() ? "" : ", ") + std::to_string(n) + " with rank " + std::to_string(peer);
  return out.empty() ? "none" : out;
}

// An allreduce of 16 ints (sums of values that depend on rank and element) on `comm`; true
// when the result is right.
bool allreduce(MPI_Comm comm, const char* algorithm) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  constexpr int n = 16;
  std::vector<int> in(n), out(n, -1);
  for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = (rank + 1) * 100 + i;
  if (topocoll_allreduce(in.data(), out.data(), n, MPI_INT, MPI_SUM, comm, algorithm) !=
      MPI_SUCCESS)
    return false;
  for (int i = 0; i < n; ++i)
    if (out[static_cast<std::size_t>(i)] != 100 * size * (size + 1) / 2 + size * i) return false;
  return true;
}

// One allreduce with `algorithm` on nodes of k ranks, its messages counted (after a call that
// finds the nodes and builds the schedule).
struct Observed {
  bool right = false;
  std::string ran;
  std::map<int, int> sent, received;
};

Observed observe(const char* algorithm, int k) {
  setenv("TOPOCOLL_RANKS_PER_NODE", std::to_string(k).c_str(), 1);
  Observed o;
  (void)allreduce(MPI_COMM_WORLD, algorithm);
  p2p_counter_reset();
  o.right = allreduce(MPI_COMM_WORLD, algorithm);
  o.ran = topocoll_last_algorithm();
  o.sent = per_peer(true);
  o.received = per_peer(false);
  return o;
}

void expect_pattern(const char* algorithm, int k, const std::map<int, int>& expected,
                    const std::map<int, int>& expected_received) {
  const Observed o = observe(algorithm, k);
  const std::string what =
      std::string(algorithm) + " on 4 ranks as " + std::to_string(4 / k) + "x" + std::to_string(k);
  check(o.right && o.ran == algorithm,
        what + ": right result, served by " + algorithm + " (ran '" + o.ran + "')");
  check(o.sent == expected, what + ": sends " + text(o.sent) + "; expected " + text(expected));
  check(o.received == expected_received,
        what + ": receives " + text(o.received) + "; expected " + text(expected_received));
}

// Counted by hand for P = 4 (docs/hierarchical.md, "Phases"): rank r = node n x K + local l.
void message_patterns() {
  const int r = rank_;
  const int node_partner = r ^ 1, other_node = r ^ 2;  // 2x2: same node; same local index
  // hier:ring, 2x2: intra-node reduce-scatter (1 message to the node partner), ring allreduce
  // of 2 nodes among equal local indices (its reduce-scatter and allgather steps: 2 messages
  // to the other node's rank r ^ 2), intra-node allgather (1 to the partner).
  expect_pattern("hier:ring", 2, {{node_partner, 2}, {other_node, 2}},
                 {{node_partner, 2}, {other_node, 2}});
  // hier:ring, 4x1: no intra-node phase; the ring allreduce of 4 (3 reduce-scatter and 3
  // allgather steps), each rank sending to one ring neighbour and receiving from the other.
  const Observed flat = observe("hier:ring", 1);
  bool ring = flat.sent.size() == 1 && flat.received.size() == 1;
  if (ring) {
    const auto [to, sends] = *flat.sent.begin();
    const auto [from, receives] = *flat.received.begin();
    ring = sends == 6 && receives == 6 && (to == (r + 1) % 4 || to == (r + 3) % 4) &&
           from == (2 * r - to + 4) % 4;
  }
  check(flat.right && flat.ran == "hier:ring" && ring,
        "hier:ring on 4 ranks as 4x1: 6 sends to one ring neighbour, 6 receives from the other "
        "(sends " +
            text(flat.sent) + ", receives " + text(flat.received) + ")");
  // hier:ring, 1x4: one node, no inner phase; reduce-scatter and allgather inside the node:
  // one message to each of the 3 others per phase.
  std::map<int, int> all_others;
  for (int q = 0; q < 4; ++q)
    if (q != r) all_others[q] = 2;
  expect_pattern("hier:ring", 4, all_others, all_others);
  // leader:ring, 2x2: the partner (local index 1) sends its vector to the leader (local index
  // 0) and gets the result back; the leaders run the ring allreduce of 2 (2 messages each way).
  if (r % 2 == 0) {
    expect_pattern("leader:ring", 2, {{node_partner, 1}, {other_node, 2}},
                   {{node_partner, 1}, {other_node, 2}});
  } else {
    expect_pattern("leader:ring", 2, {{node_partner, 1}}, {{node_partner, 1}});
  }
}

// Layouts the compositions cannot use: the MPI library serves the call, with the reason.
void rejected_layouts() {
  setenv("TOPOCOLL_RANKS_PER_NODE", "2", 1);
  setenv("TOPOCOLL_FALLBACK", "silent", 1);
  // World ranks 0, 2, 1, 3: nodes 0, 1, 0, 1, not runs of consecutive ranks.
  MPI_Comm interleaved = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, 0, (rank_ % 2) * 2 + rank_ / 2, &interleaved);
  bool right = allreduce(interleaved, "hier:ring");
  std::string ran = topocoll_last_algorithm(), reason = topocoll_last_reason();
  check(right && ran == "mpi" && reason.find("not consecutive ranks") != std::string::npos &&
            reason.find("hier:ring") != std::string::npos,
        "hier:ring on interleaved nodes: the MPI library serves it (reason: " + reason + ")");
  // A flat algorithm ignores nodes: ring serves the interleaved communicator.
  right = allreduce(interleaved, "ring");
  ran = topocoll_last_algorithm();
  check(right && ran == "ring", "ring on interleaved nodes: ring serves it (ran '" + ran + "')");
  MPI_Comm_free(&interleaved);
  // World ranks 0, 1, 2 (nodes of 2 and 1 ranks) and rank 3 alone.
  MPI_Comm uneven = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank_ < 3 ? 0 : 1, rank_, &uneven);
  right = allreduce(uneven, "leader:ring");
  ran = topocoll_last_algorithm();
  reason = topocoll_last_reason();
  const bool named = rank_ == 3 || reason.find("same number K on every node") != std::string::npos;
  check(
      right && ran == "mpi" && named,
      "leader:ring on nodes of 2 and 1 ranks: the MPI library serves it (reason: " + reason + ")");
  MPI_Comm_free(&uneven);
  unsetenv("TOPOCOLL_FALLBACK");
}

// A rules file that names a composition: `auto` runs it on the nodes (without the comparison
// with the library's own choice, TOPOCOLL_MACHINE=none: this checks the composition's run, and
// misuse.cpp the comparison).
void rules_choose_composition() {
  char path[] = "/tmp/topocoll_nodes_rules_XXXXXX";
  if (rank_ == 0) {
    const int fd = mkstemp(path);
    const std::string rules =
        R"({"version": 1, "rules": [{"collective": "allreduce", "algorithm": "leader:ring"}]})";
    const bool written =
        fd >= 0 && write(fd, rules.data(), rules.size()) == static_cast<ssize_t>(rules.size());
    if (fd >= 0) close(fd);
    if (!written) std::fprintf(stderr, "cannot write %s\n", path);
  }
  PMPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  setenv("TOPOCOLL_RULES", path, 1);
  setenv("TOPOCOLL_MACHINE", "none", 1);
  const Observed o = observe("auto", 2);
  const bool leader_pattern = rank_ % 2 == 0 ? o.sent.size() == 2 : o.sent.size() == 1;
  check(o.right && o.ran == "leader:ring" && leader_pattern,
        "auto with a rules file naming leader:ring runs it on 2x2 (ran '" + o.ran + "', sends " +
            text(o.sent) + ")");
  unsetenv("TOPOCOLL_RULES");
  unsetenv("TOPOCOLL_MACHINE");
  PMPI_Barrier(MPI_COMM_WORLD);
  if (rank_ == 0) unlink(path);
}

void unknown_name_lists_forms() {
  setenv("TOPOCOLL_FALLBACK", "silent", 1);
  const bool right = allreduce(MPI_COMM_WORLD, "hier:no-such-algorithm");
  const std::string reason = topocoll_last_reason();
  check(right && reason.find("hier:INNER") != std::string::npos &&
            reason.find("leader:INNER") != std::string::npos,
        "an unknown name's reason lists hier:INNER and leader:INNER");
  unsetenv("TOPOCOLL_FALLBACK");
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  if (size_ != 4) {
    if (rank_ == 0) std::fprintf(stderr, "nodes: run on 4 ranks (got %d)\n", size_);
    MPI_Finalize();
    return 2;
  }
  message_patterns();
  rejected_layouts();
  rules_choose_composition();
  unknown_name_lists_forms();
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
