#include "algorithms/families.hpp"

namespace topocoll::algorithms {
void register_hamiltonian(Registry&) {}
}  // namespace topocoll::algorithms
