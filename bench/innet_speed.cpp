// Speed of the packet-level engine (issue 9, "Done when"): one 4 MiB allreduce on 512 of the
// 1024 hosts of fattree:canary, the other 512 generating uniform congestion. Prints packet
// events per second, CPU time and peak RSS as a Markdown table row per algorithm.
//
//   build/cpp/topocoll_innet_bench [ALGORITHM...]   (canary, static-1, static-4, ring;
//                                                    default canary)
#include <sys/resource.h>

#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "sim/packet/engine.hpp"
#include "topology/params.hpp"
#include "topology/topology.hpp"

using namespace topocoll;
using namespace topocoll::sim::packet;

namespace {

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

long peak_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> names;
  for (int i = 1; i < argc; ++i) names.emplace_back(argv[i]);
  if (names.empty()) names.emplace_back("canary");
  const auto topology = topo::make_topology("fattree:canary", topo::preset_params("canary"));
  std::printf(
      "| algorithm | events | CPU s | events/s | simulated | goodput Gb/s | exact | peak RSS MiB "
      "|\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (const std::string& name : names) {
    InnetConfig c;
    c.hosts = 512;
    c.size_bytes = 4 << 20;
    c.congestion = true;
    c.seed = 1;
    if (name == "canary") {
      c.algorithm = Algorithm::canary;
    } else if (name == "ring") {
      c.algorithm = Algorithm::ring;
    } else if (name.rfind("static-", 0) == 0) {
      c.algorithm = Algorithm::static_trees;
      c.trees = std::stoi(name.substr(7));
    } else {
      std::fprintf(stderr, "unknown algorithm %s; accepted: canary, static-N, ring\n",
                   name.c_str());
      return 2;
    }
    const double start = cpu_seconds();
    const InnetResult r = run_innet(*topology, c);
    const double cpu = cpu_seconds() - start;
    std::printf("| %s | %llu | %.1f | %.2e | %.1f us | %.1f | %s | %.0f |\n", name.c_str(),
                static_cast<unsigned long long>(r.events), cpu, static_cast<double>(r.events) / cpu,
                r.time_s * 1e6, r.goodput_gbps, r.exact ? "yes" : "no",
                static_cast<double>(peak_rss_kib()) / 1024.0);
    std::fflush(stdout);
  }
  return 0;
}
