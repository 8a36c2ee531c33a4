#pragma once
// Per user communicator: a private duplicate (so internal messages never match user
// messages), the rank's compiled schedules and the buffers, cached on the communicator with
// an attribute and freed with it (or at MPI_Finalize).
#include <mpi.h>

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "core/registry.hpp"
#include "element_type.hpp"
#include "node_layout.hpp"
#include "plan.hpp"

namespace topocoll::mpi {

// One rank's lanes of a schedule (per lane, its steps), materialized once per shape.
struct RankProgram {
  ScheduleInfo info;
  std::vector<std::vector<Step>> lanes;
};

struct ProgramKey {
  std::string algorithm;
  int collective = 0;
  int root = 0;
  bool commutative = true;
  std::vector<int> dims;
  int ranks_per_node = 1;  // the compositions' K (flat algorithms ignore it)
  auto operator<=>(const ProgramKey&) const = default;

  [[nodiscard]] static ProgramKey of(const std::string& algorithm, const ScheduleRequest& request) {
    return {algorithm,    static_cast<int>(request.collective),
            request.root, request.commutative,
            request.dims, request.ranks_per_node};
  }
};

class CommState {
 public:
  CommState(MPI_Comm user, MPI_Comm private_comm);
  ~CommState();
  CommState(const CommState&) = delete;
  CommState& operator=(const CommState&) = delete;

  [[nodiscard]] MPI_Comm comm() const { return private_; }
  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }

  // The program for a request (built and materialized on first use). Throws
  // UnsupportedRequest when the algorithm rejects it.
  const RankProgram& program(const std::string& algorithm, const ScheduleRequest& request);
  // The plan of `program` for these slot sizes (compiled on first use).
  const Plan& plan(const ProgramKey& key, const RankProgram& program, const SlotSizes& sizes,
                   bool commutative);

  ElementBuffer workspace;  // scratch slots and staging
  ElementBuffer area[2];    // copies of user data (read-only input, packed derived types)
  ElementBuffer padded[2];  // the user and receive slots of a padded plan
  // The executor's request arrays per lane, kept between calls (no allocation per call).
  std::vector<std::vector<MPI_Request>> requests;

  // The plan of a recent uniform call with this key and element count (a loop repeats its
  // calls: this skips building the two map keys), or nullptr.
  // Compared field by field: building a ProgramKey copies the dims (an allocation per call).
  [[nodiscard]] const Plan* recent_plan(const std::string& algorithm,
                                        const ScheduleRequest& request, std::uint64_t count) const;
  void remember_plan(const ProgramKey& key, std::uint64_t count, const Plan& plan);

  // The nodes of this communicator (node_layout.hpp): from MPI_COMM_TYPE_SHARED when
  // `emulated_per_node` is 0, else emulated. Collective over the communicator on first use
  // for each value; every rank asks at the same call (Settings::needs_nodes).
  const NodeLayout& nodes(int emulated_per_node);

  void clear_caches() {
    plans_.clear();
    programs_.clear();
    recent_.clear();
  }
  // Frees the private communicator (MPI_Finalize hook); the state stays until deleted.
  void release();

 private:
  MPI_Comm private_;
  int rank_ = 0;
  int size_ = 0;
  std::map<ProgramKey, std::unique_ptr<RankProgram>> programs_;
  std::map<std::pair<ProgramKey, std::vector<std::uint64_t>>, std::unique_ptr<Plan>> plans_;
  struct Recent {
    ProgramKey key;
    std::uint64_t count = 0;
    const Plan* plan = nullptr;
  };
  std::vector<Recent> recent_;       // the last few uniform plans, newest last
  std::map<int, NodeLayout> nodes_;  // by TOPOCOLL_RANKS_PER_NODE (0: the machine's)
};

// The state of `comm`, created on first use (collective over comm: MPI_Comm_dup).
// Returns nullptr with an MPI error code in *rc on failure.
CommState* state_for(MPI_Comm comm, int* rc);

// The error code the private communicators' error handler last saw on this thread (and
// forgets it), or MPI_SUCCESS. The handler records and returns, so that an error of the
// schedule's messages (MPI_ERR_TRUNCATE when ranks disagree on a count) reaches the call,
// which raises it on the user's communicator.
int take_p2p_error();

// Drops every cached program and plan (topocoll_clear_cache).
void clear_all_caches();

}  // namespace topocoll::mpi
