// topocoll-bench: times and validates collectives on MPI ranks, comparing topocoll's schedules
// with the MPI library's own collective and, under Open MPI, its coll_tuned algorithms.
// Exit codes: 0 every call correct, 1 a call gave a wrong result, 2 invalid flags (a size
// whose buffers do not fit in memory included).
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "collective_case.hpp"
#include "core/registry.hpp"
#include "ompi_tuned.hpp"
#include "options.hpp"
#include "pattern.hpp"
#include "report.hpp"
#include "topocoll_mpi.h"

namespace topocoll::bench {
namespace {

// How one --algorithm entry runs.
struct Runner {
  std::string name;
  MPI_Comm comm = MPI_COMM_NULL;
  bool topocoll = false;  // through the C API with `name`; otherwise MPI_<Collective>
};

struct Setup {
  const CollectiveSpec* spec = nullptr;
  const TypeInfo* type = nullptr;
  const OpInfo* op = nullptr;  // sum for non-reductions (unused by them)
  std::vector<Runner> runners;
};

std::string topocoll_names(Collective c) {
  std::string out;
  for (const auto* a : registry().for_collective(c)) out += ", " + a->name;
  return out;
}

// Identical on every rank: either every rank throws BadFlag or none does.
Setup validate(const Options& options, int ranks) {
  Setup setup;
  setup.spec = find_collective(options.collective);
  if (!setup.spec)
    throw BadFlag("unknown collective '" + options.collective +
                  "'; accepted: " + collective_names());
  setup.type = find_type(options.datatype);
  if (!setup.type)
    throw BadFlag("unknown datatype '" + options.datatype + "'; accepted: " + type_names());
  setup.op = find_op(options.op);
  if (!setup.op) throw BadFlag("unknown op '" + options.op + "'; accepted: " + op_names());
  if (options.root >= ranks)
    throw BadFlag("-r " + std::to_string(options.root) + " is not a rank; accepted: 0.." +
                  std::to_string(ranks - 1));
  for (const auto& name : options.algorithms) {
    if (name == "mpi" || name == "auto" || is_ompi_algorithm(name)) continue;
    if (name.starts_with("file:")) continue;  // a schedule file: the runtime checks it
    const AlgorithmInfo* algo = registry().find(name);
    if (!algo || !algo->supports(setup.spec->core))
      throw BadFlag("--algorithm " + name + (algo ? " does not implement " : " is unknown for ") +
                    setup.spec->name +
                    "; accepted: auto, mpi, file:PATH, ompi-ring, ompi-recdoub, "
                    "ompi-rabenseifner, ompi-<coll_tuned name>" +
                    topocoll_names(setup.spec->core));
  }
  return setup;
}

void make_runners(Setup& setup, const Options& options, MPI_Comm bench_comm) {
  for (const auto& name : options.algorithms) {
    if (is_ompi_algorithm(name))
      setup.runners.push_back({name, forced_communicator(setup.spec->tuned_name, name), false});
    else
      setup.runners.push_back({name, bench_comm, name != "mpi"});
  }
}

std::vector<std::uint64_t> sizes(const Options& options) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t s = options.min_bytes; s <= options.max_bytes; s *= options.factor) {
    out.push_back(s);
    if (options.factor == 1 || s > options.max_bytes / options.factor) break;
  }
  return out;
}

// The calls of one algorithm at one size: its per-iteration times and wrong elements.
struct Trial {
  const Runner* runner = nullptr;
  std::string served;   // what topocoll_last_algorithm() named
  std::string refused;  // why this size is not measured (empty: measured)
  std::vector<double> times;
  std::uint64_t wrong = 0;
};

// Call number i (warm-up first) of the trial: prepare, time, validate.
void call_once(const Setup& setup, const Options& options, Trial& trial, CollectiveCase& call,
               int i) {
  const Runner& runner = *trial.runner;
  if (options.check) call.prepare();
  MPI_Barrier(runner.comm);
  const double start = MPI_Wtime();
  const int rc =
      call.run(runner.comm, runner.topocoll ? runner.name.c_str() : nullptr, setup.op->mpi);
  const double elapsed = MPI_Wtime() - start;
  if (i == 0) {
    // The first call decides, on every rank alike, whether this size is served as asked.
    trial.served = runner.topocoll ? topocoll_last_algorithm() : runner.name;
    int refused = rc != MPI_SUCCESS || (runner.name != "auto" && trial.served != runner.name);
    MPI_Allreduce(MPI_IN_PLACE, &refused, 1, MPI_INT, MPI_MAX, runner.comm);
    if (refused) {
      trial.refused = rc != MPI_SUCCESS ? "the call returned an MPI error (stderr names it)"
                                        : "served by " + trial.served + " (fallback)";
      return;
    }
  }
  if (options.check) trial.wrong += call.wrong();
  if (i >= options.warmup) trial.times[i - options.warmup] = elapsed;
}

// The row of a measured trial: the slowest rank per iteration, then the mean over iterations.
Row summarize(const Setup& setup, const Options& options, Trial& trial,
              const CollectiveCase& call) {
  MPI_Comm comm = trial.runner->comm;
  auto& times = trial.times;
  MPI_Allreduce(MPI_IN_PLACE, times.data(), options.iterations, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(MPI_IN_PLACE, &trial.wrong, 1, MPI_UINT64_T, MPI_SUM, comm);
  double sum = 0;
  for (double t : times) sum += t;
  const double seconds = sum / options.iterations;
  Row row;
  row.algorithm = trial.runner->name;
  row.served_by = trial.served;
  row.bytes = call.bytes();
  row.count = call.count();
  row.type = setup.type->name;
  row.redop = setup.spec->reduction ? setup.op->name : "none";
  row.root = setup.spec->rooted ? options.root : -1;
  row.time_us = seconds * 1e6;
  std::sort(times.begin(), times.end());
  row.median_us = times[times.size() / 2] * 1e6;
  row.min_us = times.front() * 1e6;
  row.algbw = seconds > 0 ? call.bytes() / seconds / 1e9 : 0;
  int ranks = 0;
  MPI_Comm_size(comm, &ranks);
  row.busbw = row.algbw * setup.spec->busbw_factor(ranks);
  row.wrong = trial.wrong;
  row.checked = options.check;
  return row;
}

// Every algorithm at one size. Interleaved: iteration i of every algorithm before iteration
// i+1 of any, so that load changes on a shared machine hit all algorithms alike.
std::vector<Trial> measure_size(const Setup& setup, const Options& options, CollectiveCase& call,
                                const std::vector<const Runner*>& runners) {
  std::vector<Trial> trials;
  for (const Runner* runner : runners) {
    Trial trial;
    trial.runner = runner;
    trial.times.assign(options.iterations, 0.0);
    trials.push_back(std::move(trial));
  }
  const int total = options.warmup + options.iterations;
  if (options.interleave) {
    for (int i = 0; i < total; ++i)
      for (auto& trial : trials)
        if (trial.refused.empty()) call_once(setup, options, trial, call, i);
  } else {
    for (auto& trial : trials)
      for (int i = 0; i < total && trial.refused.empty(); ++i)
        call_once(setup, options, trial, call, i);
  }
  return trials;
}

// The buffers of one size, or BadFlag on every rank when they do not fit in some rank's
// memory (a size too large for this machine is a bad flag, not a crash).
CollectiveCase buffers_for(const CollectiveSpec& spec, const Pattern& pattern, int rank, int ranks,
                           int root, std::uint64_t bytes) {
  std::optional<CollectiveCase> call;
  int no_memory = 0;
  try {
    call.emplace(spec, pattern, rank, ranks, root, bytes);
  } catch (const std::bad_alloc&) {
    no_memory = 1;
  } catch (const std::length_error&) {
    no_memory = 1;
  }
  MPI_Allreduce(MPI_IN_PLACE, &no_memory, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (no_memory)
    throw BadFlag("the buffers of a " + std::to_string(bytes) + "-byte " + spec.name + " on " +
                  std::to_string(ranks) +
                  " ranks do not fit in the memory of every rank; accepted: smaller -b/-e");
  return std::move(*call);
}

struct Outcome {
  std::vector<Row> rows;
  std::vector<Skip> skips;
};

int run(const Options& options, int rank, int ranks) {
  Setup setup = validate(options, ranks);
  MPI_Comm bench_comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &bench_comm);
  make_runners(setup, options, bench_comm);

  Report report({setup.spec->name, ranks, options.iterations, options.warmup, options.check},
                options.json);
  const bool printer = rank == 0;
  std::uint64_t wrong = 0;
  const Pattern pattern(*setup.type, setup.spec->reduction ? setup.op : nullptr, ranks);
  auto measure = [&](const std::vector<const Runner*>& runners, std::uint64_t bytes) {
    CollectiveCase call = buffers_for(*setup.spec, pattern, rank, ranks, options.root, bytes);
    std::vector<Outcome> outcomes(runners.size());
    auto trials = measure_size(setup, options, call, runners);
    for (std::size_t k = 0; k < trials.size(); ++k) {
      if (!trials[k].refused.empty()) {
        outcomes[k].skips.push_back({trials[k].runner->name, call.bytes(), trials[k].refused});
        continue;
      }
      outcomes[k].rows.push_back(summarize(setup, options, trials[k], call));
      wrong += outcomes[k].rows.back().wrong;
    }
    return outcomes;
  };
  auto emit = [&](const Outcome& outcome) {
    if (!printer) return;
    for (const auto& skip : outcome.skips) report.skip(skip);
    for (const auto& row : outcome.rows) report.add(row);
  };
  if (options.interleave) {
    std::vector<const Runner*> all;
    for (const auto& runner : setup.runners) all.push_back(&runner);
    std::vector<std::vector<Outcome>> by_size;
    for (std::uint64_t bytes : sizes(options)) by_size.push_back(measure(all, bytes));
    for (std::size_t k = 0; k < all.size(); ++k) {
      if (printer) report.begin_algorithm(all[k]->name);
      for (const auto& outcomes : by_size) emit(outcomes[k]);
    }
  } else {
    for (const auto& runner : setup.runners) {
      if (printer) report.begin_algorithm(runner.name);
      for (std::uint64_t bytes : sizes(options)) emit(measure({&runner}, bytes)[0]);
    }
  }
  if (printer) report.finish();
  for (auto& runner : setup.runners)
    if (runner.comm != bench_comm) MPI_Comm_free(&runner.comm);
  MPI_Comm_free(&bench_comm);
  return wrong ? 1 : 0;
}

}  // namespace
}  // namespace topocoll::bench

int main(int argc, char** argv) {
  using namespace topocoll::bench;
  std::optional<Options> options;
  std::string error;
  try {
    options = parse_options(std::vector<std::string>(argv + 1, argv + argc));
    prepare_environment(options->algorithms);
  } catch (const BadFlag& e) {
    error = e.what();
  }
  // A benchmark must measure what it names: an algorithm that cannot serve a call is reported
  // as not run rather than silently replaced by the MPI library's collective.
  setenv("TOPOCOLL_FALLBACK", "error", /*overwrite=*/0);
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int status = 2;
  if (options && options->help) {
    if (rank == 0) std::printf("%s", usage().c_str());
    status = 0;
  } else if (options) {
    try {
      status = run(*options, rank, ranks);
    } catch (const BadFlag& e) {
      error = e.what();
    }
  }
  if (!error.empty() && rank == 0)
    std::fprintf(stderr, "topocoll-bench: error: %s\n", error.c_str());
  finish_tool_interface();
  MPI_Finalize();
  return status;
}
