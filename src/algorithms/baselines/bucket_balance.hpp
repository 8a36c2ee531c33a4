#pragma once
// The plan of `bucket-balanced`: bucket allreduce on a rectangular 2D torus, with each ring
// direction's half of the vector split unevenly among several bucket collectives, and the
// order in which each link serves them fixed in advance.
//
// Why: the paper's bucket (swing-nsdi24.txt 2.3.1, 2.3.4, 5.2) gives the collective that starts
// on the long dimension (side a) and the one that starts on the short one (side b) equal
// shares. The long dimension's links then carry (1-1/a)(x + x/b) of the vector against
// (1-1/b)(x + x/a) on the short one, so on 16x4 the busiest link needs 1/0.84 of the bound
// (docs/efficiency.md). Balancing the two loads needs more data on the short-first side, but
// one collective with that share is longer than the bound by itself; cut into two or three
// pieces that take turns on the links, the pieces keep both links busy until the end.
//
// Per direction, the links are two machines (the long and the short dimension's port) and each
// collective is a job of four phases (reduce-scatter on its first and second dimension,
// allgather on the second and first), each phase on one machine for (d-1)/d of the data it
// holds there. The planner tries every split of U units among one long-first job and one to
// three short-first jobs, and every priority order (one of each set that differs only in how
// the short-first jobs are numbered), schedules each by list scheduling (a
// machine takes the ready phase that can start first, ties to the higher priority), and keeps
// the shortest; the smallest U within 0.5% of the best of U = 24 wins, to keep blocks few.
// Where a short side of 2 or 3 leaves the long links idle until a short-first job reaches them,
// 4 to 12 equal short-first jobs on 48 units are tried as well, and kept if they gain more than
// 0.5%.
#include <array>
#include <utility>
#include <vector>

#include "core/collective.hpp"

namespace topocoll::algorithms {

struct BalancedBucketJob {
  bool long_first = true;  // visits the long dimension first
  int units = 1;           // its share of one direction's half of the vector
};

// A job's phase: 0, 1 reduce-scatter on its first and second dimension; 2, 3 allgather on the
// second and first.
struct JobPhase {
  int job = 0;
  int phase = 0;
};

struct BalancedBucketPlan {
  int units = 0;  // of one direction's half, summed over the jobs
  std::vector<BalancedBucketJob> jobs;
  // The phases each link serves, in order: [0] the long dimension's, [1] the short one's.
  std::array<std::vector<JobPhase>, 2> link_order;
  double efficiency = 0;  // the bound over the planned time (zero latency)
};

// The plan for an a x b torus side pair (a >= b >= 2): allreduce runs all four phases of each
// job, reduce-scatter phases 0 and 1, allgather 2 and 3.
[[nodiscard]] BalancedBucketPlan plan_balanced_bucket(int long_side, int short_side,
                                                      Collective collective);

}  // namespace topocoll::algorithms
