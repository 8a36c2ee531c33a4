// The reduction collectives (allreduce, reduce, reduce_scatter_block, reduce_scatter): they
// run on the user's datatype in its own layout and reduce with MPI_Reduce_local.
#include <algorithm>

#include "call.hpp"
#include "call_buffers.hpp"
#include "collectives.hpp"

namespace topocoll::mpi {

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
        return run(state, c, plan, type, op, vector, nullptr);
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
        return run(state, c, plan, type, op, vector, nullptr);
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
  const int rc = run(state, c, plan, type, op, vector, nullptr);
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
  if (negative || (!recvcounts && !inter)) return library();  // the MPI library reports it
  return serve(
      call,
      [&](CommState& state, const Choice& c) {
        return reduce_scatter_chunks(state, c, sendbuf, recvbuf, counts, datatype, op);
      },
      library);
}

}  // namespace topocoll::mpi
