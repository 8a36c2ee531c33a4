#include "collectives.hpp"

#include <cstdio>
#include <functional>
#include <string>

#include "comm_state.hpp"
#include "core/partition.hpp"
#include "executor.hpp"
#include "selection.hpp"

namespace topocoll::mpi {
namespace {

thread_local std::string last_algorithm_name = "mpi";

struct Call {
  MpiCollective collective = MpiCollective::allreduce;
  MPI_Comm comm = MPI_COMM_NULL;
  const char* algorithm = nullptr;
  MPI_Count count = 0;  // the MPI count argument, for the log
  MPI_Datatype type = MPI_DATATYPE_NULL;
  int root = -1;
  MPI_Op op = MPI_OP_NULL;
  std::uint64_t bytes = 0;  // one rank's vector, for the rules
};

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

using Body = std::function<int(CommState&, const Choice&)>;
using Fallback = std::function<int()>;

// Chooses, runs `body` (topocoll) or `fallback` (the MPI library), logs and records.
int serve(const Call& call, const Body& body, const Fallback& fallback) {
  int inter = 0, size = 0;
  if (call.comm == MPI_COMM_NULL || PMPI_Comm_test_inter(call.comm, &inter) != MPI_SUCCESS)
    return fallback();  // the MPI library reports the invalid communicator
  const Settings settings = read_settings(call.collective, call.algorithm);
  PMPI_Comm_size(call.comm, &size);
  std::string blocker;
  if (inter) blocker = "intercommunicator";
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

SlotSizes offsets_of(const BlockPartition& partition) {
  SlotSizes sizes;
  sizes.user_offsets.reserve(static_cast<std::size_t>(partition.blocks()) + 1);
  for (int b = 0; b < partition.blocks(); ++b)
    sizes.user_offsets.push_back(partition.offset(static_cast<BlockIndex>(b)));
  sizes.user_offsets.push_back(partition.total());
  return sizes;
}

// Chunk r holds counts[r] elements, split into S = B / P blocks by the early/late rule.
SlotSizes chunk_offsets(const ScheduleInfo& info, const std::vector<std::uint64_t>& counts) {
  SlotSizes sizes;
  sizes.user_offsets.push_back(0);
  const int per_chunk = info.blocks_per_chunk();
  for (std::uint64_t count : counts) {
    const BlockPartition split(count, per_chunk);
    for (int b = 0; b < per_chunk; ++b)
      sizes.user_offsets.push_back(sizes.user_offsets.back() +
                                   split.size(static_cast<BlockIndex>(b)));
  }
  return sizes;
}

ProgramKey key_of(const Choice& c) {
  return {c.algorithm, static_cast<int>(c.request.collective), c.request.root,
          c.request.commutative, c.request.dims};
}

const Plan& uniform_plan(CommState& state, const Choice& c, std::uint64_t count) {
  const RankProgram& program = state.program(c.algorithm, c.request);
  return state.plan(key_of(c), program, offsets_of(BlockPartition(program.info, count)),
                    c.request.commutative);
}

int run(CommState& state, const Plan& plan, const ElementType& type, MPI_Op op, bool commutative,
        char* user, char* receive) {
  ExecutionContext context;
  context.comm = state.comm();
  context.type = type;
  context.op = op;
  context.commutative = commutative;
  state.workspace.reserve(type, plan.workspace_elements);
  context.bases = {user, receive, state.workspace.base()};
  return execute_plan(plan, context);
}

char* writable(const void* p) { return static_cast<char*>(const_cast<void*>(p)); }

// Bytes of one rank's data (count x type size).
std::uint64_t bytes_of(MPI_Count count, MPI_Datatype type) {
  if (type == MPI_DATATYPE_NULL) return 0;
  MPI_Count size = 0;
  PMPI_Type_size_x(type, &size);
  return static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(size);
}

// A user buffer of packed bytes: the buffer itself when the type is contiguous, else `area`
// (packed from `source` when `pack`).
char* packed_view(char* buffer, MPI_Count count, const ElementType& type, ElementBuffer& area,
                  std::uint64_t area_bytes, bool pack) {
  if (type.contiguous) return buffer + type.true_lb;
  area.reserve(ElementType::bytes(), area_bytes);
  if (pack) pack_elements(area.base(), buffer, static_cast<std::uint64_t>(count), type);
  return area.base();
}

}  // namespace

const char* last_algorithm() { return last_algorithm_name.c_str(); }

int allreduce(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, const char* algorithm) {
  const Call call{MpiCollective::allreduce, comm, algorithm, count, datatype, -1, op,
                  bytes_of(count, datatype)};
  return serve(
      call,
      [&](CommState& state, const Choice& c) {
        const Plan& plan = uniform_plan(state, c, static_cast<std::uint64_t>(count));
        const ElementType type = ElementType::of(datatype);
        char* vector = static_cast<char*>(recvbuf);
        if (sendbuf != MPI_IN_PLACE)
          copy_elements(vector, static_cast<const char*>(sendbuf),
                        static_cast<std::uint64_t>(count), type);
        return run(state, plan, type, op, c.request.commutative, vector, nullptr);
      },
      [&] {
        return PMPI_Allreduce(sendbuf, recvbuf, static_cast<int>(count), datatype, op, comm);
      });
}

int reduce(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
           int root, MPI_Comm comm, const char* algorithm) {
  const Call call{MpiCollective::reduce,    comm, algorithm, count, datatype, root, op,
                  bytes_of(count, datatype)};
  return serve(
      call,
      [&](CommState& state, const Choice& c) {
        const Plan& plan = uniform_plan(state, c, static_cast<std::uint64_t>(count));
        const ElementType type = ElementType::of(datatype);
        const auto n = static_cast<std::uint64_t>(count);
        char* vector = nullptr;
        if (state.rank() == root) {
          vector = static_cast<char*>(recvbuf);
          if (sendbuf != MPI_IN_PLACE)
            copy_elements(vector, static_cast<const char*>(sendbuf), n, type);
        } else if (!plan.writes_user_region) {
          vector = writable(sendbuf);  // this rank only sends its contribution
        } else {
          state.area[0].reserve(type, n);
          vector = state.area[0].base();
          copy_elements(vector, static_cast<const char*>(sendbuf), n, type);
        }
        return run(state, plan, type, op, c.request.commutative, vector, nullptr);
      },
      [&] {
        return PMPI_Reduce(sendbuf, recvbuf, static_cast<int>(count), datatype, op, root, comm);
      });
}

namespace {

// Reduce-scatter with chunk r of counts[r] elements; the result lands at the start of recvbuf.
int reduce_scatter_chunks(CommState& state, const Choice& c, const void* sendbuf, void* recvbuf,
                          const std::vector<std::uint64_t>& counts, MPI_Datatype datatype,
                          MPI_Op op) {
  const RankProgram& program = state.program(c.algorithm, c.request);
  const Plan& plan =
      state.plan(key_of(c), program, chunk_offsets(program.info, counts), c.request.commutative);
  const ElementType type = ElementType::of(datatype);
  std::uint64_t total = 0, mine = 0;
  for (int r = 0; r < static_cast<int>(counts.size()); ++r) {
    if (r == state.rank()) mine = total;
    total += counts[static_cast<std::size_t>(r)];
  }
  char* vector = static_cast<char*>(recvbuf);
  if (sendbuf != MPI_IN_PLACE) {
    state.area[0].reserve(type, total);
    vector = state.area[0].base();
    copy_elements(vector, static_cast<const char*>(sendbuf), total, type);
  }
  const int rc = run(state, plan, type, op, c.request.commutative, vector, nullptr);
  if (rc == MPI_SUCCESS)
    copy_elements(static_cast<char*>(recvbuf), type.at(vector, mine),
                  counts[static_cast<std::size_t>(state.rank())], type);
  return rc;
}

}  // namespace

int reduce_scatter_block(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const char* algorithm) {
  const Call call{MpiCollective::reduce_scatter_block, comm, algorithm, recvcount, datatype, -1, op,
                  bytes_of(recvcount, datatype)};
  return serve(
      call,
      [&](CommState& state, const Choice& c) {
        const std::vector<std::uint64_t> counts(static_cast<std::size_t>(state.size()),
                                                static_cast<std::uint64_t>(recvcount));
        return reduce_scatter_chunks(state, c, sendbuf, recvbuf, counts, datatype, op);
      },
      [&] {
        return PMPI_Reduce_scatter_block(sendbuf, recvbuf, static_cast<int>(recvcount), datatype,
                                         op, comm);
      });
}

int reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const char* algorithm) {
  int size = 0, inter = 0;
  if (comm != MPI_COMM_NULL) {
    PMPI_Comm_test_inter(comm, &inter);
    PMPI_Comm_size(comm, &size);
  }
  std::vector<std::uint64_t> counts;
  std::uint64_t total = 0;
  bool negative = false;
  for (int r = 0; r < size && !inter && recvcounts; ++r) {
    negative = negative || recvcounts[r] < 0;
    counts.push_back(static_cast<std::uint64_t>(std::max(recvcounts[r], 0)));
    total += counts.back();
  }
  const Call call{MpiCollective::reduce_scatter,
                  comm,
                  algorithm,
                  static_cast<MPI_Count>(total),
                  datatype,
                  -1,
                  op,
                  size > 0 ? bytes_of(static_cast<MPI_Count>(total), datatype) / size : 0};
  const Fallback library = [&] {
    return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
  };
  if (negative) return library();  // the MPI library reports the invalid count
  return serve(
      call,
      [&](CommState& state, const Choice& c) {
        return reduce_scatter_chunks(state, c, sendbuf, recvbuf, counts, datatype, op);
      },
      library);
}

int allgather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, const char* algorithm) {
  const Call call{
      MpiCollective::allgather,     comm, algorithm, recvcount, recvtype, -1, MPI_OP_NULL,
      bytes_of(recvcount, recvtype)};
  return serve(
      call,
      [&](CommState& state, const Choice& c) {
        const ElementType rtype = ElementType::of(recvtype);
        const std::uint64_t chunk = static_cast<std::uint64_t>(recvcount) * rtype.size;
        const Plan& plan = uniform_plan(state, c, chunk);
        const int p = state.size(), me = state.rank();
        char* user = static_cast<char*>(recvbuf);
        char* vector = packed_view(user, recvcount * p, rtype, state.area[0], chunk * p, false);
        char* own = vector + chunk * static_cast<std::uint64_t>(me);
        if (sendbuf != MPI_IN_PLACE) {
          pack_elements(own, static_cast<const char*>(sendbuf),
                        static_cast<std::uint64_t>(sendcount), ElementType::of(sendtype));
        } else if (!rtype.contiguous) {
          pack_elements(own, rtype.at(user, static_cast<std::uint64_t>(recvcount) * me),
                        static_cast<std::uint64_t>(recvcount), rtype);
        }
        const int rc = run(state, plan, ElementType::bytes(), MPI_OP_NULL, true, vector, nullptr);
        if (rc == MPI_SUCCESS && !rtype.contiguous)
          unpack_elements(user, vector, static_cast<std::uint64_t>(recvcount) * p, rtype);
        return rc;
      },
      [&] {
        return PMPI_Allgather(sendbuf, static_cast<int>(sendcount), sendtype, recvbuf,
                              static_cast<int>(recvcount), recvtype, comm);
      });
}

int bcast(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
          const char* algorithm) {
  const Call call{MpiCollective::bcast,     comm, algorithm, count, datatype, root, MPI_OP_NULL,
                  bytes_of(count, datatype)};
  return serve(
      call,
      [&](CommState& state, const Choice& c) {
        const ElementType type = ElementType::of(datatype);
        const std::uint64_t bytes = static_cast<std::uint64_t>(count) * type.size;
        const Plan& plan = uniform_plan(state, c, bytes);
        const bool root_rank = state.rank() == root;
        char* user = static_cast<char*>(buffer);
        char* vector = packed_view(user, count, type, state.area[0], bytes, root_rank);
        const int rc = run(state, plan, ElementType::bytes(), MPI_OP_NULL, true, vector, nullptr);
        if (rc == MPI_SUCCESS && !type.contiguous && !root_rank)
          unpack_elements(user, vector, static_cast<std::uint64_t>(count), type);
        return rc;
      },
      [&] { return PMPI_Bcast(buffer, static_cast<int>(count), datatype, root, comm); });
}

int gather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
           MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
           const char* algorithm) {
  int rank = -1;
  if (comm != MPI_COMM_NULL) PMPI_Comm_rank(comm, &rank);
  // Only the root's receive arguments are significant; with MPI_IN_PLACE its send ones are not.
  const bool at_root_in_place = rank == root && sendbuf == MPI_IN_PLACE;
  const MPI_Count count = at_root_in_place ? recvcount : sendcount;
  const MPI_Datatype type = at_root_in_place ? recvtype : sendtype;
  const Call call{MpiCollective::gather, comm, algorithm, count, type, root, MPI_OP_NULL,
                  bytes_of(count, type)};
  return serve(
      call,
      [&](CommState& state, const Choice& c) {
        const std::uint64_t chunk = bytes_of(count, type);
        const Plan& plan = uniform_plan(state, c, chunk);
        const int p = state.size();
        const auto offset = chunk * static_cast<std::uint64_t>(rank);
        if (rank != root) {
          state.area[0].reserve(ElementType::bytes(), chunk * p);
          char* vector = state.area[0].base();
          pack_elements(vector + offset, static_cast<const char*>(sendbuf),
                        static_cast<std::uint64_t>(sendcount), ElementType::of(sendtype));
          return run(state, plan, ElementType::bytes(), MPI_OP_NULL, true, vector, nullptr);
        }
        const ElementType rtype = ElementType::of(recvtype);
        char* user = static_cast<char*>(recvbuf);
        char* vector = packed_view(user, recvcount * p, rtype, state.area[0], chunk * p, false);
        if (sendbuf != MPI_IN_PLACE) {
          pack_elements(vector + offset, static_cast<const char*>(sendbuf),
                        static_cast<std::uint64_t>(sendcount), ElementType::of(sendtype));
        } else if (!rtype.contiguous) {
          pack_elements(vector + offset,
                        rtype.at(user, static_cast<std::uint64_t>(recvcount) * rank),
                        static_cast<std::uint64_t>(recvcount), rtype);
        }
        const int rc = run(state, plan, ElementType::bytes(), MPI_OP_NULL, true, vector, nullptr);
        if (rc == MPI_SUCCESS && !rtype.contiguous)
          unpack_elements(user, vector, static_cast<std::uint64_t>(recvcount) * p, rtype);
        return rc;
      },
      [&] {
        return PMPI_Gather(sendbuf, static_cast<int>(sendcount), sendtype, recvbuf,
                           static_cast<int>(recvcount), recvtype, root, comm);
      });
}

int scatter(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
            MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
            const char* algorithm) {
  int rank = -1;
  if (comm != MPI_COMM_NULL) PMPI_Comm_rank(comm, &rank);
  // The root's send arguments are significant there; everywhere else the receive ones.
  const bool root_rank = rank == root;
  const MPI_Count count = root_rank ? sendcount : recvcount;
  const MPI_Datatype type = root_rank ? sendtype : recvtype;
  const Call call{MpiCollective::scatter, comm, algorithm, count, type, root, MPI_OP_NULL,
                  bytes_of(count, type)};
  return serve(
      call,
      [&](CommState& state, const Choice& c) {
        const std::uint64_t chunk = bytes_of(count, type);
        const Plan& plan = uniform_plan(state, c, chunk);
        const int p = state.size();
        const auto offset = chunk * static_cast<std::uint64_t>(rank);
        char* vector = nullptr;
        if (root_rank) {
          const ElementType stype = ElementType::of(sendtype);
          if (stype.contiguous && !plan.writes_user_region) {
            vector = writable(sendbuf) + stype.true_lb;
          } else {
            state.area[0].reserve(ElementType::bytes(), chunk * p);
            vector = state.area[0].base();
            pack_elements(vector, static_cast<const char*>(sendbuf),
                          static_cast<std::uint64_t>(sendcount) * p, stype);
          }
        } else {
          state.area[0].reserve(ElementType::bytes(), chunk * p);
          vector = state.area[0].base();
        }
        const int rc = run(state, plan, ElementType::bytes(), MPI_OP_NULL, true, vector, nullptr);
        if (rc == MPI_SUCCESS && recvbuf != MPI_IN_PLACE)
          unpack_elements(static_cast<char*>(recvbuf), vector + offset,
                          static_cast<std::uint64_t>(recvcount), ElementType::of(recvtype));
        return rc;
      },
      [&] {
        return PMPI_Scatter(sendbuf, static_cast<int>(sendcount), sendtype, recvbuf,
                            static_cast<int>(recvcount), recvtype, root, comm);
      });
}

int alltoall(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, const char* algorithm) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const MPI_Count count = in_place ? recvcount : sendcount;
  const MPI_Datatype type = in_place ? recvtype : sendtype;
  const Call call{MpiCollective::alltoall, comm, algorithm, count, type, -1, MPI_OP_NULL,
                  bytes_of(count, type)};
  return serve(
      call,
      [&](CommState& state, const Choice& c) {
        const std::uint64_t chunk = bytes_of(count, type);
        const Plan& plan = uniform_plan(state, c, chunk);
        const auto p = static_cast<std::uint64_t>(state.size());
        const ElementType rtype = ElementType::of(recvtype);
        char* user = static_cast<char*>(recvbuf);
        // The send slots: a copy when the schedule writes them or the data is in recvbuf.
        char* send_slots = nullptr;
        const ElementType stype = in_place ? rtype : ElementType::of(sendtype);
        const char* source = in_place ? user : static_cast<const char*>(sendbuf);
        const auto send_elements = static_cast<std::uint64_t>(in_place ? recvcount : sendcount) * p;
        if (!in_place && stype.contiguous && !plan.writes_user_region) {
          send_slots = writable(sendbuf) + stype.true_lb;
        } else {
          state.area[0].reserve(ElementType::bytes(), chunk * p);
          send_slots = state.area[0].base();
          pack_elements(send_slots, source, send_elements, stype);
        }
        char* receive_slots = packed_view(user, recvcount * static_cast<MPI_Count>(p), rtype,
                                          state.area[1], chunk * p, false);
        const int rc =
            run(state, plan, ElementType::bytes(), MPI_OP_NULL, true, send_slots, receive_slots);
        if (rc == MPI_SUCCESS && !rtype.contiguous)
          unpack_elements(user, receive_slots, static_cast<std::uint64_t>(recvcount) * p, rtype);
        return rc;
      },
      [&] {
        return PMPI_Alltoall(sendbuf, static_cast<int>(sendcount), sendtype, recvbuf,
                             static_cast<int>(recvcount), recvtype, comm);
      });
}

}  // namespace topocoll::mpi
