// Speed of bucket-balanced's planner (docs/efficiency.md): the plans of every a x b torus side
// pair (a >= b >= 2, ab <= MAX) for allreduce, reduce-scatter and allgather. Prints the plan
// count, the CPU time and a digest of every plan (units, jobs, link orders, efficiency to the
// last bit), so that two builds can be shown to plan alike; --print writes each plan as a line.
//
//   build/cpp/topocoll_bucket_plan_bench [--max-ranks=MAX (64)] [--print]
#include <bit>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <exception>
#include <string>

#include "algorithms/baselines/bucket_balance.hpp"

using namespace topocoll;
using namespace topocoll::algorithms;

namespace {

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// FNV-1a over the plan's numbers.
struct Digest {
  std::uint64_t value = 0xcbf29ce484222325ull;
  void add(std::uint64_t x) {
    for (int i = 0; i < 8; ++i, x >>= 8) value = (value ^ (x & 0xff)) * 0x100000001b3ull;
  }
};

void add_plan(Digest& digest, const BalancedBucketPlan& plan) {
  digest.add(static_cast<std::uint64_t>(plan.units));
  digest.add(std::bit_cast<std::uint64_t>(plan.efficiency));
  for (const BalancedBucketJob& job : plan.jobs) {
    digest.add(job.long_first ? 1 : 0);
    digest.add(static_cast<std::uint64_t>(job.units));
  }
  for (const auto& order : plan.link_order) {
    digest.add(order.size());
    for (const JobPhase& p : order) {
      digest.add(static_cast<std::uint64_t>(p.job));
      digest.add(static_cast<std::uint64_t>(p.phase));
    }
  }
}

void print_plan(int a, int b, Collective c, const BalancedBucketPlan& plan) {
  const std::string collective(collective_name(c));
  std::printf("%dx%d %s: units %d, efficiency %a, jobs", a, b, collective.c_str(), plan.units,
              plan.efficiency);
  for (const BalancedBucketJob& job : plan.jobs)
    std::printf(" %s:%d", job.long_first ? "long" : "short", job.units);
  for (std::size_t link = 0; link < plan.link_order.size(); ++link) {
    std::printf(", link %zu", link);
    for (const JobPhase& p : plan.link_order[link]) std::printf(" %d.%d", p.job, p.phase);
  }
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) try {
  int max_ranks = 64;
  bool print = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--max-ranks=", 0) == 0) {
      max_ranks = std::stoi(arg.substr(12));
    } else if (arg == "--print") {
      print = true;
    } else {
      std::fprintf(stderr, "error: unknown option '%s'; accepted: --max-ranks=N, --print\n",
                   argv[i]);
      return 2;
    }
  }
  if (max_ranks < 4 || max_ranks > 4096) {
    std::fprintf(stderr, "error: --max-ranks=%d is out of range; accepted: 4..4096\n", max_ranks);
    return 2;
  }
  Digest digest;
  int plans = 0;
  const double start = cpu_seconds();
  for (int b = 2; b * b <= max_ranks; ++b)
    for (int a = b; a * b <= max_ranks; ++a)
      for (Collective c :
           {Collective::allreduce, Collective::reduce_scatter, Collective::allgather}) {
        const BalancedBucketPlan plan = plan_balanced_bucket(a, b, c);
        add_plan(digest, plan);
        ++plans;
        if (print) print_plan(a, b, c, plan);
      }
  std::printf("| %d | %d | %.3f | %016llx |\n", max_ranks, plans, cpu_seconds() - start,
              static_cast<unsigned long long>(digest.value));
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "error: %s; accepted: --max-ranks=N (4..4096), --print\n", e.what());
  return 2;
}
