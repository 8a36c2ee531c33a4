#pragma once
// The lane-order check (docs/design.md, "3.1 Invariants", 6): lanes of one rank run concurrently,
// so two steps of different lanes that touch one block (one of them writing), or use one
// channel (peer, port, direction), must be ordered by the lanes' declared dependencies.
// Otherwise the outcome depends on timing: a lane may read a block before another lane wrote
// it, or a receive may match the other lane's message. The check runs on what the verifier
// recorded of each rank's steps, independently of the order in which it ran them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/operation.hpp"

namespace topocoll::detail {

struct Finding;

// What one multi-lane rank's steps accessed, in the order the verifier posted them.
class LaneRecord {
 public:
  void reset(int lanes);
  [[nodiscard]] bool active() const { return !steps_.empty(); }
  // Step `step` of `lane` (steps arrive in order per lane) with its operations.
  void add_step(int lane, int step, const Step& s);
  // The first pair of unordered conflicting accesses, or a dependency that cannot be met.
  [[nodiscard]] std::optional<Finding> check(int rank) const;

 private:
  struct Access {
    std::uint64_t begin = 0, end = 0;  // blocks, or one channel key past every block
    std::uint32_t node = 0;            // index of the (lane, step) in nodes_
    bool write = false;
  };
  struct Node {
    int lane = 0;
    int step = 0;
    std::vector<Dependency> after;
  };
  // clock[node * lanes + m]: steps of lane m known complete when the node starts.
  [[nodiscard]] std::optional<Finding> compute_clocks(int rank, std::vector<int>& clock) const;
  [[nodiscard]] bool ordered(const std::vector<int>& clock, const Node& a, const Node& b,
                             std::uint32_t b_index) const;

  std::vector<std::vector<std::uint32_t>> steps_;  // per lane: node index of each step
  std::vector<Node> nodes_;
  std::vector<Access> accesses_;
};

}  // namespace topocoll::detail
