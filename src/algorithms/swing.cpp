#include "algorithms/families.hpp"

namespace topocoll::algorithms {
void register_swing(Registry&) {}
}  // namespace topocoll::algorithms
