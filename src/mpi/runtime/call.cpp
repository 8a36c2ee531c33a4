#include "call.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <new>
#include <string>
#include <vector>

#include "agreement.hpp"
#include "arguments.hpp"
#include "call_report.hpp"
#include "collectives.hpp"
#include "element_type.hpp"

namespace topocoll::mpi {
namespace {

thread_local std::string last_algorithm_name = "mpi";
thread_local std::string last_reason_text;

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

bool is_derived(MPI_Datatype type) { return ElementType::named(type) == nullptr; }

// MPI libraries differ on predefined operators over derived datatypes (Open MPI rejects them,
// MPICH accepts those built from one basic type): such calls, like intercommunicators, are
// the library's. Empty when no such reason applies.
std::string blocker_of(const Call& call, bool inter) {
  if (inter) return "intercommunicator";
  if (call.op != MPI_OP_NULL && is_predefined_op(call.op) && is_derived(call.type))
    return "predefined operator on a derived datatype";
  return "";
}

ScheduleRequest request_of(const Call& call, int size, bool inter) {
  ScheduleRequest request;
  request.collective = core_collective(call.collective);
  request.ranks = size;
  request.root = call.root >= 0 ? call.root : 0;
  if (call.op != MPI_OP_NULL && !inter) {
    int commutative = 1;
    PMPI_Op_commutative(call.op, &commutative);
    request.commutative = commutative != 0;
  }
  return request;
}

// One call on its way: how it ends is recorded for topocoll_last_algorithm/_reason.
struct Serving {
  const Call& call;
  Fallback fallback;
  const Settings& settings;
  int size = 0;
  std::string nodes;  // "nodes=NxK " in the verbose line, when the call looked them up

  // The MPI library's collective serves the call.
  int to_library(const std::string& reason) const {
    if (settings.verbose) log_call(call, size, nodes + "algorithm=mpi fallback=" + reason);
    record("mpi", reason);
    return fallback();
  }
  // TOPOCOLL_FALLBACK=error: MPI_ERR_ARG returned, not raised (docs/mpi.md).
  int refuse(const std::string& reason) const {
    std::fprintf(stderr, "topocoll: error: %s: %s (TOPOCOLL_FALLBACK=error)\n",
                 mpi_collective_name(call.collective), reason.c_str());
    std::fflush(stderr);
    record("error", reason);
    return MPI_ERR_ARG;
  }
  // An error raised on the user's communicator after the line naming the call.
  int fail(const std::string& line, const std::string& reason, int code) const {
    if (!line.empty()) report_error(call, size, line);
    record("error", reason);
    return raise_on(call.comm, code);
  }
  static void record(const std::string& algorithm, const std::string& reason) {
    last_algorithm_name = algorithm;
    last_reason_text = reason;
  }
};

// Runs topocoll's schedule; errors raised by building it fall back, the others fail the call.
int run_body(const Serving& serving, const Choice& choice, Body body, CommState& state) {
  const Settings& settings = serving.settings;
  int rc = MPI_SUCCESS;
  take_p2p_error();
  try {
    rc = body(state, choice);
  } catch (const std::bad_alloc&) {
    // A rank-local condition (others may be running the schedule): an error, not a fallback.
    return serving.fail(choice.algorithm + ": out of memory for the schedule or its buffers",
                        "out of memory", MPI_ERR_NO_MEM);
  } catch (const std::exception& e) {
    // Raised before any user data is touched (building or compiling the schedule), on every
    // rank alike.
    const std::string reason = in_runtime_terms(e.what());
    if (settings.algorithm != "auto") {
      if (settings.fallback == FallbackPolicy::error) return serving.refuse(reason);
      if (settings.fallback == FallbackPolicy::warn)
        warn_once(reason + "; the MPI library's collective serves these calls");
    }
    return serving.to_library(reason);
  }
  if (rc != MPI_SUCCESS) {
    // An error of the schedule's point-to-point messages (the private communicator's error
    // handler recorded its code), raised on the user's communicator as the MPI library's own
    // collective would: MPI_ERRORS_ARE_FATAL ends the job.
    const int recorded = take_p2p_error();
    const int code = recorded != MPI_SUCCESS ? recorded : rc;
    return serving.fail(choice.algorithm + ": " + error_text(code) +
                            ", in a point-to-point message of the schedule; the ranks may "
                            "disagree on the count, datatype or root, or on TOPOCOLL_* settings "
                            "(TOPOCOLL_CHECK=1 checks them before every call)",
                        error_text(code), code);
  }
  if (settings.verbose)
    log_call(serving.call, serving.size,
             serving.nodes + "algorithm=" + choice.algorithm +
                 (choice.prediction.empty() ? "" : " " + choice.prediction));
  Serving::record(choice.algorithm, "");
  return rc;
}

}  // namespace

const char* last_algorithm() { return last_algorithm_name.c_str(); }
const char* last_reason() { return last_reason_text.c_str(); }

// Chooses, runs `body` (topocoll) or `fallback` (the MPI library), logs and records.
int serve(const Call& call, Body body, Fallback fallback) {
  // Arguments the MPI library rejects: it reports them as it always does.
  int size = 0, inter = 0;
  if (const std::string why = invalid_argument(call, &size, &inter); !why.empty()) {
    Serving::record("mpi", why + ": the MPI library reports it");
    return fallback();
  }
  Serving serving{call, fallback, read_settings(call.collective, call.algorithm), size, {}};
  const Settings& settings = serving.settings;
  if (call.raise_misuse) return serving.fail(call.misuse, call.misuse, forbidden_in_place_class());
  if (!call.misuse.empty()) return serving.to_library(call.misuse + ": the MPI library reports it");
  const std::vector<int> cart = inter ? std::vector<int>{} : cartesian_dims(call.comm);
  ScheduleRequest request = request_of(call, size, inter != 0);
  int rc = MPI_SUCCESS;
  std::string node_rejection;
  if (settings.needs_nodes && !inter) {
    // Every rank gets here at the same call (the settings agree), as the lookup communicates.
    CommState* state = state_for(call.comm, &rc);
    if (!state) return rc;
    const NodeLayout& layout = state->nodes(settings.ranks_per_node);
    request.ranks_per_node = layout.per_node;
    node_rejection = layout.rejection;
    if (layout.rejection.empty()) serving.nodes = "nodes=" + describe(layout) + " ";
  }
  const Choice& choice = remembered_choice(settings, call.collective, request, cart, call.bytes,
                                           blocker_of(call, inter != 0), node_rejection);
  if (settings.check && !inter) {
    CommState* state = state_for(call.comm, &rc);
    if (!state) return rc;
    if ((rc = check_agreement(call, choice, *state, size)) != MPI_SUCCESS) {
      Serving::record("error", "ranks disagree (TOPOCOLL_CHECK=1)");
      return rc;
    }
  }
  if (choice.error) return serving.refuse(choice.reason);
  if (choice.algorithm.empty()) return serving.to_library(choice.reason);
  CommState* state = state_for(call.comm, &rc);
  if (!state) return rc;
  return run_body(serving, choice, body, *state);
}

}  // namespace topocoll::mpi
