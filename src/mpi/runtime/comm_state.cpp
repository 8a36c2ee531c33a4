#include "comm_state.hpp"

#include <atomic>
#include <mutex>
#include <set>

#include "schedule_file.hpp"

namespace topocoll::mpi {
namespace {

// Caches stay small: a program is O(steps) of one rank, a plan the same in segments.
constexpr std::size_t max_cached_plans = 64;

std::mutex& states_mutex() {
  static std::mutex m;
  return m;
}
std::set<CommState*>& live_states() {
  static std::set<CommState*> s;
  return s;
}

// Bumped whenever a state is deleted: the per-thread memory of the last communicator's state
// (state_for) is then stale, since a freed communicator's handle may come back for another.
std::atomic<std::uint64_t> deletions{0};

int delete_state(MPI_Comm, int, void* value, void*) {
  deletions.fetch_add(1, std::memory_order_acq_rel);
  delete static_cast<CommState*>(value);
  return MPI_SUCCESS;
}

// Runs at the start of MPI_Finalize (attributes of MPI_COMM_SELF are deleted first), while
// communicators can still be freed.
int finalize_hook(MPI_Comm, int, void*, void*) {
  std::lock_guard lock(states_mutex());
  for (CommState* s : live_states()) {
    s->clear_caches();  // frees the plans' datatypes while MPI is fully alive
    s->release();
  }
  return MPI_SUCCESS;
}

thread_local int p2p_error = MPI_SUCCESS;

void record_error(MPI_Comm*, int* code, ...) { p2p_error = *code; }

MPI_Errhandler recording_handler() {
  static MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  static std::once_flag once;
  std::call_once(once, [] { PMPI_Comm_create_errhandler(record_error, &handler); });
  return handler;
}

int keyval() {
  static int key = MPI_KEYVAL_INVALID;
  static std::once_flag once;
  std::call_once(once, [] {
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &key, nullptr);
    int hook = MPI_KEYVAL_INVALID;
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_hook, &hook, nullptr);
    PMPI_Comm_set_attr(MPI_COMM_SELF, hook, nullptr);
  });
  return key;
}

}  // namespace

CommState::CommState(MPI_Comm user, MPI_Comm private_comm) : private_(private_comm) {
  PMPI_Comm_rank(user, &rank_);
  PMPI_Comm_size(user, &size_);
  std::lock_guard lock(states_mutex());
  live_states().insert(this);
}

CommState::~CommState() {
  release();
  std::lock_guard lock(states_mutex());
  live_states().erase(this);
}

void CommState::release() {
  int finalized = 0;
  PMPI_Finalized(&finalized);
  if (private_ != MPI_COMM_NULL && !finalized) PMPI_Comm_free(&private_);
  private_ = MPI_COMM_NULL;
}

const RankProgram& CommState::program(const std::string& algorithm,
                                      const ScheduleRequest& request) {
  const ProgramKey key = ProgramKey::of(algorithm, request);
  auto& slot = programs_[key];
  if (!slot) {
    try {
      const std::shared_ptr<const Schedule> schedule =
          names_file(algorithm) ? file_schedule(algorithm) : registry().build(algorithm, request);
      if (!schedule) throw std::logic_error(algorithm + " cannot be read");
      auto program = std::make_unique<RankProgram>();
      program->info = schedule->info();
      for (int l = 0; l < schedule->lane_count(rank_); ++l)
        program->lanes.push_back(schedule->lane_steps_of(rank_, l));
      slot = std::move(program);
    } catch (...) {
      programs_.erase(key);
      throw;
    }
  }
  return *slot;
}

const Plan& CommState::plan(const ProgramKey& key, const RankProgram& program,
                            const SlotSizes& sizes, bool commutative) {
  auto full = std::make_pair(key, sizes.user_offsets);
  if (auto it = plans_.find(full); it != plans_.end()) return *it->second;
  if (plans_.size() >= max_cached_plans) {
    plans_.clear();
    recent_.clear();
  }
  auto compiled = std::make_unique<Plan>(
      compile_plan_padded_if_needed(program.info, program.lanes, sizes, commutative));
  return *plans_.emplace(std::move(full), std::move(compiled)).first->second;
}

const Plan* CommState::recent_plan(const std::string& algorithm, const ScheduleRequest& request,
                                   std::uint64_t count) const {
  const int collective = static_cast<int>(request.collective);
  for (auto it = recent_.rbegin(); it != recent_.rend(); ++it) {
    const ProgramKey& k = it->key;
    if (it->count == count && k.collective == collective && k.root == request.root &&
        k.commutative == request.commutative && k.ranks_per_node == request.ranks_per_node &&
        k.algorithm == algorithm && k.dims == request.dims)
      return it->plan;
  }
  return nullptr;
}

const NodeLayout& CommState::nodes(int emulated_per_node) {
  auto it = nodes_.find(emulated_per_node);
  if (it == nodes_.end())
    it = nodes_.emplace(emulated_per_node, detect_nodes(private_, emulated_per_node)).first;
  return it->second;
}

void CommState::remember_plan(const ProgramKey& key, std::uint64_t count, const Plan& plan) {
  constexpr std::size_t remembered = 8;  // a benchmark interleaves a few algorithms
  if (recent_.size() >= remembered) recent_.erase(recent_.begin());
  recent_.push_back({key, count, &plan});
}

CommState* state_for(MPI_Comm comm, int* rc) {
  // The state of the thread's last communicator, while no state was deleted since: a loop of
  // calls skips the attribute lookup (docs/mpi-benchmark.md, "Small messages"). The state
  // lives as long as its communicator, and freeing it deletes the state (delete_state).
  struct Last {
    MPI_Comm comm = MPI_COMM_NULL;
    CommState* state = nullptr;
    std::uint64_t deletions = 0;
  };
  thread_local Last last;
  *rc = MPI_SUCCESS;
  const std::uint64_t deleted = deletions.load(std::memory_order_acquire);
  if (last.state && last.comm == comm && last.deletions == deleted) return last.state;
  const int key = keyval();
  void* value = nullptr;
  int found = 0;
  *rc = PMPI_Comm_get_attr(comm, key, &value, &found);
  if (*rc != MPI_SUCCESS) return nullptr;
  if (found) {
    last = {comm, static_cast<CommState*>(value), deleted};
    return last.state;
  }
  MPI_Comm duplicate = MPI_COMM_NULL;
  *rc = PMPI_Comm_dup(comm, &duplicate);
  if (*rc != MPI_SUCCESS) return nullptr;
  PMPI_Comm_set_errhandler(duplicate, recording_handler());
  auto* state = new CommState(comm, duplicate);
  *rc = PMPI_Comm_set_attr(comm, key, state);
  if (*rc != MPI_SUCCESS) {
    delete state;
    return nullptr;
  }
  return state;
}

int take_p2p_error() {
  const int code = p2p_error;
  p2p_error = MPI_SUCCESS;
  return code;
}

void clear_all_caches() {
  std::lock_guard lock(states_mutex());
  for (CommState* s : live_states()) s->clear_caches();
}

}  // namespace topocoll::mpi
