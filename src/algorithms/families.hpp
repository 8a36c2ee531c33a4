#pragma once
// Each algorithm family registers its variants. One file per family in src/algorithms.
#include <vector>

#include "core/registry.hpp"

namespace topocoll::algorithms {

// The torus dimension that can serve as the rows R of hamiltonian-rings (R = k*C,
// gcd(R, C-1) = 1), or -1: the shape rule SideRule::hamiltonian_pair checks.
[[nodiscard]] int hamiltonian_rows_dimension(const std::vector<int>& dims);

// What an entry says about itself; the registration tables hold one per row.
struct Description {
  const char* name;
  const char* variant;
  const char* paper;    // paper file and sections
  const char* summary;  // one line for `topocoll algorithms`
};

// An entry of `family` with the words of `d`; requirements, collectives and builder to fill in.
[[nodiscard]] inline AlgorithmInfo described(const char* family, const Description& d) {
  AlgorithmInfo info;
  info.name = d.name;
  info.family = family;
  info.variant = d.variant;
  info.paper = d.paper;
  info.summary = d.summary;
  return info;
}

void register_ring(Registry& registry);
void register_recursive_doubling(Registry& registry);
void register_bruck(Registry& registry);
void register_bucket(Registry& registry);
void register_bucket_lanes(Registry& registry);
void register_balanced_bucket(Registry& registry);
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
