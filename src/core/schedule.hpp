#pragma once
// The contract every part of topocoll consumes: a collective on P ranks over B blocks, given
// lazily as per-rank lanes of steps (docs/design.md, "2. The schedule model").
//
// Lanes: a rank runs one or more lanes, each an ordered list of steps that progresses on its
// own (one per concurrent sub-collective, port or channel). A lane starts step k+1 once its step
// k completed and every step named in step k+1's `after` list completed; nothing else
// synchronises lanes. A port belongs to one lane of a rank, so sends and receives still match
// per (sender, receiver, port) in each lane's posting order.
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
#include <mutex>
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
  // K of a node-aware composition (hier:, leader:): ranks nK .. nK + K - 1 share node n. 0 or 1:
  // flat, no node structure. Exported files carry it so a reader knows the node size.
  int ranks_per_node = 0;

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

  // A one-lane schedule overrides step_count and build_step; a schedule of several lanes
  // overrides the three lane functions instead, and its step_count and build_step then give
  // the lock-step view, a one-lane form of the same schedule that analyses counting per step
  // (and wrappers not written for lanes) use. By default step k holds every lane's step k,
  // which is right for lanes without dependencies; a schedule whose lanes depend on each other
  // overrides it so that no step comes before a step it waits for. Executors (verifier,
  // simulator, MPI) use the lanes.
  [[nodiscard]] virtual int lane_count(int rank) const;
  [[nodiscard]] virtual int lane_step_count(int rank, int lane) const;
  // Fills `out` (which arrives empty) with step `step` of lane `lane` of `rank`.
  virtual void build_lane_step(int rank, int lane, int step, Step& out) const;

  // The steps of every lane of `rank`, which estimates sum over the ranks. Composites sum
  // their parts' totals: the default asks each lane for its count, and a composite finds a
  // lane's part by walking its parts (a spread fold of 8 parts: 65 s over 16,000,000 ranks).
  [[nodiscard]] virtual std::uint64_t lane_steps_total(int rank) const;

  [[nodiscard]] virtual int step_count(int rank) const;
  // Fills `out` (which arrives empty) with the operations of step `step` of `rank`.
  virtual void build_step(int rank, int step, Step& out) const;

  // The rank each block stands for, when the schedule lays its B = S * P blocks out in an
  // order of its own (Swing's labels, Bine's sigma order: section 3.1.1's contiguous remap):
  // block_ranks()[b] for every b < B. Empty when the blocks are in rank order or stand for no
  // rank. Only a hint: the verifier proves any symmetry it derives from it (symmetry_proof.hpp).
  [[nodiscard]] virtual std::vector<int> block_ranks() const { return {}; }

  // Materializes one rank (tests, export): the lock-step view, and one lane.
  [[nodiscard]] std::vector<Step> steps_of(int rank) const;
  [[nodiscard]] std::vector<Step> lane_steps_of(int rank, int lane) const;
  // Whether any rank has more than one lane.
  [[nodiscard]] bool has_lanes() const;

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
  using Lanes = std::vector<std::vector<Step>>;  // per lane, its steps
  // One lane per rank.
  ExplicitSchedule(ScheduleInfo info, std::vector<std::vector<Step>> rank_steps);
  // rank_lanes[r][l] lists lane l's steps of rank r; every rank has at least one lane.
  ExplicitSchedule(ScheduleInfo info, std::vector<Lanes> rank_lanes);
  [[nodiscard]] int lane_count(int rank) const override;
  [[nodiscard]] int lane_step_count(int rank, int lane) const override;
  void build_lane_step(int rank, int lane, int step, Step& out) const override;
  // The lock-step view by levels: a step's level is one more than its lane's previous step's
  // and than the steps it waits for; step k holds every lane step of level k.
  [[nodiscard]] int step_count(int rank) const override;
  void build_step(int rank, int step, Step& out) const override;

  // Lane 0's steps of every rank (the whole schedule when it has one lane).
  [[nodiscard]] std::vector<Step>& lane_zero(int rank) { return rank_lanes_.at(rank).front(); }
  [[nodiscard]] std::vector<Lanes>& rank_lanes() { return rank_lanes_; }
  [[nodiscard]] const std::vector<Lanes>& rank_lanes() const { return rank_lanes_; }

 private:
  // Per rank and lane, each step's level; computed on first use (the steps may be edited
  // through rank_lanes() until then).
  [[nodiscard]] const std::vector<std::vector<int>>& levels(int rank) const;
  std::vector<Lanes> rank_lanes_;
  mutable std::vector<std::vector<std::vector<int>>> levels_;
  mutable std::once_flag levels_once_;
};

[[nodiscard]] std::unique_ptr<ExplicitSchedule> materialize(const Schedule& schedule);

}  // namespace topocoll
