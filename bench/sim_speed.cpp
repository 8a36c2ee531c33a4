// Speed and fidelity benchmark of the flow model (docs/simulator-benchmark.md): transfers per
// second and peak memory on tori, the scaling from 64 to 16,384 nodes, a 64x64 compare sweep, and
// the large-vector deficiencies of the torus algorithms against the papers' closed forms. Every
// measurement runs in a child process, so its peak RSS is its own.
//
//   build/cpp/topocoll_sim_bench speed|scaling|rings|simgrid|compare|deficiency|all [--jobs N]
//   build/cpp/topocoll_sim_bench peak ALGORITHM COLLECTIVE TOPOLOGY [--message-per-range]
//     (docs/efficiency.md's % of peak of one cell: flow model, zero latency, 1 GiB)
//                                [--case-limit CPU_SECONDS]   (compare: per algorithm, 25 sizes)
//                                [--skip A,B]   (compare: leave these algorithms out)
//                                [--simgrid-limit CPU_SECONDS] [--csv FILE]   (simgrid)
//   build/cpp/topocoll_sim_bench one ALGORITHM AxB BYTES [ROUTING]   (one flow run, for profiling)
//   --no-symmetry: simulate every rank even where the run has a translation symmetry
//
// Prints Markdown tables (docs/simulator-benchmark.md records them).
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "sim/simulate.hpp"
#include "topology/mapping.hpp"
#include "topology/params.hpp"
#include "topology/routing.hpp"
#include "topology/topology.hpp"

namespace {

using namespace topocoll;

struct Run {
  bool ok = false;
  std::string note;  // "1D" when the algorithm refused the torus shape; error text otherwise
  double wall_s = 0, cpu_s = 0, sim_time_s = 0, peak_mib = 0;
  double messages = 0, transfers = 0;
};

bool g_use_symmetry = true;  // --no-symmetry: simulate every rank

std::vector<int> square(int side, int dims) { return std::vector<int>(dims, side); }

std::string shape_name(const std::vector<int>& dims) {
  std::string s;
  for (int d : dims) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}

// Builds the algorithm for the torus shape, or as a 1D schedule mapped linearly when the
// algorithm does not take a shape.
SchedulePtr build(const std::string& algorithm, const std::vector<int>& dims, bool& one_d,
                  int ports = 0) {
  int ranks = 1;
  for (int d : dims) ranks *= d;
  ScheduleRequest request;
  request.collective = Collective::allreduce;
  request.ranks = ranks;
  request.dims = dims;
  request.ports = ports;
  one_d = false;
  try {
    return registry().build(algorithm, request);
  } catch (const UnsupportedRequest&) {
    request.dims = {};
    request.ports = 0;
    one_d = true;
    return registry().build(algorithm, request);
  }
}

sim::SimResult simulate_on(const std::string& algorithm, const std::vector<int>& dims,
                           std::uint64_t bytes, const topo::NetworkParams& params,
                           const std::string& routing, bool& one_d, int ports = 0,
                           sim::Model model = sim::Model::flow) {
  const auto schedule = build(algorithm, dims, one_d, ports);
  const auto topology = topo::make_topology("torus:" + shape_name(dims), params);
  const auto router = topo::make_router(*topology, routing);
  const auto mapping = topo::make_mapping("linear", schedule->ranks(), *topology);
  sim::SimConfig config;
  config.model = model;
  config.vector_bytes = bytes;
  config.use_symmetry = g_use_symmetry;
  return sim::simulate(*schedule, *topology, *router, mapping, config);
}

// Runs `work` in a child (at most `limit_s` seconds) and measures it.
Run measure(const std::function<Run()>& work, int limit_s) {
  std::fflush(stdout);  // a child that exits through exit() must not print our buffer again
  int fds[2];
  if (pipe(fds) != 0) return {false, "pipe failed"};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    // A CPU-time limit, not a wall-clock one: the machine may be shared.
    const rlimit cpu{static_cast<rlim_t>(limit_s), static_cast<rlim_t>(limit_s) + 1};
    setrlimit(RLIMIT_CPU, &cpu);
    Run r;
    try {
      const auto t0 = std::chrono::steady_clock::now();
      r = work();
      r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      r.ok = true;
    } catch (const std::exception& e) {
      r.note = e.what();
    }
    char buf[512];
    const int n = std::snprintf(buf, sizeof buf, "%d %.9g %.9g %.17g %.17g %s", r.ok ? 1 : 0,
                                r.wall_s, r.sim_time_s, r.messages, r.transfers, r.note.c_str());
    (void)!write(fds[1], buf, static_cast<std::size_t>(n));
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;)
    text.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  Run r;
  r.peak_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;
  // CPU time of the child: the wall time depends on what else shares the cores.
  r.cpu_s = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
            static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
  int ok = 0;
  char note[400] = "";
  if (std::sscanf(text.c_str(), "%d %lf %lf %lf %lf %399[^\n]", &ok, &r.wall_s, &r.sim_time_s,
                  &r.messages, &r.transfers, note) >= 5) {
    r.ok = ok == 1;
    r.note = note;
  } else {
    r.note = WIFSIGNALED(status) ? "stopped at the limit of " + std::to_string(limit_s) + " CPU s"
                                 : "no result";
  }
  return r;
}

Run flow_run(const std::string& algorithm, const std::vector<int>& dims, std::uint64_t bytes,
             const topo::NetworkParams& params, int ports = 0, sim::Model model = sim::Model::flow,
             const std::string& routing = "minimal") {
  bool one_d = false;
  const auto result = simulate_on(algorithm, dims, bytes, params, routing, one_d, ports, model);
  Run r;
  r.sim_time_s = result.time_s;
  r.messages = static_cast<double>(result.messages);
  r.transfers = static_cast<double>(result.transfers);
  r.note = one_d ? "1D schedule" : "";
  return r;
}

void speed_table(const std::vector<std::string>& algorithms,
                 const std::vector<std::vector<int>>& shapes, int limit_s) {
  const auto params = topo::preset_params("swing");
  std::printf(
      "| algorithm | torus | messages | transfers | wall s | CPU s | transfers per CPU s | peak "
      "RSS MiB | simulated time | note |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (const auto& dims : shapes) {
    for (const auto& a : algorithms) {
      const Run r = measure([&] { return flow_run(a, dims, 64ull << 20, params); }, limit_s);
      if (!r.ok) {
        std::printf("| %s | %s | | | | | | %.0f | | %s |\n", a.c_str(), shape_name(dims).c_str(),
                    r.peak_mib, r.note.c_str());
      } else {
        std::printf("| %s | %s | %.0f | %.0f | %.2f | %.2f | %.2fM | %.0f | %.3f ms | %s |\n",
                    a.c_str(), shape_name(dims).c_str(), r.messages, r.transfers, r.wall_s, r.cpu_s,
                    r.transfers / r.cpu_s / 1e6, r.peak_mib, r.sim_time_s * 1e3, r.note.c_str());
      }
      std::fflush(stdout);
    }
  }
}

// The flow model against SimGrid on the same workloads (docs/simulator-benchmark.md: at least 10x
// as many transfers per second, aim for 100x). SimGrid routes single-path, so the like-for-like
// rows run both models with `dor` routing; the flow model's `minimal` rows are shown too. Each
// run is a child under a CPU-time limit (SimGrid's own forked child counts in it); a run that
// hits the limit is reported as "> limit", never extrapolated. Rows also go to `csv_path`.
void simgrid_table(const std::vector<std::string>& algorithms,
                   const std::vector<std::vector<int>>& shapes, int limit_s,
                   const std::string& csv_path) {
  const auto params = topo::preset_params("swing");
  FILE* csv = csv_path.empty() ? nullptr : std::fopen(csv_path.c_str(), "w");
  if (csv != nullptr)
    std::fprintf(csv,
                 "algorithm,torus,model,routing,transfers,cpu_s,wall_s,peak_mib,sim_time_s,"
                 "limited,limit_s\n");
  std::printf(
      "| algorithm | torus | transfers (dor) | flow minimal: CPU s | flow minimal: transfers/CPU "
      "s | flow dor: CPU s | flow dor: transfers/CPU s | SimGrid dor: CPU s | SimGrid dor: "
      "transfers/CPU s | flow dor / SimGrid | simulated time flow dor vs SimGrid |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  struct Variant {
    const char* model_name;
    sim::Model model;
    const char* routing;
  };
  const Variant variants[] = {{"flow", sim::Model::flow, "minimal"},
                              {"flow", sim::Model::flow, "dor"},
                              {"simgrid", sim::Model::simgrid, "dor"}};
  for (const auto& dims : shapes) {
    for (const auto& a : algorithms) {
      Run runs[3];
      for (int v = 0; v < 3; ++v) {
        runs[v] = measure(
            [&] {
              return flow_run(a, dims, 64ull << 20, params, 0, variants[v].model,
                              variants[v].routing);
            },
            limit_s);
        const bool limited = !runs[v].ok && runs[v].cpu_s >= 0.95 * limit_s;
        if (csv != nullptr) {
          std::fprintf(csv, "%s,%s,%s,%s,%.0f,%.3f,%.3f,%.1f,%.12g,%d,%d\n", a.c_str(),
                       shape_name(dims).c_str(), variants[v].model_name, variants[v].routing,
                       runs[v].transfers, runs[v].cpu_s, runs[v].wall_s, runs[v].peak_mib,
                       runs[v].sim_time_s, limited ? 1 : 0, limit_s);
          std::fflush(csv);
        }
        if (!runs[v].ok && !limited)
          std::fprintf(stderr, "%s %s %s %s: %s\n", a.c_str(), shape_name(dims).c_str(),
                       variants[v].model_name, variants[v].routing, runs[v].note.c_str());
      }
      auto cpu = [&](const Run& r) {
        char buf[64];
        if (r.ok)
          std::snprintf(buf, sizeof buf, "%.2f", r.cpu_s);
        else if (r.cpu_s >= 0.95 * limit_s)
          std::snprintf(buf, sizeof buf, "> %d", limit_s);
        else
          std::snprintf(buf, sizeof buf, "failed");
        return std::string(buf);
      };
      const double transfers = runs[1].ok ? runs[1].transfers : runs[2].transfers;
      auto rate = [&](const Run& r, double n) {
        char buf[64];
        if (r.ok)
          std::snprintf(buf, sizeof buf, "%.3gM", n / std::max(r.cpu_s, 1e-3) / 1e6);
        else if (r.cpu_s >= 0.95 * limit_s && n > 0)
          std::snprintf(buf, sizeof buf, "< %.3gM", n / limit_s / 1e6);
        else
          std::snprintf(buf, sizeof buf, "-");
        return std::string(buf);
      };
      std::string ratio = "-", agree = "-";
      if (runs[1].ok && runs[2].ok) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.0fx", runs[2].cpu_s / std::max(runs[1].cpu_s, 1e-3));
        ratio = buf;
        std::snprintf(buf, sizeof buf, "%+.3f%%",
                      (runs[1].sim_time_s / runs[2].sim_time_s - 1) * 100);
        agree = buf;
      } else if (runs[1].ok && runs[2].cpu_s >= 0.95 * limit_s) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "> %.0fx", limit_s / std::max(runs[1].cpu_s, 1e-3));
        ratio = buf;
      }
      std::printf("| %s | %s | %.0f | %s | %s | %s | %s | %s | %s | %s | %s |\n", a.c_str(),
                  shape_name(dims).c_str(), transfers, cpu(runs[0]).c_str(),
                  rate(runs[0], runs[0].transfers).c_str(), cpu(runs[1]).c_str(),
                  rate(runs[1], runs[1].transfers).c_str(), cpu(runs[2]).c_str(),
                  rate(runs[2], transfers).c_str(), ratio.c_str(), agree.c_str());
      std::fflush(stdout);
    }
  }
  if (csv != nullptr) std::fclose(csv);
}

// What `topocoll compare --algorithms all` runs on the torus `dims`: an algorithm whose
// requirements take a torus gets the shape, any other a ring of the ranks; one that refuses
// its request is skipped. Schedules of P/4 steps or more (the O(P)-step rings: ring and
// hamiltonian-rings take 2(P-1) at 64x64) are left out; bucket's 2 x 2 x 63 steps stay.
std::vector<std::string> logarithmic_allreduce(const std::vector<int>& dims) {
  int ranks = 1;
  for (int d : dims) ranks *= d;
  std::vector<std::string> names;
  for (const auto* a : registry().for_collective(Collective::allreduce)) {
    ScheduleRequest request;
    request.collective = Collective::allreduce;
    request.ranks = ranks;
    if (a->requirements.dims != DimsRule::ring_only) request.dims = dims;
    try {
      if (registry().build(a->name, request)->step_count(0) >= ranks / 4) continue;
    } catch (const UnsupportedRequest&) {
      continue;
    }
    names.push_back(a->name);
  }
  return names;
}

// One algorithm of a compare sweep at the 25 sizes 32 B .. 512 MiB, as one `topocoll compare`
// worker runs it: the schedule, topology and router built once (the flow model's symmetry
// search is cached per schedule). `messages` carries the count of sizes run on one orbit copy.
Run sweep_sizes(const std::string& algorithm, const std::vector<int>& dims,
                const topo::NetworkParams& params) {
  bool one_d = false;
  const auto schedule = build(algorithm, dims, one_d);
  const auto topology = topo::make_topology("torus:" + shape_name(dims), params);
  const auto router = topo::make_router(*topology, "minimal");
  const auto mapping = topo::make_mapping("linear", schedule->ranks(), *topology);
  Run r;
  for (int k = 5; k <= 29; ++k) {
    sim::SimConfig config;
    config.vector_bytes = std::uint64_t{1} << k;
    config.use_symmetry = g_use_symmetry;
    const auto result = sim::simulate(*schedule, *topology, *router, mapping, config);
    r.transfers += static_cast<double>(result.transfers);
    r.messages += result.symmetry_group > 1 ? 1 : 0;
    r.sim_time_s = result.time_s;
  }
  return r;
}

// A 64x64 `compare`: every logarithmic allreduce algorithm and bucket at 25 sizes (32 B to
// 512 MiB), spread over `jobs` child processes, one algorithm (all its sizes) per child.
void compare_sweep(int jobs, int case_limit_s, const std::string& skip) {
  const auto params = topo::preset_params("swing");
  const std::vector<int> dims{64, 64};
  std::vector<std::string> algorithms;
  for (const auto& a : logarithmic_allreduce(dims))
    if (("," + skip + ",").find("," + a + ",") == std::string::npos) algorithms.push_back(a);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Run> runs(algorithms.size());
  // Workers pull the next algorithm from a counter in shared memory, so long ones do not pile
  // up on one worker; each reports per algorithm its transfers, reduced sizes and CPU seconds.
  auto* next = static_cast<std::atomic<std::size_t>*>(
      mmap(nullptr, sizeof(std::atomic<std::size_t>), PROT_READ | PROT_WRITE,
           MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  new (next) std::atomic<std::size_t>(0);
  std::vector<std::pair<pid_t, int>> children;
  std::fflush(stdout);  // the workers must not print this process's buffer again
  for (int j = 0; j < jobs; ++j) {
    int fds[2];
    if (pipe(fds) != 0) return;
    const pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      for (std::size_t i; (i = next->fetch_add(1)) < algorithms.size();) {
        const Run r =
            measure([&] { return sweep_sizes(algorithms[i], dims, params); }, case_limit_s);
        char buf[160];
        const int n = std::snprintf(buf, sizeof buf, "%zu %d %.17g %.17g %.6f %.3f\n", i,
                                    r.ok ? 1 : 0, r.messages, r.transfers, r.cpu_s, r.peak_mib);
        (void)!write(fds[1], buf, static_cast<std::size_t>(n));
      }
      _exit(0);
    }
    close(fds[1]);
    children.emplace_back(pid, fds[0]);
  }
  double transfers = 0, peak = 0, cpu_total = 0;
  int failed = 0;
  for (auto [pid, fd] : children) {
    std::string text;
    char buf[4096];
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;)
      text.append(buf, static_cast<std::size_t>(n));
    close(fd);
    int status = 0;
    rusage usage{};
    wait4(pid, &status, 0, &usage);
    std::size_t i;
    int ok;
    double reduced, tr, cpu, mib;
    for (const char* p = text.c_str();
         std::sscanf(p, "%zu %d %lf %lf %lf %lf", &i, &ok, &reduced, &tr, &cpu, &mib) == 6;) {
      peak = std::max(peak, mib);
      runs[i] = Run{ok == 1, "", 0, cpu, 0, mib, reduced, tr};
      transfers += tr;
      cpu_total += cpu;
      failed += ok == 1 ? 0 : 1;
      p = std::strchr(p, '\n');
      if (p == nullptr) break;
      ++p;
    }
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf(
      "| torus | algorithms | sizes | simulations | algorithms stopped | transfers | wall s (%d "
      "jobs) | CPU s | peak RSS MiB |\n",
      jobs);
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  std::string list;
  for (const auto& a : algorithms) list += (list.empty() ? "" : ", ") + a;
  std::printf("| 64x64 | %s | 32B..512MiB (25) | %zu | %d | %.0f | %.1f | %.1f | %.0f |\n",
              list.c_str(), algorithms.size() * 25, failed, transfers, wall, cpu_total, peak);
  std::printf(
      "\n| algorithm | transfers (25 sizes) | CPU s (25 sizes) | sizes run on one orbit copy "
      "|\n| --- | --- | --- | --- |\n");
  for (std::size_t i = 0; i < algorithms.size(); ++i) {
    const Run& r = runs[i];
    if (!r.ok)
      std::printf("| %s | | stopped at %d CPU s | |\n", algorithms[i].c_str(), case_limit_s);
    else
      std::printf("| %s | %.0f | %.2f | %.0f |\n", algorithms[i].c_str(), r.transfers, r.cpu_s,
                  r.messages);
  }
}

// Deficiency closed forms at finite p (zero latency, so the time is the bandwidth term),
// normalized by the bandwidth bound 2(p-1)/p x n/(2D x bandwidth).
double sigma_sum(int steps, int dims, int base, const std::function<double(int)>& distance) {
  double s = 0;
  for (int k = 0; k < steps; ++k) s += distance(k / dims) / std::pow(base, k + 1);
  return s;
}

double expected_deficiency(const std::string& algorithm, int side, int dims) {
  const double p = std::pow(side, dims);
  const double bound = (p - 1) / p;
  if (algorithm == "bucket") return 1.0;  // swing-nsdi24.txt Table 2, trivance.txt Table 2
  if (algorithm == "swing-bw") {
    // swing-nsdi24.txt section 4.1: (n/2D) beta sum_s delta(sigma(s)) / 2^(s+1), per phase.
    const int steps = static_cast<int>(std::lround(std::log2(p)));
    return sigma_sum(steps, dims, 2,
                     [](int s) { return (std::pow(2, s + 1) - std::pow(-1, s + 1)) / 3; }) /
           bound;
  }
  if (algorithm == "recdoub-bw") {
    // Distance 2^sigma(s) with the data halving per step; asymptotically (2^D-1)/(2^D-2), the
    // multi-port form of trivance.txt Table 2 (and, times 2D, the one-port form of
    // swing-nsdi24.txt Table 2).
    const int steps = static_cast<int>(std::lround(std::log2(p)));
    return sigma_sum(steps, dims, 2, [](int s) { return std::pow(2, s); }) / bound;
  }
  if (algorithm == "recdoub-bw mirrored lanes") {
    // The 2D-port lanes as built (trivance.txt section 2.4, a plain lane and its mirror per
    // dimension): both lanes use both directions, the mirror's load is the plain lane's shifted
    // by one link, so the busiest direction carries 2^(k+1) - 1 messages; the dimension's last
    // step (distance side/2) splits over both directions: 2^k.
    const int steps = static_cast<int>(std::lround(std::log2(p)));
    const int last = static_cast<int>(std::lround(std::log2(side))) - 1;
    return sigma_sum(steps, dims, 2,
                     [last](int k) { return k < last ? std::pow(2, k + 1) - 1 : std::pow(2, k); }) /
           bound;
  }
  if (algorithm == "trivance-bw") {
    // trivance.txt section 5: both directions at distance 3^sigma(k), m/3^(k+1) per step;
    // asymptotically (3^D-1)/(3^D-3) (Table 2).
    const int steps = static_cast<int>(std::lround(std::log(p) / std::log(3)));
    return 2 * sigma_sum(steps, dims, 3, [](int s) { return std::pow(3, s); }) / bound;
  }
  return std::nan("");
}

void deficiency_table(int limit_s) {
  topo::NetworkParams params;  // pure bandwidth: no latency, no alpha
  params.bandwidth_bytes_per_s = 400e9 / 8;
  params.link_latency_s = 0;
  params.hop_latency_s = 0;
  struct Case {
    std::string algorithm;
    int side, dims;
    bool one_port = false;
  };
  std::vector<Case> cases;
  for (const std::string a : {"swing-bw", "bucket", "recdoub-bw"})
    for (auto [side, d] : {std::pair{64, 2}, {16, 3}, {8, 4}}) cases.push_back({a, side, d});
  for (auto [side, d] : {std::pair{64, 2}, {16, 3}, {8, 4}})
    cases.push_back({"recdoub-bw", side, d, true});
  for (auto [side, d] : {std::pair{27, 2}, {9, 3}, {9, 4}})
    cases.push_back({"trivance-bw", side, d});
  std::printf(
      "| algorithm | torus | p | simulated / bound | closed form at p | difference | note |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- |\n");
  for (const auto& c : cases) {
    const auto dims = square(c.side, c.dims);
    const double p = std::pow(c.side, c.dims);
    const std::uint64_t bytes = 1ull << 30;
    // Every algorithm on all 2D ports (recursive doubling multi-port, as trivance.txt section 6).
    const int ports = c.one_port ? 1 : 2 * c.dims;
    const Run r =
        measure([&] { return flow_run(c.algorithm, dims, bytes, params, ports); }, limit_s);
    // One port: the same congestion, and all the data through 1 of the 2D ports (Psi = 2D,
    // swing-nsdi24.txt section 2.3.3).
    const double expected =
        expected_deficiency(c.algorithm, c.side, c.dims) * (c.one_port ? 2 * c.dims : 1);
    const std::string name = c.algorithm + (c.one_port ? " (1 port)" : "");
    if (!r.ok || !r.note.empty()) {  // a 1D fallback is not the torus algorithm of the tables
      std::printf("| %s | %s | %.0f | | %.4f | | %s |\n", name.c_str(), shape_name(dims).c_str(), p,
                  expected,
                  r.ok ? "refuses torus shapes in this build: not compared" : r.note.c_str());
      continue;
    }
    const double bound = 2 * (p - 1) / p * bytes / (2.0 * c.dims * params.bandwidth_bytes_per_s);
    const double ratio = r.sim_time_s / bound;
    const bool lanes = c.algorithm == "recdoub-bw" && !c.one_port;
    std::printf(
        "| %s | %s | %.0f | %.4f | %.4f | %+.2f%% | %s |\n", name.c_str(), shape_name(dims).c_str(),
        p, ratio, expected, (ratio / expected - 1) * 100,
        lanes ? "trivance.txt Table 2 form (lanes never share a link direction)" : r.note.c_str());
    if (lanes) {
      const double lanes_form = expected_deficiency("recdoub-bw mirrored lanes", c.side, c.dims);
      std::printf("| %s | %s | %.0f | %.4f | %.4f | %+.2f%% | %s |\n", name.c_str(),
                  shape_name(dims).c_str(), p, ratio, lanes_form, (ratio / lanes_form - 1) * 100,
                  "closed form of the mirrored lanes as built");
    }
    std::fflush(stdout);
  }
}

bool has_flag(int argc, char** argv, const char* flag) {
  for (int i = 2; i < argc; ++i)
    if (std::strcmp(argv[i], flag) == 0) return true;
  return false;
}

// docs/efficiency.md's cell: the flow model at zero latency with a 1 GiB vector, as % of the
// collective's bandwidth bound f(P) x size / H (python/topocoll/simulate.py, "Peak goodput").
int peak_run(const std::string& algorithm, const std::string& collective, const std::string& spec,
             bool message_per_range) {
  topo::NetworkParams params;
  params.link_latency_s = 0;
  params.hop_latency_s = 0;
  const auto topology = topo::make_topology(spec, params);
  ScheduleRequest request;
  const auto parsed = parse_collective(collective);
  if (!parsed) {
    std::fprintf(stderr, "unknown collective '%s'\n", collective.c_str());
    return 2;
  }
  request.collective = *parsed;
  request.ranks = topology->host_count();
  request.dims = topology->grid_dims();
  const auto schedule = registry().build(algorithm, request);
  const auto router = topo::make_router(*topology, "minimal");
  const auto mapping = topo::make_mapping("linear", schedule->ranks(), *topology);
  // size: the largest buffer (1 GiB); the chunked collectives' vector is one rank's 1/P of it.
  const std::uint64_t size = 1ull << 30;
  const bool chunked = request.collective != Collective::allreduce &&
                       request.collective != Collective::bcast &&
                       request.collective != Collective::reduce;
  sim::SimConfig config;
  config.vector_bytes = chunked ? size / static_cast<std::uint64_t>(schedule->ranks()) : size;
  config.message_per_range = message_per_range;
  config.use_symmetry = g_use_symmetry;
  const auto r = sim::simulate(*schedule, *topology, *router, mapping, config);
  const double p = schedule->ranks();
  const double f = request.collective == Collective::allreduce ? 2 * (p - 1) / p
                   : chunked                                   ? (p - 1) / p
                                                               : 1.0;
  double host_bw = std::numeric_limits<double>::infinity();
  for (int h = 0; h < topology->host_count(); ++h)
    host_bw = std::min(host_bw, topology->host_injection_bandwidth(h));
  const double bound = f * static_cast<double>(size) / host_bw;
  std::printf("%s %s %s: time_s %.9g peak_percent %.2f messages %llu\n", algorithm.c_str(),
              collective.c_str(), spec.c_str(), r.time_s, 100 * bound / r.time_s,
              static_cast<unsigned long long>(r.messages));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "all";
  int jobs = 2, case_limit_s = 300, simgrid_limit_s = 600;
  std::string csv_path, skip;
  for (int i = 2; i < argc; ++i)
    if (std::strcmp(argv[i], "--no-symmetry") == 0) g_use_symmetry = false;
  for (int i = 2; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--skip") == 0) skip = argv[i + 1];
    if (std::strcmp(argv[i], "--simgrid-limit") == 0)
      simgrid_limit_s = std::max(1, std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--csv") == 0) csv_path = argv[i + 1];
    if (std::strcmp(argv[i], "--jobs") == 0) jobs = std::max(1, std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--case-limit") == 0)
      case_limit_s = std::max(1, std::atoi(argv[i + 1]));
  }
  const int limit_s = 600;
  const bool all = mode == "all";
  if (mode == "one" && argc >= 5) {  // one ALGORITHM AxB SIZE_BYTES [ROUTING]: a single run
    std::vector<int> dims;
    for (const char* p = argv[3]; *p != 0;) {
      dims.push_back(std::atoi(p));
      while (*p != 0 && *p != 'x') ++p;
      if (*p == 'x') ++p;
    }
    bool one_d = false;
    const auto r = simulate_on(argv[2], dims, std::strtoull(argv[4], nullptr, 10),
                               topo::preset_params("swing"),
                               argc > 5 && argv[5][0] != '-' ? argv[5] : "minimal", one_d);
    std::printf("time_s %.17g messages %llu transfers %llu symmetry %lld mean_util %.9g\n",
                r.time_s, static_cast<unsigned long long>(r.messages),
                static_cast<unsigned long long>(r.transfers),
                static_cast<long long>(r.symmetry_group), r.mean_link_utilization);
    return 0;
  }
  if (mode == "peak" && argc >= 5) {  // peak ALGORITHM COLLECTIVE TOPOLOGY [--message-per-range]
    return peak_run(argv[2], argv[3], argv[4], has_flag(argc, argv, "--message-per-range"));
  }
  if (all || mode == "speed") {
    std::printf("\n### Transfers per second (flow model, 64 MiB allreduce, swing parameters)\n\n");
    speed_table({"swing-bw", "recdoub-bw", "ring", "bucket"}, {{16, 16}, {32, 32}, {64, 64}},
                limit_s);
  }
  if (all || mode == "scaling") {
    std::printf("\n### Scaling from 64 to 16,384 nodes (flow model, 64 MiB)\n\n");
    speed_table({"swing-bw", "bucket"}, {{8, 8}, {16, 16}, {32, 32}, {64, 64}, {128, 128}},
                limit_s);
  }
  if (all || mode == "rings") {
    std::printf("\n### The O(P)-step rings at 64x64 (flow model, 64 MiB)\n\n");
    speed_table({"ring", "hamiltonian-rings"}, {{64, 64}}, limit_s);
  }
  if (all || mode == "simgrid") {
    std::printf("\n### Flow model versus SimGrid (64 MiB allreduce, swing parameters)\n\n");
    simgrid_table({"swing-bw", "recdoub-bw", "ring", "bucket"}, {{16, 16}, {32, 32}, {64, 64}},
                  simgrid_limit_s, csv_path);
  }
  if (all || mode == "compare") {
    std::printf("\n### A 64x64 compare sweep (flow model)\n\n");
    compare_sweep(jobs, case_limit_s, skip);
  }
  if (all || mode == "deficiency") {
    std::printf("\n### Large-vector deficiencies (flow model, 1 GiB, no latency)\n\n");
    deficiency_table(limit_s);
  }
  if (!all && mode != "speed" && mode != "scaling" && mode != "compare" && mode != "deficiency" &&
      mode != "simgrid" && mode != "rings" && mode != "peak") {
    std::fprintf(
        stderr,
        "unknown mode '%s'; accepted: speed, scaling, rings, simgrid, compare, deficiency, one, "
        "peak, all\n",
        mode.c_str());
    return 2;
  }
  return 0;
}
