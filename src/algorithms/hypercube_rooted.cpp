#include "algorithms/families.hpp"

namespace topocoll::algorithms {
void register_hypercube_rooted(Registry&) {}
}  // namespace topocoll::algorithms
