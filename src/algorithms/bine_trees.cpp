#include "algorithms/families.hpp"

namespace topocoll::algorithms {
void register_bine_trees(Registry&) {}
}  // namespace topocoll::algorithms
