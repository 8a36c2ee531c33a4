// The data movement collectives (allgather, bcast, gather, scatter, alltoall): they move the
// type signature's bytes, in place for contiguous datatypes, packed otherwise.
#include "arguments.hpp"
#include "call.hpp"
#include "call_buffers.hpp"
#include "collectives.hpp"
#include "library.hpp"

namespace topocoll::mpi {
namespace {

// This rank's contribution at `own`, its chunk (number `index`) of the packed receive vector:
// packed from sendbuf or, in place, from its chunk of a non-contiguous receive buffer `user`
// (a contiguous one is the vector itself, where the data already is).
void place_own_chunk(char* own, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                     char* user, MPI_Count recvcount, int index, const ElementType& rtype) {
  if (sendbuf != MPI_IN_PLACE) {
    pack_elements(own, static_cast<const char*>(sendbuf), static_cast<std::uint64_t>(sendcount),
                  ElementType::of(sendtype));
  } else if (!rtype.contiguous) {
    pack_elements(own, rtype.at(user, static_cast<std::uint64_t>(recvcount) * index),
                  static_cast<std::uint64_t>(recvcount), rtype);
  }
}

}  // namespace

int allgather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, const char* algorithm) {
  Call call{MpiCollective::allgather,      comm, algorithm, recvcount, recvtype, -1, MPI_OP_NULL,
            bytes_of(recvcount, recvtype), 0,    {}};
  check_buffers(call, sendbuf, recvbuf, recvcount, false, true);
  return serve(
      call,
      [&](CommState& state, const Choice& c) {
        const ElementType rtype = ElementType::of(recvtype);
        const std::uint64_t chunk = static_cast<std::uint64_t>(recvcount) * rtype.size;
        const Plan& plan = uniform_plan(state, c, chunk);
        const int p = state.size(), me = state.rank();
        char* user = static_cast<char*>(recvbuf);
        char* vector = packed_view(user, recvcount * p, rtype, state.area[0], chunk * p, false);
        place_own_chunk(vector + chunk * static_cast<std::uint64_t>(me), sendbuf, sendcount,
                        sendtype, user, recvcount, me, rtype);
        const int rc = run(state, c, plan, ElementType::bytes(), MPI_OP_NULL, vector, nullptr);
        if (rc == MPI_SUCCESS && !rtype.contiguous)
          unpack_elements(user, vector, static_cast<std::uint64_t>(recvcount) * p, rtype);
        return rc;
      },
      [&] {
        return library_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
      });
}

int bcast(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
          const char* algorithm) {
  Call call{MpiCollective::bcast,      comm, algorithm, count, datatype, root, MPI_OP_NULL,
            bytes_of(count, datatype), 0,    {}};
  if (buffer == MPI_IN_PLACE) forbid_in_place(call, "MPI_IN_PLACE as the buffer of MPI_Bcast");
  return serve(
      call,
      [&](CommState& state, const Choice& c) {
        const ElementType type = ElementType::of(datatype);
        const std::uint64_t bytes = static_cast<std::uint64_t>(count) * type.size;
        const Plan& plan = uniform_plan(state, c, bytes);
        const bool root_rank = state.rank() == root;
        char* user = static_cast<char*>(buffer);
        char* vector = packed_view(user, count, type, state.area[0], bytes, root_rank);
        const int rc = run(state, c, plan, ElementType::bytes(), MPI_OP_NULL, vector, nullptr);
        if (rc == MPI_SUCCESS && !type.contiguous && !root_rank)
          unpack_elements(user, vector, static_cast<std::uint64_t>(count), type);
        return rc;
      },
      [&] { return library_bcast(buffer, count, datatype, root, comm); });
}

int gather(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
           MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
           const char* algorithm) {
  const int rank = rank_in(comm);
  // Only the root's receive arguments are significant; with MPI_IN_PLACE its send ones are not.
  const bool at_root_in_place = rank == root && sendbuf == MPI_IN_PLACE;
  const MPI_Count count = at_root_in_place ? recvcount : sendcount;
  const MPI_Datatype type = at_root_in_place ? recvtype : sendtype;
  Call call{MpiCollective::gather, comm, algorithm, count, type, root, MPI_OP_NULL,
            bytes_of(count, type), 0,    {}};
  check_buffers(call, sendbuf, recvbuf, count, rank != root, rank == root);
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
          return run(state, c, plan, ElementType::bytes(), MPI_OP_NULL, vector, nullptr);
        }
        const ElementType rtype = ElementType::of(recvtype);
        char* user = static_cast<char*>(recvbuf);
        char* vector = packed_view(user, recvcount * p, rtype, state.area[0], chunk * p, false);
        place_own_chunk(vector + offset, sendbuf, sendcount, sendtype, user, recvcount, rank,
                        rtype);
        const int rc = run(state, c, plan, ElementType::bytes(), MPI_OP_NULL, vector, nullptr);
        if (rc == MPI_SUCCESS && !rtype.contiguous)
          unpack_elements(user, vector, static_cast<std::uint64_t>(recvcount) * p, rtype);
        return rc;
      },
      [&] {
        return library_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                              comm);
      });
}

int scatter(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
            MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
            const char* algorithm) {
  const int rank = rank_in(comm);
  // The root's send arguments are significant there; everywhere else the receive ones.
  const bool root_rank = rank == root;
  const MPI_Count count = root_rank ? sendcount : recvcount;
  const MPI_Datatype type = root_rank ? sendtype : recvtype;
  Call call{MpiCollective::scatter, comm, algorithm, count, type, root, MPI_OP_NULL,
            bytes_of(count, type),  0,    {}};
  // Scatter's roles are mirrored: MPI_IN_PLACE is the root's recvbuf, never a sendbuf.
  if (!root_rank && recvbuf == MPI_IN_PLACE)
    forbid_in_place(call, "MPI_IN_PLACE as recvbuf on a rank other than the root");
  else if (root_rank && sendbuf == MPI_IN_PLACE)
    call.misuse = "MPI_IN_PLACE as sendbuf of MPI_Scatter (the root passes it as recvbuf)";
  else if (root_rank && aliased(sendbuf, recvbuf, count))
    call.misuse = "sendbuf and recvbuf are the same buffer (MPI_IN_PLACE is the way to say it)";
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
        const int rc = run(state, c, plan, ElementType::bytes(), MPI_OP_NULL, vector, nullptr);
        if (rc == MPI_SUCCESS && recvbuf != MPI_IN_PLACE)
          unpack_elements(static_cast<char*>(recvbuf), vector + offset,
                          static_cast<std::uint64_t>(recvcount), ElementType::of(recvtype));
        return rc;
      },
      [&] {
        return library_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                               comm);
      });
}

int alltoall(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, const char* algorithm) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const MPI_Count count = in_place ? recvcount : sendcount;
  const MPI_Datatype type = in_place ? recvtype : sendtype;
  Call call{MpiCollective::alltoall, comm, algorithm, count, type, -1, MPI_OP_NULL,
            bytes_of(count, type),   0,    {}};
  check_buffers(call, sendbuf, recvbuf, count, false, true);
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
            run(state, c, plan, ElementType::bytes(), MPI_OP_NULL, send_slots, receive_slots);
        if (rc == MPI_SUCCESS && !rtype.contiguous)
          unpack_elements(user, receive_slots, static_cast<std::uint64_t>(recvcount) * p, rtype);
        return rc;
      },
      [&] {
        return library_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
      });
}

}  // namespace topocoll::mpi
