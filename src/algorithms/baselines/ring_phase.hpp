#pragma once
// The two phases of a ring allreduce (swing-nsdi24.txt section 2.3.1), shared by the plain ring
// (ring.cpp) and the rings along Hamiltonian cycles (hamiltonian_rings.cpp), whose rank at
// cycle position t behaves as rank t of the plain ring.
namespace topocoll::algorithms {

enum class RingPhase { reduce_scatter, allgather };

}  // namespace topocoll::algorithms
