#pragma once
// Each algorithm family registers its variants. One file per family in src/algorithms.
#include "core/registry.hpp"

namespace topocoll::algorithms {

void register_ring(Registry& registry);
void register_recursive_doubling(Registry& registry);
void register_bruck(Registry& registry);
void register_bucket(Registry& registry);
void register_swing(Registry& registry);
void register_bine(Registry& registry);
void register_trivance(Registry& registry);
void register_hamiltonian(Registry& registry);
void register_hamiltonian_rings(Registry& registry);
// Rooted and personalized collectives.
void register_binomial_trees(Registry& registry);
void register_bine_trees(Registry& registry);
void register_personalized(Registry& registry);
void register_hypercube_rooted(Registry& registry);

}  // namespace topocoll::algorithms
