#pragma once
// The contract every part of topocoll consumes: a collective on P ranks over B blocks, given
// lazily as per-rank lists of steps (DESIGN.md, "The schedule model").
//
// Buffer layout (slots are block-sized places in a rank's memory):
//  - every collective but alltoall: slots [0, B) are the user vector. For the collectives whose
//    MPI counts are per rank (reduce-scatter, allgather, gather, scatter), B = P * S and rank r's
//    chunk is the blocks [r*S, (r+1)*S).
//  - alltoall: slots [0, B) are the send buffer (chunk d goes to rank d), slots [B, 2B) the
//    receive buffer (chunk s came from rank s).
//  - slots past those are scratch space the algorithm may use.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/collective.hpp"
#include "core/operation.hpp"

namespace topocoll {

struct ScheduleInfo {
  Collective collective = Collective::allreduce;
  std::string algorithm;  // registry name, or a free label for hand-written schedules
  int ranks = 0;
  int blocks = 0;  // B: data blocks of the user vector (per buffer for alltoall)
  int slots = 0;   // total slots per rank, >= user slots; 0 means "the user slots"
  int ports = 1;   // concurrent operations allowed per direction per step
  int root = 0;
  std::vector<int> dims;  // torus shape the schedule was built for (empty: 1D)
  // True when every transfer lands in the slots it was read from (blocks of a receive equal
  // the blocks of the matching send). Lets the verifier split the work by block windows.
  bool keeps_positions = true;
  // The node of the algorithm's shape (`dims`; the binary cube for hypercube algorithms) where
  // rank r runs: placement[r], a permutation of 0..P-1. Empty: rank r on node r, at no memory
  // cost. Schedules that assume a placement (the Gray-code hypercube variants put rank r on node
  // G(r)) carry it here; the verifier's adjacency check uses it, and the simulator and the MPI
  // runtime compose it with the user's mapping of nodes.
  std::vector<int> placement;

  [[nodiscard]] int node_of(int rank) const {
    return placement.empty() ? rank : placement[static_cast<std::size_t>(rank)];
  }
  [[nodiscard]] int user_slots() const;
  [[nodiscard]] int total_slots() const { return slots > 0 ? slots : user_slots(); }
  [[nodiscard]] int blocks_per_chunk() const;  // S, for chunked collectives
  // Rank r's chunk of the user vector (chunked collectives).
  [[nodiscard]] BlockSet chunk_of(int rank) const;
};

class Schedule {
 public:
  explicit Schedule(ScheduleInfo info) : info_(std::move(info)) {}
  virtual ~Schedule() = default;
  Schedule(const Schedule&) = delete;
  Schedule& operator=(const Schedule&) = delete;

  [[nodiscard]] const ScheduleInfo& info() const { return info_; }
  [[nodiscard]] int ranks() const { return info_.ranks; }
  // Distinct for every schedule object of the process, never reused: the key of caches that
  // hold an analysis of one schedule (the simulator's symmetry search).
  [[nodiscard]] std::uint64_t serial() const { return serial_; }

  [[nodiscard]] virtual int step_count(int rank) const = 0;
  // Fills `out` (which arrives empty) with the operations of step `step` of `rank`.
  virtual void build_step(int rank, int step, Step& out) const = 0;

  // Materializes one rank (tests, export).
  [[nodiscard]] std::vector<Step> steps_of(int rank) const;

 protected:
  ScheduleInfo& mutable_info() { return info_; }

 private:
  static std::uint64_t next_serial();

  ScheduleInfo info_;
  std::uint64_t serial_ = next_serial();
};

using SchedulePtr = std::unique_ptr<Schedule>;

// Why `info.placement` is not empty-or-a-permutation of the ranks, or nullopt.
[[nodiscard]] std::optional<std::string> placement_problem(const ScheduleInfo& info);

// A schedule held in memory: hand-written, loaded from JSON, or a materialized copy.
class ExplicitSchedule final : public Schedule {
 public:
  ExplicitSchedule(ScheduleInfo info, std::vector<std::vector<Step>> rank_steps);
  [[nodiscard]] int step_count(int rank) const override;
  void build_step(int rank, int step, Step& out) const override;

  [[nodiscard]] std::vector<std::vector<Step>>& rank_steps() { return rank_steps_; }
  [[nodiscard]] const std::vector<std::vector<Step>>& rank_steps() const { return rank_steps_; }

 private:
  std::vector<std::vector<Step>> rank_steps_;
};

[[nodiscard]] std::unique_ptr<ExplicitSchedule> materialize(const Schedule& schedule);

}  // namespace topocoll
