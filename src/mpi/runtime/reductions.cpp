// The reduction collectives (allreduce, reduce, reduce_scatter_block, reduce_scatter): they
// run on the user's datatype in its own layout and reduce with MPI_Reduce_local.
#include <algorithm>
#include <functional>

#include "arguments.hpp"
#include "call.hpp"
#include "call_buffers.hpp"
#include "collectives.hpp"
#include "core/fnv1a.hpp"
#include "library.hpp"

namespace topocoll::mpi {

int allreduce(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, const char* algorithm) {
  Call call{MpiCollective::allreduce,  comm, algorithm, count, datatype, -1, op,
            bytes_of(count, datatype), 0,    {}};
  check_buffers(call, sendbuf, recvbuf, count, false, true);
  return serve(
      call,
      [&](CommState& state, const Choice& c) {
        const Plan& plan = uniform_plan(state, c, static_cast<std::uint64_t>(count));
        const ElementType type = ElementType::of(datatype);
        char* vector = static_cast<char*>(recvbuf);
        if (sendbuf != MPI_IN_PLACE)
          copy_elements(vector, static_cast<const char*>(sendbuf),
                        static_cast<std::uint64_t>(count), type);
        return run(state, c, plan, type, op, vector, nullptr);
      },
      [&] { return library_allreduce(sendbuf, recvbuf, count, datatype, op, comm); });
}

int reduce(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
           int root, MPI_Comm comm, const char* algorithm) {
  Call call{MpiCollective::reduce,     comm, algorithm, count, datatype, root, op,
            bytes_of(count, datatype), 0,    {}};
  const bool at_root = rank_in(comm) == root;
  check_buffers(call, sendbuf, recvbuf, count, !at_root, at_root);
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
        return run(state, c, plan, type, op, vector, nullptr);
      },
      [&] { return library_reduce(sendbuf, recvbuf, count, datatype, op, root, comm); });
}

namespace {

// The plan of chunks of counts[r] elements. Equal chunks (reduce_scatter_block) are found by
// their count among the recent plans, as uniform_plan finds the other collectives' plans,
// instead of by their offsets: building and comparing those cost a 2-rank call 0.2-0.5 us.
const Plan& chunk_plan(CommState& state, const Choice& c, const std::vector<std::uint64_t>& counts,
                       bool equal) {
  if (equal)
    if (const Plan* recent = state.recent_plan(c.algorithm, c.request, counts.front()))
      return *recent;
  const RankProgram& program = state.program(c.algorithm, c.request);
  const ProgramKey key = key_of(c);
  const Plan& plan =
      state.plan(key, program, chunk_offsets(program.info, counts), c.request.commutative);
  if (equal) state.remember_plan(key, counts.front(), plan);
  return plan;
}

// Reduce-scatter with chunk r of counts[r] elements (`equal`: all the same); the result lands at
// the start of recvbuf.
int reduce_scatter_chunks(CommState& state, const Choice& c, const void* sendbuf, void* recvbuf,
                          const std::vector<std::uint64_t>& counts, bool equal,
                          MPI_Datatype datatype, MPI_Op op) {
  const Plan& plan = chunk_plan(state, c, counts, equal);
  const ElementType type = ElementType::of(datatype);
  std::uint64_t total = 0, mine = 0;
  for (int r = 0; r < static_cast<int>(counts.size()); ++r) {
    if (r == state.rank()) mine = total;
    total += counts[static_cast<std::size_t>(r)];
  }
  // The schedule writes the whole vector, but the call defines only this rank's chunk at the
  // start of recvbuf: in place too, the rest of recvbuf stays as the caller left it (MPI 3.1
  // section 5.10), so the schedule runs on a copy.
  const void* input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  state.area[0].reserve(type, total);
  char* vector = state.area[0].base();
  copy_elements(vector, static_cast<const char*>(input), total, type);
  const int rc = run(state, c, plan, type, op, vector, nullptr);
  if (rc == MPI_SUCCESS)
    copy_elements(static_cast<char*>(recvbuf), type.at(vector, mine),
                  counts[static_cast<std::size_t>(state.rank())], type);
  return rc;
}

// The MPI library's reduce-scatter in place, given to it out of place over a copy of the
// input (`total` elements of recvbuf): Open MPI 4.1.4's algorithm for non-commutative
// operators writes rank 0's whole receive buffer, beyond the result the call defines.
// `library(sendbuf)` calls the MPI library's collective. Invalid arguments reach it as given.
int library_in_place(void* recvbuf, std::uint64_t total, MPI_Datatype datatype, MPI_Comm comm,
                     const std::function<int(const void*)>& library) {
  int inter = 1;
  if (comm == MPI_COMM_NULL || datatype == MPI_DATATYPE_NULL || recvbuf == MPI_IN_PLACE ||
      total == 0 || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
    return library(MPI_IN_PLACE);
  const ElementType type = ElementType::of(datatype);
  ElementBuffer input;
  input.reserve(type, total);
  copy_elements(input.base(), static_cast<const char*>(recvbuf), total, type);
  return library(input.base());
}

}  // namespace

int reduce_scatter_block(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const char* algorithm) {
  Call call{MpiCollective::reduce_scatter_block, comm, algorithm, recvcount, datatype, -1, op,
            bytes_of(recvcount, datatype),       0,    {}};
  check_buffers(call, sendbuf, recvbuf, recvcount, false, true);
  return serve(
      call,
      [&](CommState& state, const Choice& c) {
        const std::vector<std::uint64_t> counts(static_cast<std::size_t>(state.size()),
                                                static_cast<std::uint64_t>(recvcount));
        return reduce_scatter_chunks(state, c, sendbuf, recvbuf, counts, true, datatype, op);
      },
      [&] {
        const auto library = [&](const void* input) {
          return library_reduce_scatter_block(input, recvbuf, recvcount, datatype, op, comm);
        };
        if (sendbuf != MPI_IN_PLACE || recvcount <= 0) return library(sendbuf);
        int size = 0;
        if (comm != MPI_COMM_NULL) PMPI_Comm_size(comm, &size);
        return library_in_place(recvbuf, static_cast<std::uint64_t>(recvcount) * size, datatype,
                                comm, library);
      });
}

namespace {

// MPI_Reduce_scatter with `recvcounts` of either binding (int, or MPI_Count for the MPI-4
// large-count one); `library(input)` calls the MPI library's own with the caller's counts.
template <typename Count>
int reduce_scatter_counts(const void* sendbuf, void* recvbuf, const Count recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const char* algorithm,
                          const std::function<int(const void*)>& library) {
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
    counts.push_back(static_cast<std::uint64_t>(std::max<Count>(recvcounts[r], 0)));
    total += counts.back();
  }
  Call call{MpiCollective::reduce_scatter,
            comm,
            algorithm,
            static_cast<MPI_Count>(total),
            datatype,
            -1,
            op,
            size > 0 ? bytes_of(static_cast<MPI_Count>(total), datatype) / size : 0,
            0,
            {}};
  check_buffers(call, sendbuf, recvbuf, static_cast<MPI_Count>(total), false, true);
  // Every rank must pass the same recvcounts: agreeing on their hash covers them all.
  std::uint64_t agreed = fnv1a_add(kFnv1aOffset, bytes_of(1, datatype));
  for (std::uint64_t c : counts) agreed = fnv1a_add(agreed, c);
  call.agreed = agreed | 1;
  // The MPI library reports these.
  if (negative || (!recvcounts && !inter)) return library(sendbuf);
  return serve(
      call,
      [&](CommState& state, const Choice& c) {
        return reduce_scatter_chunks(state, c, sendbuf, recvbuf, counts, false, datatype, op);
      },
      [&] {
        if (sendbuf != MPI_IN_PLACE) return library(sendbuf);
        return library_in_place(recvbuf, total, datatype, comm, library);
      });
}

}  // namespace

int reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const char* algorithm) {
  return reduce_scatter_counts(
      sendbuf, recvbuf, recvcounts, datatype, op, comm, algorithm, [&](const void* input) {
        return PMPI_Reduce_scatter(input, recvbuf, recvcounts, datatype, op, comm);
      });
}

int reduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const char* algorithm) {
  return reduce_scatter_counts(
      sendbuf, recvbuf, recvcounts, datatype, op, comm, algorithm, [&](const void* input) {
        return library_reduce_scatter(input, recvbuf, recvcounts, datatype, op, comm);
      });
}

}  // namespace topocoll::mpi
