#include "algorithms/families.hpp"

namespace topocoll::algorithms {
void register_recursive_doubling(Registry&) {}
}  // namespace topocoll::algorithms
