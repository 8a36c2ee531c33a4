#pragma once
// TOPOCOLL_CHECK: before a call, the ranks check that they agree on what must be the same
// everywhere (docs/mpi.md, "Errors"), so that a disagreement ends in the same error on every
// rank instead of a hang or a wrong result.
#include "call.hpp"
#include "comm_state.hpp"
#include "selection.hpp"

namespace topocoll::mpi {

// One allreduce on the private communicator of the call's size (or Call::agreed), root,
// chosen algorithm with its shape, and operator commutativity. MPI_SUCCESS when all agree;
// else rank 0 prints which differs and every rank raises the same error class.
int check_agreement(const Call& call, const Choice& choice, CommState& state, int size);

}  // namespace topocoll::mpi
