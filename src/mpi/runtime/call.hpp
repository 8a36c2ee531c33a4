#pragma once
// Serving one MPI call: choose the algorithm (selection.hpp), then run topocoll's schedule
// (`body`) or the MPI library's collective (`fallback`), log it (TOPOCOLL_VERBOSE) and record
// what ran (topocoll_last_algorithm).
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "comm_state.hpp"
#include "config.hpp"
#include "selection.hpp"

namespace topocoll::mpi {

struct Call {
  MpiCollective collective = MpiCollective::allreduce;
  MPI_Comm comm = MPI_COMM_NULL;
  const char* algorithm = nullptr;
  MPI_Count count = 0;  // the MPI count argument, for the log
  MPI_Datatype type = MPI_DATATYPE_NULL;
  int root = -1;
  MPI_Op op = MPI_OP_NULL;
  std::uint64_t bytes = 0;  // one rank's vector, for the rules
  // What every rank must agree on besides root and op (TOPOCOLL_CHECK): the bytes of the
  // call, or a hash of MPI_Reduce_scatter's counts. 0 means `bytes`.
  std::uint64_t agreed = 0;
  // Buffer arguments the standard forbids (MPI_IN_PLACE where it is not allowed, aliased
  // send and receive buffers): the MPI library serves the call and reports them with its own
  // error class. Empty when the buffers are fine.
  std::string misuse;
  // MPI_IN_PLACE where a library may take it for an address (a non-root's buffer, bcast's
  // buffer: MPICH 4.0.2 dereferences it and crashes): topocoll raises the error itself, with
  // the class the MPI library gives it where it checks (forbidden_in_place_class).
  bool raise_misuse = false;
};

// A non-owning reference to a callable that outlives the call it is passed to (serve's
// lambdas): a std::function holding their captures would allocate on every call
// (docs/mpi-benchmark.md, "Small messages").
template <typename Signature>
class FunctionRef;

template <typename R, typename... A>
class FunctionRef<R(A...)> {
 public:
  template <typename F>
  requires(!std::is_same_v<std::remove_cvref_t<F>, FunctionRef> &&
           std::is_invocable_r_v<R, F&, A...>)
      FunctionRef(F&& f)  // NOLINT(google-explicit-constructor): passed as a lambda
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* object, A... args) -> R {
          return (*static_cast<std::remove_reference_t<F>*>(object))(std::forward<A>(args)...);
        }) {}

  R operator()(A... args) const { return call_(object_, std::forward<A>(args)...); }

 private:
  void* object_;
  R (*call_)(void*, A...);
};

// `body` runs when topocoll serves the call; it builds its plan before touching user data, so
// that an exception it raises (a schedule that cannot be built) can still fall back.
using Body = FunctionRef<int(CommState&, const Choice&)>;
using Fallback = FunctionRef<int()>;

int serve(const Call& call, Body body, Fallback fallback);

// Why the thread's last call went to the MPI library (empty when topocoll served it).
const char* last_reason();

}  // namespace topocoll::mpi
