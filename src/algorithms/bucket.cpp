#include "algorithms/families.hpp"

namespace topocoll::algorithms {
void register_bucket(Registry&) {}
}  // namespace topocoll::algorithms
