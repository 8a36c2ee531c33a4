#include "eager_knee.hpp"

#include <algorithm>

namespace topocoll::mpi {

EagerKnee eager_knee(const std::vector<std::uint64_t>& sizes, const std::vector<double>& fastest,
                     const std::vector<double>& typical, double per_byte) {
  const auto jump = [&](const std::vector<double>& t, std::size_t i) {
    return t[i + 1] - t[i] - per_byte * static_cast<double>(sizes[i + 1] - sizes[i]);
  };
  EagerKnee knee;
  double largest = 0;
  for (std::size_t i = 0; i + 1 < sizes.size(); ++i) {
    const double j = jump(fastest, i);
    if (j > 0.5 * fastest.front() && j > 0.25 * fastest[i] && j / fastest[i] > largest) {
      largest = j / fastest[i];
      knee.bytes = sizes[i];
      knee.next = sizes[i + 1];
      knee.handshake_s = std::max(0.0, jump(typical, i));
    }
  }
  return knee;
}

std::uint64_t refine_eager_knee(std::uint64_t eager, double t_eager, std::uint64_t rendezvous,
                                double t_rendezvous, double per_byte, std::uint64_t resolution,
                                const std::function<double(std::uint64_t)>& fastest_at) {
  while (rendezvous - eager > std::max<std::uint64_t>(resolution, 1)) {
    const std::uint64_t middle = eager + (rendezvous - eager) / 2;
    const double t = fastest_at(middle);
    const double as_eager = t_eager + per_byte * static_cast<double>(middle - eager);
    const double as_rendezvous = t_rendezvous - per_byte * static_cast<double>(rendezvous - middle);
    if (t > (as_eager + as_rendezvous) / 2) {
      rendezvous = middle;
      t_rendezvous = t;
    } else {
      eager = middle;
      t_eager = t;
    }
  }
  return eager;
}

}  // namespace topocoll::mpi
