#include "call.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "collectives.hpp"

namespace topocoll::mpi {
namespace {

thread_local std::string last_algorithm_name = "mpi";

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

bool is_derived(MPI_Datatype type) {
  int integers = 0, addresses = 0, types = 0, combiner = MPI_COMBINER_NAMED;
  PMPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner);
  return combiner != MPI_COMBINER_NAMED;
}

}  // namespace

const char* last_algorithm() { return last_algorithm_name.c_str(); }

// Chooses, runs `body` (topocoll) or `fallback` (the MPI library), logs and records.
int serve(const Call& call, const Body& body, const Fallback& fallback) {
  int inter = 0, size = 0;
  // Arguments the MPI library rejects: it reports them as it always does.
  const bool reduction = is_reduction(core_collective(call.collective));
  if (call.comm == MPI_COMM_NULL || call.count < 0 || call.type == MPI_DATATYPE_NULL ||
      (reduction && call.op == MPI_OP_NULL) ||
      PMPI_Comm_test_inter(call.comm, &inter) != MPI_SUCCESS)
    return fallback();
  const Settings settings = read_settings(call.collective, call.algorithm);
  PMPI_Comm_size(call.comm, &size);
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
  Choice choice = choose_algorithm(settings, call.collective, request, cart, call.bytes, blocker);
  choice.max_message_bytes = settings.max_message_bytes;

  const auto use_mpi = [&](const std::string& reason) {
    if (settings.verbose) log_call(call, size, "algorithm=mpi fallback=" + reason);
    last_algorithm_name = "mpi";
    return fallback();
  };
  const auto refuse = [&](const std::string& reason) {
    std::fprintf(stderr, "topocoll: error: %s: %s (TOPOCOLL_FALLBACK=error)\n",
                 mpi_collective_name(call.collective), reason.c_str());
    std::fflush(stderr);
    last_algorithm_name = "error";
    return MPI_ERR_ARG;
  };
  if (choice.error) return refuse(choice.reason);
  if (choice.algorithm.empty()) return use_mpi(choice.reason);

  int rc = MPI_SUCCESS;
  CommState* state = state_for(call.comm, &rc);
  if (!state) return rc;
  try {
    rc = body(*state, choice);
  } catch (const std::exception& e) {
    // Raised before any user data is touched (building or compiling the schedule).
    const std::string reason = e.what();
    if (settings.algorithm != "auto") {
      if (settings.fallback == FallbackPolicy::error) return refuse(reason);
      if (settings.fallback == FallbackPolicy::warn)
        warn_once(reason + "; the MPI library's collective serves these calls");
    }
    return use_mpi(reason);
  }
  if (settings.verbose) log_call(call, size, "algorithm=" + choice.algorithm);
  last_algorithm_name = choice.algorithm;
  return rc;
}

}  // namespace topocoll::mpi
