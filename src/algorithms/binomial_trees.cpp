#include "algorithms/families.hpp"

namespace topocoll::algorithms {
void register_binomial_trees(Registry&) {}
}  // namespace topocoll::algorithms
