#include "algorithms/baselines/bucket_balance.hpp"

#include <algorithm>
#include <numeric>

namespace topocoll::algorithms {
namespace {

constexpr int max_short_first_jobs = 3;
constexpr int finest_units = 24;
// Sides of 2 or 3 leave the short dimension's first phase long next to the long dimension's
// work: the long links idle until a short-first job reaches them, so the share is cut into more,
// equal, jobs (up to 12 of 48 units).
constexpr int max_equal_short_first_jobs = 12;
constexpr int equal_split_units = 48;
constexpr double good_enough = 0.005;  // a coarser split within this of the finest one wins
// The most jobs of any plan tried: one long-first job beside the short-first ones.
constexpr std::size_t max_jobs = 1 + std::max(max_short_first_jobs, max_equal_short_first_jobs);

struct Sides {
  double a, b;  // long, short
};

// Machine (0: long dimension's link, 1: short one's) and time of a job's phase, as fractions
// of one direction's half of the vector moved at link speed.
std::pair<int, double> phase_cost(const Sides& s, bool long_first, double share, int phase) {
  const double first = long_first ? s.a : s.b;
  const double second = long_first ? s.b : s.a;
  const bool on_first = phase == 0 || phase == 3;
  const int machine = (on_first == long_first) ? 0 : 1;
  // Ring reduce-scatter or allgather over n ranks moves (n-1)/n of what it holds; the second
  // dimension holds 1/first of the share (swing-nsdi24.txt 2.3.4).
  const double time =
      on_first ? share * (first - 1) / first : share / first * (second - 1) / second;
  return {machine, time};
}

// The machine and time of every phase of every job, computed once per set of jobs: the list
// schedules below try each set in every priority order.
using PhaseCosts = std::vector<std::vector<std::pair<int, double>>>;

PhaseCosts phase_costs(const Sides& s, const std::vector<int>& phases,
                       const std::vector<BalancedBucketJob>& jobs, int units) {
  PhaseCosts costs(jobs.size());
  for (std::size_t j = 0; j < jobs.size(); ++j)
    for (int phase : phases)
      costs[j].push_back(phase_cost(s, jobs[j].long_first, double(jobs[j].units) / units, phase));
  return costs;
}

// List scheduling: repeatedly start the phase that can start first (ties: higher priority).
// The searches time every priority order and record the link order of a new best only: `order`
// null skips it (its vectors were most of the planner's allocations).
double list_schedule(const std::vector<int>& phases, const PhaseCosts& costs,
                     const std::vector<int>& priority,
                     std::array<std::vector<JobPhase>, 2>* order = nullptr) {
  const std::size_t n = costs.size();
  const int last = static_cast<int>(phases.size());
  std::array<int, max_jobs> next{};  // index into `phases`
  std::array<double, max_jobs> ready{};
  std::array<double, 2> free{0.0, 0.0};
  for (std::size_t started = 0; started < phases.size() * n; ++started) {
    int pick = -1;
    double start = 0;
    for (int j : priority) {
      if (next[j] == last) continue;
      const double t = std::max(ready[j], free[costs[j][next[j]].first]);
      if (pick < 0 || t < start - 1e-12) pick = j, start = t;
    }
    const auto [machine, time] = costs[pick][next[pick]];
    if (order) (*order)[machine].push_back({pick, phases[next[pick]]});
    free[machine] = ready[pick] = start + time;
    ++next[pick];
  }
  return *std::max_element(ready.begin(), ready.begin() + n);
}

// Makes `jobs`, scheduled in `priority` order, the best plan where they beat it by more than
// rounding.
void keep_if_better(BalancedBucketPlan& best, double bound, int units,
                    const std::vector<BalancedBucketJob>& jobs, const std::vector<int>& phases,
                    const PhaseCosts& costs, const std::vector<int>& priority) {
  const double efficiency = bound / list_schedule(phases, costs, priority);
  if (efficiency <= best.efficiency + 1e-9) return;
  best = {units, jobs, {}, efficiency};
  list_schedule(phases, costs, priority, &best.link_order);
}

// Short-first jobs are interchangeable: renumbering them (with their units and their places in
// the priority order) gives the same schedule under other numbers. The search keeps the
// first such form it meets, which is the one whose short-first units do not decrease and whose
// short-first jobs of equal units take their priorities in the order of their numbers; skipping
// the others cannot change the plan it picks, since a later equal time never replaces the best.
bool short_first_units_ascend(const std::vector<int>& split) {
  return std::is_sorted(split.begin() + 1, split.end());
}

bool equal_jobs_in_number_order(const std::vector<int>& split, const std::vector<int>& priority) {
  std::vector<std::size_t> place(priority.size());
  for (std::size_t i = 0; i < priority.size(); ++i) place[priority[i]] = i;
  // The units ascend, so jobs of equal units have consecutive numbers.
  for (std::size_t j = 2; j < split.size(); ++j)
    if (split[j] == split[j - 1] && place[j] < place[j - 1]) return false;
  return true;
}

// Calls f(parts) for every split of `total` into `count` positive parts.
template <typename F>
void for_each_split(int total, int count, std::vector<int>& parts, F&& f) {
  if (count == 1) {
    parts.push_back(total);
    f(parts);
    parts.pop_back();
    return;
  }
  for (int first = 1; first <= total - count + 1; ++first) {
    parts.push_back(first);
    for_each_split(total - first, count - 1, parts, f);
    parts.pop_back();
  }
}

BalancedBucketPlan best_for_units(const Sides& s, const std::vector<int>& phases, int units) {
  // The bound: every port busy for (P-1)/P of its quarter of the vector per reduce-scatter or
  // allgather, i.e. (1-1/P)/2 of one direction's half per link and per collective.
  const double bound = (1.0 - 1.0 / (s.a * s.b)) * static_cast<double>(phases.size()) / 4;
  BalancedBucketPlan best;
  std::vector<int> parts;
  for (int jobs = 2; jobs <= 1 + max_short_first_jobs && jobs <= units; ++jobs)
    for_each_split(units, jobs, parts, [&](const std::vector<int>& split) {
      if (!short_first_units_ascend(split)) return;
      std::vector<BalancedBucketJob> plan_jobs;
      for (std::size_t j = 0; j < split.size(); ++j) plan_jobs.push_back({j == 0, split[j]});
      const PhaseCosts costs = phase_costs(s, phases, plan_jobs, units);
      std::vector<int> priority(split.size());
      std::iota(priority.begin(), priority.end(), 0);
      do {
        if (!equal_jobs_in_number_order(split, priority)) continue;
        keep_if_better(best, bound, units, plan_jobs, phases, costs, priority);
      } while (std::next_permutation(priority.begin(), priority.end()));
    });
  return best;
}

// One long-first job of L units and k short-first jobs sharing the rest as evenly as possible,
// for every L and k, with the long-first job at every priority position (the short-first jobs
// in order).
BalancedBucketPlan best_with_equal_jobs(const Sides& s, const std::vector<int>& phases, int units) {
  const double bound = (1.0 - 1.0 / (s.a * s.b)) * static_cast<double>(phases.size()) / 4;
  BalancedBucketPlan best;
  for (int k = max_short_first_jobs + 1; k <= max_equal_short_first_jobs; ++k)
    for (int long_units = 1; long_units <= units - k; ++long_units) {
      std::vector<BalancedBucketJob> jobs{{true, long_units}};
      const int rest = units - long_units;
      for (int j = 0; j < k; ++j) jobs.push_back({false, rest / k + (j < rest % k ? 1 : 0)});
      const PhaseCosts costs = phase_costs(s, phases, jobs, units);
      for (int position = 0; position <= k; ++position) {
        std::vector<int> priority;
        for (int j = 1; j <= k; ++j) {
          if (j - 1 == position) priority.push_back(0);
          priority.push_back(j);
        }
        if (position == k) priority.push_back(0);
        keep_if_better(best, bound, units, jobs, phases, costs, priority);
      }
    }
  return best;
}

BalancedBucketPlan fewest_jobs_plan(const Sides& s, const std::vector<int>& phases) {
  const BalancedBucketPlan finest = best_for_units(s, phases, finest_units);
  for (int units : {4, 6, 8, 12, 16}) {
    BalancedBucketPlan plan = best_for_units(s, phases, units);
    if (plan.efficiency >= finest.efficiency - good_enough) return plan;
  }
  return finest;
}

}  // namespace

BalancedBucketPlan plan_balanced_bucket(int long_side, int short_side, Collective collective) {
  const Sides s{double(long_side), double(short_side)};
  std::vector<int> phases;
  if (collective != Collective::allgather) phases = {0, 1};
  if (collective != Collective::reduce_scatter) phases.insert(phases.end(), {2, 3});
  BalancedBucketPlan plan = fewest_jobs_plan(s, phases);
  // More jobs (more lanes and messages) only where they gain more than the tolerance.
  BalancedBucketPlan many = best_with_equal_jobs(s, phases, equal_split_units);
  return many.efficiency > plan.efficiency + good_enough ? many : plan;
}

}  // namespace topocoll::algorithms
