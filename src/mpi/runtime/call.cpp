#include "call.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <new>
#include <string>
#include <vector>

#include "collectives.hpp"

namespace topocoll::mpi {
namespace {

thread_local std::string last_algorithm_name = "mpi";
thread_local std::string last_reason_text;

std::string type_name(MPI_Datatype type) {
  if (type == MPI_DATATYPE_NULL) return "MPI_DATATYPE_NULL";
  char name[MPI_MAX_OBJECT_NAME] = {};
  int length = 0;
  PMPI_Type_get_name(type, name, &length);
  return length > 0 ? std::string(name, static_cast<std::size_t>(length)) : "derived";
}

void log_call(const Call& call, int size, const std::string& what) {
  std::string line = std::string("topocoll: ") + mpi_collective_name(call.collective) +
                     " comm_size=" + std::to_string(size) +
                     " count=" + std::to_string(static_cast<long long>(call.count)) +
                     " type=" + type_name(call.type);
  if (call.root >= 0) line += " root=" + std::to_string(call.root);
  line += " " + what + "\n";
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

std::vector<int> cartesian_dims(MPI_Comm comm) {
  int topology = MPI_UNDEFINED;
  PMPI_Topo_test(comm, &topology);
  if (topology != MPI_CART) return {};
  int ndims = 0;
  PMPI_Cartdim_get(comm, &ndims);
  std::vector<int> dims(static_cast<std::size_t>(ndims)), periods(dims.size()), coords(dims.size());
  PMPI_Cart_get(comm, ndims, dims.data(), periods.data(), coords.data());
  return dims;
}

bool is_predefined_op(MPI_Op op) {
  static const MPI_Op predefined[] = {MPI_MAX,    MPI_MIN,    MPI_SUM,     MPI_PROD, MPI_LAND,
                                      MPI_BAND,   MPI_LOR,    MPI_BOR,     MPI_LXOR, MPI_BXOR,
                                      MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP};
  for (MPI_Op p : predefined)
    if (op == p) return true;
  return false;
}

// Arguments the MPI library rejects before anything else; empty when there are none.
std::string invalid_argument(const Call& call) {
  if (call.comm == MPI_COMM_NULL) return "MPI_COMM_NULL";
  if (call.count < 0) return "negative count";
  if (call.type == MPI_DATATYPE_NULL) return "MPI_DATATYPE_NULL";
  if (is_reduction(core_collective(call.collective)) && call.op == MPI_OP_NULL)
    return "MPI_OP_NULL";
  int inter = 0, size = 0;
  if (PMPI_Comm_test_inter(call.comm, &inter) != MPI_SUCCESS) return "invalid communicator";
  PMPI_Comm_size(call.comm, &size);
  // An intercommunicator's roots (MPI_ROOT, MPI_PROC_NULL, a remote rank) are the library's.
  if (!inter && is_rooted(core_collective(call.collective)) && (call.root < 0 || call.root >= size))
    return "root " + std::to_string(call.root) + " out of range";
  return "";
}

std::string error_text(int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  int error_class = code;
  PMPI_Error_class(code, &error_class);
  PMPI_Error_string(error_class, text, &length);
  return std::string(text, static_cast<std::size_t>(length));
}

void report_error(const Call& call, int size, const std::string& what) {
  std::string line = std::string("topocoll: error: ") + mpi_collective_name(call.collective) +
                     " comm_size=" + std::to_string(size) +
                     " count=" + std::to_string(static_cast<long long>(call.count)) +
                     " type=" + type_name(call.type);
  if (call.root >= 0) line += " root=" + std::to_string(call.root);
  line += ": " + what + "\n";
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

// Raises `code` on the user's communicator, as the MPI library's collectives report errors.
int raise(MPI_Comm comm, int code) {
  PMPI_Comm_call_errhandler(comm, code);
  return code;
}

bool is_derived(MPI_Datatype type) {
  int integers = 0, addresses = 0, types = 0, combiner = MPI_COMBINER_NAMED;
  PMPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner);
  return combiner != MPI_COMBINER_NAMED;
}

// FNV-1a, for the agreement check.
std::uint64_t hash64(const std::string& text) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

// TOPOCOLL_CHECK: one allreduce (on the private communicator) of what all ranks must agree
// on; every rank learns any disagreement and returns the same error, so nothing hangs.
int check_agreement(const Call& call, const Choice& choice, CommState& state, int size) {
  std::string chosen = choice.error ? "error" : choice.algorithm;
  for (int d : choice.request.dims) {
    chosen += 'x';
    chosen += std::to_string(d);
  }
  constexpr int n = 4;
  const std::uint64_t values[n] = {call.agreed ? call.agreed : call.bytes,
                                   static_cast<std::uint64_t>(call.root + 1), hash64(chosen),
                                   call.op == MPI_OP_NULL       ? 2u
                                   : choice.request.commutative ? 1u
                                                                : 0u};
  std::uint64_t extremes[2 * n];  // the maximum of each value, then of its complement: ~min
  for (int i = 0; i < n; ++i) {
    extremes[i] = values[i];
    extremes[n + i] = ~values[i];
  }
  const int rc = PMPI_Allreduce(MPI_IN_PLACE, extremes, 2 * n, MPI_UINT64_T, MPI_MAX, state.comm());
  if (rc != MPI_SUCCESS) return rc;
  const char* what[n] = {"the size of the call (count x datatype size)", "the root",
                         "the algorithm (TOPOCOLL_* settings or the size)",
                         "the operator's commutativity"};
  const int codes[n] = {MPI_ERR_TRUNCATE, MPI_ERR_ROOT, MPI_ERR_ARG, MPI_ERR_OP};
  for (int i = 0; i < n; ++i) {
    const std::uint64_t low = ~extremes[n + i], high = extremes[i];
    if (low == high) continue;
    std::string detail = what[i];
    if (i == 0 && call.agreed) detail = "MPI_Reduce_scatter's recvcounts or datatype size";
    if (i == 0 && !call.agreed)
      detail += " (from " + std::to_string(low) + " to " + std::to_string(high) + " bytes)";
    if (i == 1)
      detail += " (from " + std::to_string(low - 1) + " to " + std::to_string(high - 1) + ")";
    if (state.rank() == 0)
      report_error(call, size, "ranks disagree on " + detail + " (TOPOCOLL_CHECK=1)");
    return raise(call.comm, codes[i]);
  }
  return MPI_SUCCESS;
}

bool same_request(const ScheduleRequest& a, const ScheduleRequest& b) {
  return a.collective == b.collective && a.ranks == b.ranks && a.root == b.root &&
         a.commutative == b.commutative && a.ports == b.ports && a.dims == b.dims;
}

// choose_algorithm, remembered per collective on this thread for the same inputs (loops
// repeat their calls): choosing walks the registry's requirements and builds strings, a
// large part of a small call's own cost (docs/mpi-benchmark.md, "Small messages").
const Choice& cached_choice(const Settings& settings, MpiCollective collective,
                            const ScheduleRequest& request, const std::vector<int>& cart,
                            std::uint64_t bytes, const std::string& blocker) {
  struct Cached {
    bool valid = false;
    std::uint64_t generation = 0;
    ScheduleRequest request;
    std::vector<int> cart;
    std::uint64_t bytes = 0;
    std::string blocker;
    Choice choice;
  };
  thread_local std::array<Cached, kMpiCollectives.size()> cache;
  Cached& slot = cache[static_cast<std::size_t>(collective)];
  if (slot.valid && slot.generation == settings.generation && slot.bytes == bytes &&
      same_request(slot.request, request) && slot.cart == cart && slot.blocker == blocker)
    return slot.choice;
  slot.choice = choose_algorithm(settings, collective, request, cart, bytes, blocker);
  slot.choice.max_message_bytes = settings.max_message_bytes;
  slot.generation = settings.generation;
  slot.request = request;
  slot.cart = cart;
  slot.bytes = bytes;
  slot.blocker = blocker;
  slot.valid = true;
  return slot.choice;
}

}  // namespace

const char* last_algorithm() { return last_algorithm_name.c_str(); }
const char* last_reason() { return last_reason_text.c_str(); }

bool aliased(const void* sendbuf, const void* recvbuf, MPI_Count count) {
  return count > 0 && sendbuf == recvbuf && sendbuf != MPI_BOTTOM && sendbuf != MPI_IN_PLACE;
}

void check_buffers(Call& call, const void* sendbuf, const void* recvbuf, MPI_Count count,
                   bool in_place_send_forbidden, bool recv_significant) {
  if (in_place_send_forbidden && sendbuf == MPI_IN_PLACE) {
    forbid_in_place(call, "MPI_IN_PLACE as sendbuf on a rank other than the root");
  } else if (recv_significant && recvbuf == MPI_IN_PLACE) {
    call.misuse = "MPI_IN_PLACE as recvbuf";
  } else if (recv_significant && aliased(sendbuf, recvbuf, count)) {
    call.misuse = "sendbuf and recvbuf are the same buffer (MPI_IN_PLACE is the way to say it)";
  }
}

void forbid_in_place(Call& call, const std::string& what) {
  call.misuse = what;
  call.raise_misuse = true;
}

int forbidden_in_place_class() {
  static const int error_class = [] {
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    PMPI_Get_library_version(version, &length);
    return std::string(version, static_cast<std::size_t>(length)).find("Open MPI") !=
                   std::string::npos
               ? MPI_ERR_ARG
               : MPI_ERR_BUFFER;
  }();
  return error_class;
}

int rank_in(MPI_Comm comm) {
  int rank = -1;
  if (comm != MPI_COMM_NULL) PMPI_Comm_rank(comm, &rank);
  return rank;
}

// Chooses, runs `body` (topocoll) or `fallback` (the MPI library), logs and records.
int serve(const Call& call, const Body& body, const Fallback& fallback) {
  last_reason_text.clear();
  const auto to_library = [&](const std::string& reason, bool verbose, int size) {
    if (verbose) log_call(call, size, "algorithm=mpi fallback=" + reason);
    last_algorithm_name = "mpi";
    last_reason_text = reason;
    return fallback();
  };
  // Arguments the MPI library rejects: it reports them as it always does.
  if (const std::string why = invalid_argument(call); !why.empty())
    return to_library(why + ": the MPI library reports it", false, 0);
  const Settings& settings = read_settings(call.collective, call.algorithm);
  int size = 0, inter = 0;
  PMPI_Comm_size(call.comm, &size);
  PMPI_Comm_test_inter(call.comm, &inter);
  if (call.raise_misuse) {
    report_error(call, size, call.misuse);
    last_algorithm_name = "error";
    last_reason_text = call.misuse;
    return raise(call.comm, forbidden_in_place_class());
  }
  if (!call.misuse.empty())
    return to_library(call.misuse + ": the MPI library reports it", settings.verbose, size);
  std::string blocker;
  if (inter) blocker = "intercommunicator";
  // MPI libraries differ on predefined operators over derived datatypes (Open MPI rejects
  // them, MPICH accepts those built from one basic type): leave the call to the library.
  if (blocker.empty() && call.op != MPI_OP_NULL && is_predefined_op(call.op) &&
      is_derived(call.type))
    blocker = "predefined operator on a derived datatype";
  ScheduleRequest request;
  request.collective = core_collective(call.collective);
  request.ranks = size;
  request.root = call.root >= 0 ? call.root : 0;
  if (call.op != MPI_OP_NULL && !inter) {
    int commutative = 1;
    PMPI_Op_commutative(call.op, &commutative);
    request.commutative = commutative != 0;
  }
  const std::vector<int> cart = inter ? std::vector<int>{} : cartesian_dims(call.comm);
  const Choice& choice =
      cached_choice(settings, call.collective, request, cart, call.bytes, blocker);

  const auto refuse = [&](const std::string& reason) {
    std::fprintf(stderr, "topocoll: error: %s: %s (TOPOCOLL_FALLBACK=error)\n",
                 mpi_collective_name(call.collective), reason.c_str());
    std::fflush(stderr);
    last_algorithm_name = "error";
    last_reason_text = reason;
    return MPI_ERR_ARG;
  };
  int rc = MPI_SUCCESS;
  if (settings.check && !inter) {
    CommState* state = state_for(call.comm, &rc);
    if (!state) return rc;
    if ((rc = check_agreement(call, choice, *state, size)) != MPI_SUCCESS) {
      last_algorithm_name = "error";
      last_reason_text = "ranks disagree (TOPOCOLL_CHECK=1)";
      return rc;
    }
  }
  if (choice.error) return refuse(choice.reason);
  if (choice.algorithm.empty()) return to_library(choice.reason, settings.verbose, size);

  CommState* state = state_for(call.comm, &rc);
  if (!state) return rc;
  take_p2p_error();
  try {
    rc = body(*state, choice);
  } catch (const std::bad_alloc&) {
    // A rank-local condition (others may be running the schedule): an error, not a fallback.
    report_error(call, size, choice.algorithm + ": out of memory for the schedule or its buffers");
    last_algorithm_name = "error";
    last_reason_text = "out of memory";
    return raise(call.comm, MPI_ERR_NO_MEM);
  } catch (const std::exception& e) {
    // Raised before any user data is touched (building or compiling the schedule), on every
    // rank alike.
    const std::string reason = in_runtime_terms(e.what());
    if (settings.algorithm != "auto") {
      if (settings.fallback == FallbackPolicy::error) return refuse(reason);
      if (settings.fallback == FallbackPolicy::warn)
        warn_once(reason + "; the MPI library's collective serves these calls");
    }
    return to_library(reason, settings.verbose, size);
  }
  if (rc != MPI_SUCCESS) {
    // An error of the schedule's point-to-point messages (the private communicator records
    // the code its error handler saw): reported on the user's communicator, whose error
    // handler decides (MPI_ERRORS_ARE_FATAL aborts the job), as the MPI library's own
    // collective would.
    const int recorded = take_p2p_error();
    const int code = recorded != MPI_SUCCESS ? recorded : rc;
    report_error(call, size,
                 choice.algorithm + ": " + error_text(code) +
                     ", in a point-to-point message of the schedule; the ranks may disagree on "
                     "the count, datatype or root, or on TOPOCOLL_* settings (TOPOCOLL_CHECK=1 "
                     "checks them before every call)");
    last_algorithm_name = "error";
    last_reason_text = error_text(code);
    return raise(call.comm, code);
  }
  if (settings.verbose) log_call(call, size, "algorithm=" + choice.algorithm);
  last_algorithm_name = choice.algorithm;
  return rc;
}

}  // namespace topocoll::mpi
