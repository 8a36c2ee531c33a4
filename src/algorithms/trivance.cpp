#include "algorithms/families.hpp"

namespace topocoll::algorithms {
void register_trivance(Registry&) {}
}  // namespace topocoll::algorithms
