#include "algorithms/families.hpp"

namespace topocoll::algorithms {
void register_bine(Registry&) {}
}  // namespace topocoll::algorithms
