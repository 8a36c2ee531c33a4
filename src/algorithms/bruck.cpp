#include "algorithms/families.hpp"

namespace topocoll::algorithms {
void register_bruck(Registry&) {}
}  // namespace topocoll::algorithms
