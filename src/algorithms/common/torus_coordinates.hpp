#pragma once
// A rank's coordinates on a torus and back, in the mixed radix every torus algorithm uses
// (dimension 0 varying fastest; src/topology/grid.hpp numbers the nodes the same way).
#include <cstddef>
#include <vector>

namespace topocoll::algorithms {

// Into `c`, for loops over every rank that would otherwise allocate a vector per rank.
inline void torus_coordinates(int rank, const std::vector<int>& dims, std::vector<int>& c) {
  c.resize(dims.size());
  for (std::size_t i = 0; i < dims.size(); ++i) {
    c[i] = rank % dims[i];
    rank /= dims[i];
  }
}

[[nodiscard]] inline std::vector<int> torus_coordinates(int rank, const std::vector<int>& dims) {
  std::vector<int> c;
  torus_coordinates(rank, dims, c);
  return c;
}

[[nodiscard]] inline int torus_rank(const std::vector<int>& c, const std::vector<int>& dims) {
  int rank = 0;
  for (std::size_t i = dims.size(); i-- > 0;) rank = rank * dims[i] + c[i];
  return rank;
}

}  // namespace topocoll::algorithms
