#pragma once
// Which rank reduces which contributions of a block before the last Trivance reduce-scatter step
// (trivance.txt section 4.4), for a ring of any size n.
#include <vector>

namespace topocoll::algorithms {

// Offsets v in [lo, hi] from a root at `base`: the contributions of the ranks d - base - v to
// block d, reduced at rank d - base in the first s - 1 steps (digit k of v in balanced ternary
// is the hop in step k, at distance 3^k).
struct TrivanceRegion {
  long long base;
  long long lo, hi;
};

struct TrivanceLastStep {
  long long right = 0;  // the last step's distance on port 0 (rank d - right sends block d to d)
  long long left = 0;   // on port 1 (rank d + left sends block d to d); 0: no message
  std::vector<TrivanceRegion> regions;  // every offset of the ring exactly once
};

// n = 3^s: the plain pattern, last distance 3^(s-1) on both sides. Otherwise section 4.4's short
// last step: with W = 3^(s-1) and M = n - W, distances ceil(M/2) and floor(M/2).
[[nodiscard]] TrivanceLastStep trivance_last_step(int n);

}  // namespace topocoll::algorithms
