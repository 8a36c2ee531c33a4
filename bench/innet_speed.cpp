// Speed of the packet-level engine (docs/innet.md): one 4 MiB allreduce on 512 of the
// 1024 hosts of fattree:canary, the other 512 generating congestion. Prints packet
// events per second, CPU time and peak RSS as a Markdown table row per algorithm.
//
//   build/cpp/topocoll_innet_bench [OPTION...] [ALGORITHM...]
//     ALGORITHM: canary (default), static-N, ring
//     --output-queues  room in the next output queue instead of shared input credits,
//     --fixed-rto  a fixed 200 us host timer (before the
//                      RFC 6298 timer), --uniform  uniformly random congestion peers (incast)
//                      instead of permutations,
//     --idle  no congestion, --seed=S, --hosts=N, --size=BYTES, --topology=SPEC
#include <sys/resource.h>

#include <cstdio>
#include <ctime>
#include <exception>
#include <string>
#include <vector>

#include "sim/innet/engine.hpp"
#include "topology/params.hpp"
#include "topology/topology.hpp"

using namespace topocoll;
using namespace topocoll::sim::innet;

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

int bench(int argc, char** argv) {
  std::vector<std::string> names;
  InnetConfig base;
  base.hosts = 512;
  base.size_bytes = 4 << 20;
  base.congestion = true;
  base.seed = 1;
  std::string spec = "fattree:canary";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&](const char* prefix) { return a.substr(std::string(prefix).size()); };
    if (a == "--output-queues") {
      base.input_credits = false;
    } else if (a == "--fixed-rto") {
      base.adaptive_rto = false;
      base.rto_s = 200e-6;
    } else if (a == "--uniform") {
      base.background_permutation = false;
    } else if (a == "--idle") {
      base.congestion = false;
    } else if (a.rfind("--seed=", 0) == 0) {
      base.seed = std::stoull(value("--seed="));
    } else if (a.rfind("--hosts=", 0) == 0) {
      base.hosts = std::stoi(value("--hosts="));
    } else if (a.rfind("--size=", 0) == 0) {
      base.size_bytes = std::stoull(value("--size="));
    } else if (a.rfind("--topology=", 0) == 0) {
      spec = value("--topology=");
    } else if (a.rfind("--", 0) == 0) {
      std::fprintf(stderr,
                   "unknown option %s; accepted: --output-queues, --fixed-rto, --uniform, "
                   "--idle, --seed=S, --hosts=N, --size=BYTES, --topology=SPEC\n",
                   a.c_str());
      return 2;
    } else {
      names.push_back(a);
    }
  }
  if (names.empty()) names.emplace_back("canary");
  const auto topology = topo::make_topology(spec, topo::preset_params("canary"));
  std::printf(
      "| algorithm | events | CPU s | events/s | simulated | goodput Gb/s | exact | peak RSS MiB "
      "| requests+resends | restarts | fallbacks |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const std::string& name : names) {
    InnetConfig c = base;
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
    std::printf("| %s | %llu | %.1f | %.2e | %.1f us | %.1f | %s | %.0f | %llu | %llu | %llu |\n",
                name.c_str(), static_cast<unsigned long long>(r.events), cpu,
                static_cast<double>(r.events) / cpu, r.time_s * 1e6, r.goodput_gbps,
                r.exact ? "yes" : "no", static_cast<double>(peak_rss_kib()) / 1024.0,
                static_cast<unsigned long long>(r.retransmissions),
                static_cast<unsigned long long>(r.restarts),
                static_cast<unsigned long long>(r.fallbacks));
    std::fprintf(stderr,
                 "%s mean queue wait per hop (us), host-leaf leaf-spine spine-leaf leaf-host: "
                 "allreduce %.3f %.3f %.3f %.3f, background %.3f %.3f %.3f %.3f\n",
                 name.c_str(), 1e6 * r.allreduce_wait_s[0], 1e6 * r.allreduce_wait_s[1],
                 1e6 * r.allreduce_wait_s[2], 1e6 * r.allreduce_wait_s[3],
                 1e6 * r.background_wait_s[0], 1e6 * r.background_wait_s[1],
                 1e6 * r.background_wait_s[2], 1e6 * r.background_wait_s[3]);
    std::fflush(stdout);
  }
  return 0;
}

int main(int argc, char** argv) {
  try {
    return bench(argc, argv);
  } catch (const std::exception& e) {  // bad numbers or requests: one line, exit 2
    std::fprintf(stderr, "topocoll_innet_bench: %s\n", e.what());
    return 2;
  }
}
