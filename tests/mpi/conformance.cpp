// MPI conformance driver for the topocoll runtime (ctest runs it under mpiexec for several
// rank counts). It enumerates the registry: every algorithm, every collective it implements
// that the registry accepts for this rank count, with several datatypes (predefined and a
// derived one with gaps and a true lower bound), operators (including a non-commutative
// user-defined one), in place and not, uneven counts, count 0 and non-zero roots; every buffer
// of a call is guarded and compared byte by byte, so that only the elements the call defines
// may change (checks.cpp). It never assumes anything about an algorithm beyond what the
// registry says.
//
//   conformance [--algorithms a,b,...]   all cases for those algorithms (default: all)
//   conformance --no-large               without auto's count above 64 KiB
//   conformance --list                   the registry as the driver sees it
//
// Compositions (hier:INNER, leader:INNER) are named like any algorithm; with
// TOPOCOLL_RANKS_PER_NODE=K the runtime gives them nodes of K ranks, and so does the driver's
// request (ranks per node from the same variable, else 1).
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "checks.hpp"
#include "core/registry.hpp"

using namespace topocoll;
using namespace topocoll::mpitest;

namespace {

std::vector<Coll> mpi_collectives(Collective c) {
  std::vector<Coll> out;
  for (const auto& m : topocoll::mpi::kMpiCollectives)
    if (m.core == c) out.push_back(m.id);
  return out;
}

// `auto` also gets one count above the built-in table's 64 KiB threshold (every type is at
// least 4 bytes), so that its large-message algorithms run and are checked here too.
bool with_large_counts = true;  // --no-large: small counts only

std::vector<std::uint64_t> counts_for(Coll c, int p, const std::string& algorithm) {
  const auto up = static_cast<std::uint64_t>(p);
  const bool large = algorithm == "auto" && with_large_counts;
  if (c == Coll::allreduce || c == Coll::bcast || c == Coll::reduce) {
    if (large) return {0, 1, up - 1, 5 * up + 3, 16384 + up + 1};
    return {0, 1, up - 1, 5 * up + 3};
  }
  if (large) return {0, 1, 3, 16385};
  return {0, 1, 3};
}

struct Tally {
  int rank = 0;
  long cases = 0;
  long fallbacks = 0;  // non-commutative operator on an algorithm that reorders operands
  long failures = 0;
  std::map<std::string, std::map<std::string, int>> per_algorithm;
  std::set<std::string> skipped;

  void record(const CheckCase& c, const CheckResult& r, const std::string& expected_ran) {
    ++cases;
    ++per_algorithm[c.algorithm][coll_name(c.coll)];
    std::string problem;
    if (r.rc != MPI_SUCCESS) {
      problem = "returned MPI error " + std::to_string(r.rc);
    } else if (r.mismatch) {
      problem = *r.mismatch;
    } else if (!expected_ran.empty() && r.ran != expected_ran) {
      problem = "served by '" + r.ran + "', expected '" + expected_ran + "'";
    }
    if (expected_ran == "mpi" && c.algorithm != "mpi") ++fallbacks;
    if (problem.empty()) return;
    if (++failures <= 20)
      std::fprintf(stderr, "FAIL rank %d: %s: %s\n", rank, describe(c).c_str(), problem.c_str());
  }
};

std::vector<std::string> split(const std::string& text, char separator = ',') {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, separator);)
    if (!item.empty()) out.push_back(item);
  return out;
}

// The torus shape the runtime gives `algo`: TOPOCOLL_DIMS when its product is P and the
// algorithm runs on tori, else a ring (as docs/mpi.md specifies).
std::vector<int> shape_for(const AlgorithmInfo* algo, int p) {
  const char* text = std::getenv("TOPOCOLL_DIMS");
  std::vector<int> dims;
  long long product = 1;
  for (const std::string& part : split(text ? text : "", 'x')) {
    dims.push_back(std::atoi(part.c_str()));
    product *= dims.back();
  }
  std::erase(dims, 1);
  if (!algo || algo->requirements.dims == DimsRule::ring_only || dims.empty() || product != p)
    return {p};
  return dims;
}

// The ranks per node the runtime gives compositions: TOPOCOLL_RANKS_PER_NODE, else 1 (the
// tests run on one machine, where every rank shares MPI_COMM_TYPE_SHARED: K = P then).
int ranks_per_node(int p) {
  const char* text = std::getenv("TOPOCOLL_RANKS_PER_NODE");
  return text && std::atoi(text) > 0 ? std::atoi(text) : p;
}

void check_algorithm(const std::string& name, const AlgorithmInfo* algo,
                     const std::vector<TypeCase>& types, const std::vector<OpCase>& ops,
                     Tally& tally) {
  int p = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  std::vector<Collective> collectives =
      algo ? algo->collectives : std::vector<Collective>(all_collectives());
  for (Collective core : collectives) {
    ScheduleRequest request;
    request.collective = core;
    request.ranks = p;
    request.dims = shape_for(algo, p);
    request.root = is_rooted(core) ? p - 1 : 0;
    request.ranks_per_node = ranks_per_node(p);
    if (algo) {
      if (auto why = Registry::rejection(*algo, request)) {
        tally.skipped.insert(*why);
        continue;
      }
      try {  // constraints the registry cannot express as data surface when building
        (void)registry().build(name, request);
      } catch (const UnsupportedRequest& e) {
        tally.skipped.insert(e.what());
        continue;
      }
    }
    for (Coll coll : mpi_collectives(core)) {
      const std::vector<int> roots =
          is_rooted(coll) ? std::vector<int>{p - 1, 0} : std::vector<int>{0};
      for (const TypeCase& type : types) {
        std::vector<const OpCase*> op_cases;
        if (is_reduction(coll)) {
          for (const OpCase& op : ops) {
            if (std::find(op.types.begin(), op.types.end(), type.name) == op.types.end()) continue;
            op_cases.push_back(&op);
          }
        } else {
          if (type.name != "MPI_INT" && type.name != "struct{gap,int,gap,int}") continue;
          op_cases.push_back(nullptr);
        }
        for (const OpCase* op : op_cases) {
          std::string expected = name;
          if (name == "auto") expected.clear();
          if (op && !op->commutative && algo) {
            // The registry says whether the algorithm keeps operand order on this shape.
            ScheduleRequest ordered = request;
            ordered.commutative = false;
            if (Registry::rejection(*algo, ordered)) expected = "mpi";
          }
          for (std::uint64_t count : counts_for(coll, p, name))
            for (bool in_place : {false, true})
              for (int root : roots) {
                if (root == 0 && is_rooted(coll) && type.name != "MPI_INT") continue;
                CheckCase c{coll, name, &type, op, count, in_place, root, MPI_COMM_WORLD};
                tally.record(c, run_check(c), expected);
              }
        }
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, p = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  std::vector<std::string> names;
  bool list = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--list") list = true;
    if (arg == "--no-large") with_large_counts = false;
    if (arg == "--algorithms" && i + 1 < argc) names = split(argv[++i]);
  }
  if (list) {
    if (rank == 0)
      for (const auto& a : registry().all()) {
        std::printf("%s:", a.name.c_str());
        for (Collective c : a.collectives)
          std::printf(" %s", std::string(collective_name(c)).c_str());
        std::printf("\n");
      }
    MPI_Finalize();
    return 0;
  }
  if (names.empty()) {
    for (const auto& a : registry().all()) names.push_back(a.name);
    names.push_back("auto");
    names.push_back("mpi");
  }
  // Calls a forced algorithm cannot serve (the non-commutative operator on one that reorders
  // operands) must reach the MPI library quietly here; the misuse driver checks the policies.
  setenv("TOPOCOLL_FALLBACK", "silent", 1);
  // `auto` runs the built-in table's schedules (the large-message ones above 64 KiB included)
  // rather than handing the calls its default machine predicts no faster to the library: this
  // checks the schedules, misuse.cpp the comparison. A TOPOCOLL_MACHINE given to the run stays.
  setenv("TOPOCOLL_MACHINE", "none", 0);
  std::vector<TypeCase> types = make_types();
  const std::vector<OpCase> ops = make_ops();
  Tally tally;
  tally.rank = rank;
  for (const std::string& name : names) {
    const AlgorithmInfo* algo = registry().find(name);
    if (!algo && name != "auto" && name != "mpi") {
      if (rank == 0) std::fprintf(stderr, "unknown algorithm '%s'\n", name.c_str());
      ++tally.failures;
      continue;
    }
    check_algorithm(name, algo, types, ops, tally);
  }
  long failures = 0;
  MPI_Allreduce(&tally.failures, &failures, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    for (const auto& [algo, colls] : tally.per_algorithm) {
      std::printf("P=%d %s:", p, algo.c_str());
      for (const auto& [coll, n] : colls) std::printf(" %s(%d)", coll.c_str(), n);
      std::printf("\n");
    }
    for (const auto& why : tally.skipped) std::printf("P=%d skipped: %s\n", p, why.c_str());
    const char* dims = std::getenv("TOPOCOLL_DIMS");
    if (dims) std::printf("P=%d: TOPOCOLL_DIMS=%s for the algorithms that run on tori\n", p, dims);
    std::printf(
        "P=%d: %ld checked calls per rank (%ld non-commutative ones served by the MPI library as "
        "the registry requires), %ld failures over all ranks\n",
        p, tally.cases, tally.fallbacks, failures);
  }
  free_types(types);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
