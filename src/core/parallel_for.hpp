#pragma once
// A static-partition parallel loop for the verifier's per-rank phases.
#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace topocoll {

[[nodiscard]] inline int resolve_threads(int requested) {
  if (requested > 0) return requested;
  return std::max(1u, std::thread::hardware_concurrency());
}

// Calls fn(i) for i in [0, n); small loops stay on the calling thread.
template <class Fn>
void parallel_for(std::size_t n, int threads, Fn&& fn) {
  constexpr std::size_t kMinPerThread = 16;
  const std::size_t workers =
      std::min<std::size_t>(static_cast<std::size_t>(threads), n / kMinPerThread);
  if (workers <= 1) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  const std::size_t chunk = (n + workers - 1) / workers;
  for (std::size_t w = 1; w < workers; ++w) {
    pool.emplace_back([&, w] {
      for (std::size_t i = w * chunk; i < std::min(n, (w + 1) * chunk); ++i) fn(i);
    });
  }
  for (std::size_t i = 0; i < std::min(n, chunk); ++i) fn(i);
  for (auto& t : pool) t.join();
}

}  // namespace topocoll
