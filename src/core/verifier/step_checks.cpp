// Data-independent checks of one step: peers, ports, block ranges, adjacency, write conflicts.
#include <algorithm>

#include "core/verifier/engine.hpp"

namespace topocoll::detail {
namespace {

Finding malformed(int rank, int step, const Operation& op, const std::string& problem) {
  return Finding{Violation::malformed, rank, step, -1, "", "", op.to_string() + ": " + problem};
}

std::optional<std::string> range_problem(const BlockSet& set, BlockIndex slots) {
  BlockIndex previous_end = 0;
  bool first = true;
  for (const auto& r : set.ranges()) {
    if (r.begin >= r.end) return "empty or reversed block range";
    if (!first && r.begin < previous_end) return "block ranges must be sorted and disjoint";
    if (r.end > slots) {
      return "block " + std::to_string(r.end - 1) + " is out of range; accepted: 0.." +
             std::to_string(slots - 1);
    }
    previous_end = r.end;
    first = false;
  }
  return std::nullopt;
}

std::optional<std::string> peer_problem(const ScheduleInfo& info, int rank, const Operation& op) {
  if (op.peer < 0 || op.peer >= info.ranks) {
    return "peer " + std::to_string(op.peer) + " is out of range; accepted: 0.." +
           std::to_string(info.ranks - 1);
  }
  if (op.peer == rank) return "a rank cannot send to or receive from itself; use a local copy";
  if (op.port < 0 || op.port >= std::max(1, info.ports)) {
    return "port " + std::to_string(op.port) + " is out of range; accepted: 0.." +
           std::to_string(std::max(1, info.ports) - 1);
  }
  return std::nullopt;
}

// " (nodes a and b)" when the schedule places its ranks, so a report names what was compared.
std::string placed(const ScheduleInfo& info, int rank, int peer) {
  if (info.placement.empty()) return "";
  return " (nodes " + std::to_string(info.node_of(rank)) + " and " +
         std::to_string(info.node_of(peer)) + ")";
}

}  // namespace

bool torus_adjacent(const std::vector<int>& dims, int rank, int peer) {
  int differing = 0;
  bool neighbour = true;
  for (int size : dims) {
    const int a = rank % size, b = peer % size;
    rank /= size;
    peer /= size;
    if (a == b) continue;
    ++differing;
    const int distance = std::abs(a - b);
    neighbour = neighbour && (distance == 1 || distance == size - 1);
  }
  return differing == 1 && neighbour;
}

std::optional<Finding> check_step_shape(const ScheduleInfo& info, const VerifyOptions& options,
                                        int rank, int step, const Step& s) {
  const auto slots = static_cast<BlockIndex>(info.total_slots());
  int sends = 0, recvs = 0;
  for (const Operation& op : s.ops) {
    if (auto p = range_problem(op.blocks, slots)) return malformed(rank, step, op, *p);
    if (op.kind == OpKind::copy) {
      if (auto p = range_problem(op.source, slots)) return malformed(rank, step, op, *p);
      if (op.source.block_count() != op.blocks.block_count())
        return malformed(rank, step, op, "source and destination differ in block count");
      if (info.keeps_positions && !(op.source == op.blocks))
        return malformed(rank, step, op,
                         "a local copy that moves blocks needs keeps_positions = false");
      continue;
    }
    if (auto p = peer_problem(info, rank, op)) return malformed(rank, step, op, *p);
    (op.kind == OpKind::send ? sends : recvs) += 1;
    if (!options.adjacency_torus.empty() &&
        !torus_adjacent(options.adjacency_torus, info.node_of(rank), info.node_of(op.peer))) {
      return Finding{Violation::not_adjacent,
                     rank,
                     step,
                     -1,
                     "a torus neighbour",
                     "rank " + std::to_string(op.peer),
                     op.to_string() + ": rank " + std::to_string(op.peer) +
                         " is not a neighbour in the torus" + placed(info, rank, op.peer)};
    }
  }
  for (auto [count, direction] : {std::pair{sends, "sends"}, std::pair{recvs, "receives"}}) {
    if (count > std::max(1, info.ports)) {
      return Finding{Violation::ports_exceeded,
                     rank,
                     step,
                     -1,
                     "at most " + std::to_string(info.ports),
                     std::to_string(count),
                     std::to_string(count) + " concurrent " + direction +
                         " exceed ports = " + std::to_string(info.ports)};
    }
  }
  return std::nullopt;
}

namespace {

// Writers of one phase of a step: reductions into one slot compose in list order; a copy next
// to any other writer of the same phase loses data.
std::optional<Finding> check_phase_writes(int rank, int step, const Step& s, bool after_receives) {
  struct Write {
    BlockRange range;
    const Operation* op;
  };
  std::vector<Write> writes;
  for (const Operation& op : s.ops)
    if (op.writes() && op.after_receives() == after_receives)
      for (const auto& r : op.blocks.ranges()) writes.push_back({r, &op});
  if (writes.size() < 2) return std::nullopt;
  std::sort(writes.begin(), writes.end(),
            [](const Write& a, const Write& b) { return a.range.begin < b.range.begin; });
  for (std::size_t i = 0; i < writes.size(); ++i) {
    for (std::size_t j = i + 1; j < writes.size() && writes[j].range.begin < writes[i].range.end;
         ++j) {
      const Operation* a = writes[i].op;
      const Operation* b = writes[j].op;
      if (a == b || (a->combine == Combine::reduce && b->combine == Combine::reduce)) continue;
      return Finding{Violation::write_conflict,
                     rank,
                     step,
                     writes[j].range.begin,
                     "one writer",
                     "two",
                     a->to_string() + " and " + b->to_string() + " both write block " +
                         std::to_string(writes[j].range.begin) + " in one step"};
    }
  }
  return std::nullopt;
}

}  // namespace

// After-receives copies run after every other write of the step, so they conflict only with
// each other.
std::optional<Finding> check_write_conflicts(int rank, int step, const Step& s) {
  if (auto f = check_phase_writes(rank, step, s, false)) return f;
  return check_phase_writes(rank, step, s, true);
}

}  // namespace topocoll::detail
