#include "algorithms/families.hpp"

namespace topocoll::algorithms {
void register_personalized(Registry&) {}
}  // namespace topocoll::algorithms
