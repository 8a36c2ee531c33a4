// Selection, fallback and communicator checks of the topocoll MPI runtime (ctest runs it
// under mpiexec): forced names the registry rejects, TOPOCOLL_FALLBACK policies, rules files
// (valid, malformed, naming an algorithm that cannot serve), TOPOCOLL_<COLL>_ALGORITHM,
// intercommunicators, several communicators alive at once, Cartesian communicators,
// `auto` against the MPI library's own choice (a machine file, the default machine, `none`), and
// `--large`: one message above 2^31 bytes (count above INT_MAX). Every check states what it
// verified; any failure names the rank and the check.
#include <mpi.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "core/schedule_io.hpp"
#include "runtime/mpi_collective.hpp"
#include "topocoll_mpi.h"

using namespace topocoll;

namespace {

int rank_ = 0, size_ = 0;
int failures = 0;

void check(bool ok, const std::string& what) {
  int all_ok = ok ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (!ok) std::fprintf(stderr, "FAIL rank %d: %s\n", rank_, what.c_str());
  if (!all_ok) ++failures;
  if (rank_ == 0 && all_ok) std::printf("ok: %s\n", what.c_str());
}

// Allreduce (MPI_SUM of rank- and element-dependent ints) on `comm`; true when correct.
bool allreduce_ok(MPI_Comm comm, const char* algorithm, int count, int* rc) {
  int me = 0, p = 0;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &p);
  std::vector<int> in(static_cast<std::size_t>(count)), out(in.size(), -1);
  for (int i = 0; i < count; ++i) in[static_cast<std::size_t>(i)] = me * 1000 + i;
  *rc = topocoll_allreduce(in.data(), out.data(), count, MPI_INT, MPI_SUM, comm, algorithm);
  if (*rc != MPI_SUCCESS) return false;
  for (int i = 0; i < count; ++i)
    if (out[static_cast<std::size_t>(i)] != 1000 * p * (p - 1) / 2 + p * i) return false;
  return true;
}

std::string ran() { return topocoll_last_algorithm(); }

const AlgorithmInfo* find_algorithm(Collective c, bool accepted, bool commutative_needed = false) {
  for (const auto& a : registry().all()) {
    if (!a.supports(c)) continue;
    ScheduleRequest r;
    r.collective = c;
    r.ranks = size_;
    r.dims = {size_};
    const bool ok = !Registry::rejection(a, r);
    if (ok == accepted && (!commutative_needed || a.requirements.commutative_op)) return &a;
  }
  return nullptr;
}

void forced_names() {
  int rc = 0;
  setenv("TOPOCOLL_FALLBACK", "warn", 1);
  check(allreduce_ok(MPI_COMM_WORLD, "no-such-algorithm", 10, &rc) && ran() == "mpi",
        "unknown algorithm with TOPOCOLL_FALLBACK=warn: correct result from the MPI library");
  setenv("TOPOCOLL_FALLBACK", "error", 1);
  allreduce_ok(MPI_COMM_WORLD, "no-such-algorithm", 10, &rc);
  check(rc == MPI_ERR_ARG, "unknown algorithm with TOPOCOLL_FALLBACK=error: MPI_ERR_ARG");

  // An algorithm that does not implement bcast.
  for (const auto& a : registry().all()) {
    if (a.supports(Collective::bcast)) continue;
    std::vector<int> buffer(8, rank_ == 0 ? 7 : 0);
    rc = topocoll_bcast(buffer.data(), 8, MPI_INT, 0, MPI_COMM_WORLD, a.name.c_str());
    check(rc == MPI_ERR_ARG, a.name + " does not implement bcast, fallback=error: MPI_ERR_ARG");
    setenv("TOPOCOLL_FALLBACK", "silent", 1);
    rc = topocoll_bcast(buffer.data(), 8, MPI_INT, 0, MPI_COMM_WORLD, a.name.c_str());
    check(
        rc == MPI_SUCCESS && buffer[7] == 7 && ran() == "mpi",
        a.name + " does not implement bcast, fallback=silent: correct result from the MPI library");
    setenv("TOPOCOLL_FALLBACK", "error", 1);
    break;
  }
  // An algorithm whose rank rule rejects this communicator size.
  if (const AlgorithmInfo* a = find_algorithm(Collective::allreduce, false)) {
    if (a->supports(Collective::allreduce)) {
      allreduce_ok(MPI_COMM_WORLD, a->name.c_str(), 10, &rc);
      check(rc == MPI_ERR_ARG, a->name + " rejects comm_size=" + std::to_string(size_) +
                                   ", fallback=error: MPI_ERR_ARG");
    }
  }
  // A non-commutative user operator on an algorithm that reorders operands.
  if (const AlgorithmInfo* a = find_algorithm(Collective::allreduce, true, true)) {
    MPI_Op first = MPI_OP_NULL;  // inout = in: keeps the lowest rank's value (not commutative)
    MPI_Op_create(
        [](void* in, void* inout, int* len, MPI_Datatype*) {
          for (int i = 0; i < *len; ++i) static_cast<int*>(inout)[i] = static_cast<int*>(in)[i];
        },
        0, &first);
    int value = rank_ + 5, result = -1;
    rc = topocoll_allreduce(&value, &result, 1, MPI_INT, first, MPI_COMM_WORLD, a->name.c_str());
    check(rc == MPI_ERR_ARG,
          a->name + " with a non-commutative operator, fallback=error: MPI_ERR_ARG");
    setenv("TOPOCOLL_FALLBACK", "warn", 1);
    rc = topocoll_allreduce(&value, &result, 1, MPI_INT, first, MPI_COMM_WORLD, a->name.c_str());
    check(
        rc == MPI_SUCCESS && result == 5 && ran() == "mpi",
        a->name +
            " with a non-commutative operator, fallback=warn: rank order kept by the MPI library");
    MPI_Op_free(&first);
  }
  // A predefined operator on a derived datatype: left to the MPI library (never run by us).
  {
    MPI_Datatype pair = MPI_DATATYPE_NULL;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    int in[2] = {rank_, 1}, out[2] = {0, 0};
    setenv("TOPOCOLL_FALLBACK", "error", 1);  // Open MPI itself rejects this call
    rc = topocoll_allreduce(in, out, 1, pair, MPI_SUM, MPI_COMM_WORLD, "ring");
    check(rc == MPI_ERR_ARG && ran() == "error",
          "MPI_SUM on a derived datatype with ring forced, fallback=error: MPI_ERR_ARG");
    MPI_Type_free(&pair);
  }
  // A communicator of one rank: no algorithm needs fewer than two, the MPI library serves.
  setenv("TOPOCOLL_FALLBACK", "warn", 1);
  {
    int one = 0;
    const int in = 41;
    rc = topocoll_allreduce(&in, &one, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF, "auto");
    check(rc == MPI_SUCCESS && one == 41 && ran() == "mpi",
          "auto on MPI_COMM_SELF: the MPI library");
  }
  check(allreduce_ok(MPI_COMM_WORLD, "mpi", 10, &rc) && ran() == "mpi",
        "algorithm=mpi: the MPI library");
  setenv("TOPOCOLL_ALLREDUCE_ALGORITHM", "ring", 1);
  check(allreduce_ok(MPI_COMM_WORLD, nullptr, 10, &rc) && ran() == "ring",
        "TOPOCOLL_ALLREDUCE_ALGORITHM=ring with a NULL algorithm argument runs ring");
  unsetenv("TOPOCOLL_ALLREDUCE_ALGORITHM");
  check(allreduce_ok(MPI_COMM_WORLD, nullptr, 10, &rc) && ran() != "ring",
        "TOPOCOLL_ALLREDUCE_ALGORITHM unset again: auto, not ring");
  // A putenv'd string is part of the environment: changed in place, the environment's
  // pointers stay the same, and the next call must still see the new value (config.cpp
  // remembers the pointers and hashes the TOPOCOLL_ variables again).
  static char variable[64] = "TOPOCOLL_ALLREDUCE_ALGORITHM=ring";
  putenv(variable);
  const bool ring = allreduce_ok(MPI_COMM_WORLD, nullptr, 10, &rc) && ran() == "ring";
  std::snprintf(variable, sizeof variable, "TOPOCOLL_ALLREDUCE_ALGORITHM=recdoub-lat");
  check(ring && allreduce_ok(MPI_COMM_WORLD, nullptr, 10, &rc) && ran() == "recdoub-lat",
        "a putenv'd TOPOCOLL_ALLREDUCE_ALGORITHM changed in place: ring, then recdoub-lat");
  unsetenv("TOPOCOLL_ALLREDUCE_ALGORITHM");
}

// Files the checks point TOPOCOLL_RULES and TOPOCOLL_MACHINE at, removed when the run ends.
std::vector<std::string> written_files;

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = "/tmp/topocoll-misuse-" + std::to_string(getpid()) + "-" + name;
  std::ofstream(path) << text;
  written_files.push_back(path);
  return path;
}

void rules_files() {
  int rc = 0;
  std::vector<const AlgorithmInfo*> usable;
  for (const auto* a : registry().for_collective(Collective::allreduce)) {
    ScheduleRequest r;
    r.collective = Collective::allreduce;
    r.ranks = size_;
    r.dims = {size_};
    if (!Registry::rejection(*a, r)) usable.push_back(a);
  }
  const AlgorithmInfo* rejected = find_algorithm(Collective::allreduce, false);
  if (usable.size() < 2) return;
  const std::string small = usable[0]->name, large = usable.back()->name;
  std::string rules = R"({"version": 1, "rules": [)";
  if (rejected && rejected->supports(Collective::allreduce))
    rules +=
        R"({"collective": "allreduce", "min_ranks": 1, "max_ranks": 100000, "min_bytes": 0, "max_bytes": 3, "algorithm": ")" +
        rejected->name + R"("},)";
  rules += R"({"collective": "allreduce", "min_ranks": )" + std::to_string(size_) +
           R"(, "max_ranks": )" + std::to_string(size_) +
           R"(, "min_bytes": 0, "max_bytes": 400, "algorithm": ")" + small + R"("},
    {"collective": "allreduce", "min_ranks": 2, "max_ranks": 100000, "min_bytes": 401, "max_bytes": 1000000000, "algorithm": ")" +
           large + R"("}]})";
  setenv("TOPOCOLL_RULES", write_file("rules.json", rules).c_str(), 1);
  check(allreduce_ok(MPI_COMM_WORLD, "auto", 100, &rc) && ran() == small,
        "rules file: 400 bytes -> " + small);
  check(allreduce_ok(MPI_COMM_WORLD, "auto", 101, &rc) && ran() == large,
        "rules file: 404 bytes -> " + large);
  if (rejected && rejected->supports(Collective::allreduce))
    check(allreduce_ok(MPI_COMM_WORLD, "auto", 0, &rc) && ran() != rejected->name && ran() != "mpi",
          "rules file naming " + rejected->name +
              " (rejects this size): the built-in default serves");
  setenv("TOPOCOLL_RULES",
         write_file("broken.json", "{\"version\": 1, \"rules\": [{\"collective\": \"allreduce\"")
             .c_str(),
         1);
  setenv("TOPOCOLL_FALLBACK", "warn", 1);
  check(allreduce_ok(MPI_COMM_WORLD, "auto", 10, &rc) && ran() == "mpi",
        "malformed rules file, fallback=warn: error printed once, the MPI library serves");
  setenv("TOPOCOLL_FALLBACK", "error", 1);
  allreduce_ok(MPI_COMM_WORLD, "auto", 10, &rc);
  check(rc == MPI_ERR_ARG, "malformed rules file, fallback=error: MPI_ERR_ARG");
  setenv(
      "TOPOCOLL_RULES",
      write_file("unknown.json",
                 R"({"version": 1, "rules": [{"collective": "allreduce", "algorithm": "nope"}]})")
          .c_str(),
      1);
  allreduce_ok(MPI_COMM_WORLD, "auto", 10, &rc);
  check(rc == MPI_ERR_ARG, "rules file naming an unknown algorithm, fallback=error: MPI_ERR_ARG");
  unsetenv("TOPOCOLL_RULES");
  setenv("TOPOCOLL_FALLBACK", "warn", 1);
  const bool served = allreduce_ok(MPI_COMM_WORLD, "auto", 10, &rc);
  const std::string chosen = ran();
  check(served && chosen != "mpi" && chosen != "error",
        "no rules file: the built-in default table serves (" + chosen + ")");
}

// A rules file (named `file`) that gives every allreduce to recdoub-lat, in TOPOCOLL_RULES.
void use_recdoub_lat_rule(const char* file) {
  const std::string rules =
      R"({"version": 1, "rules": [{"collective": "allreduce", "algorithm": "recdoub-lat"}]})";
  setenv("TOPOCOLL_RULES", write_file(file, rules).c_str(), 1);
}

// `auto` with a machine file (TOPOCOLL_MACHINE) predicts the MPI library's own algorithm too and
// serves the call only where its candidate is predicted faster. On a ring of 4 hosts with
// 1 Gb/s links, a 1 MiB allreduce by recdoub-lat (a rules file's choice: the whole vector in
// each of 2 steps, the second across 2 hops) is slower than the library's (Open MPI: the ring,
// 6 steps of 256 KiB; MPICH: recdoub-bw, 1.5 MiB in 4 steps), so the library serves it; the
// built-in table's swing-bw (1.5 MiB in 4 steps, neighbours only) is faster than either, so
// topocoll serves it. The first check fails if auto always picks topocoll, the second if it
// always hands the call over.
void machine_file_auto() {
  if (size_ != 4) return;  // the hand-made machine is a ring of 4 hosts
  const std::string source = R"("source": "tests/mpi/misuse.cpp, a hand-made machine")";
  const std::string machine =
      R"({"format": "topocoll-machine/1", "name": "test-ring", "description": "four hosts on a ring of 1 Gb/s links", "topology": {"value": "ring:4", )" +
      source + R"(}, "network": {"bandwidth": {"value": "1Gbps", )" + source +
      R"(}, "hop_latency": {"value": "1us", )" + source + "}}}";
  setenv("TOPOCOLL_MACHINE", write_file("machine.json", machine).c_str(), 1);
  use_recdoub_lat_rule("slow-rule.json");
  int rc = 0;
  const int count = 1 << 18;  // 1 MiB of MPI_INT
  bool ok = allreduce_ok(MPI_COMM_WORLD, "auto", count, &rc);
  check(ok && ran() == "mpi",
        "TOPOCOLL_MACHINE: recdoub-lat predicted slower than the library's own algorithm: the "
        "library serves (" +
            ran() + ")");
  unsetenv("TOPOCOLL_RULES");
  ok = allreduce_ok(MPI_COMM_WORLD, "auto", count, &rc);
  check(ok && ran() == "swing-bw",
        "TOPOCOLL_MACHINE: swing-bw predicted faster than the library's own algorithm: topocoll "
        "serves (" +
            ran() + ")");
  setenv("TOPOCOLL_MACHINE", "none", 1);
}

// The number after `key` in `text` (a verbose reason: "recdoub-lat=168.25us"), or -1.
double number_after(const std::string& text, const std::string& key) {
  const std::size_t at = text.find(key);
  return at == std::string::npos ? -1.0 : std::atof(text.c_str() + at + key.size());
}

// Without TOPOCOLL_MACHINE `auto` still compares, on the default machine built into the
// library. A rules file's recdoub-lat for a 1 MiB allreduce moves the whole vector in each of
// its log2 P steps (more with the fold of P = 6), where the library's own choice moves less
// (Open MPI: the ring, 2 (P-1)/P of it; MPICH: recdoub-bw, the same in 2 log2 P steps): the
// reason must name the default machine and predict recdoub-lat slower, and the library must
// serve. TOPOCOLL_MACHINE=none gives the rule back its call (the check fails if the
// comparison never happens, or if the call went to the library for another reason).
void default_machine_auto() {
  unsetenv("TOPOCOLL_MACHINE");
  use_recdoub_lat_rule("lat-rule.json");
  int rc = 0;
  const int count = 1 << 18;  // 1 MiB of MPI_INT
  bool ok = allreduce_ok(MPI_COMM_WORLD, "auto", count, &rc);
  const std::string reason = topocoll_last_reason();
  const double mine = number_after(reason, "recdoub-lat=");
  const std::size_t last = reason.rfind('=');
  const double theirs = last == std::string::npos ? -1.0 : std::atof(reason.c_str() + last + 1);
  check(ok && ran() == "mpi" && reason.find("predicted on default machine ") != std::string::npos &&
            mine > theirs && theirs > 0,
        "no TOPOCOLL_MACHINE: the default machine predicts the library faster than recdoub-lat "
        "for 1 MiB, and the library serves (" +
            ran() + "; " + reason + ")");
  setenv("TOPOCOLL_MACHINE", "none", 1);
  ok = allreduce_ok(MPI_COMM_WORLD, "auto", count, &rc);
  check(
      ok && ran() == "recdoub-lat",
      "TOPOCOLL_MACHINE=none: no comparison, the rules file's recdoub-lat serves (" + ran() + ")");
  unsetenv("TOPOCOLL_RULES");
}

// One call of `c` with `count` MPI_INTs per rank (the MPI count argument; every rank of
// MPI_Reduce_scatter gets `count`), root P-1; returns what served it ("" when the call failed).
std::string served_by(mpi::MpiCollective c, int count, MPI_Comm comm, const char* algorithm,
                      MPI_Op op = MPI_SUM) {
  using C = mpi::MpiCollective;
  int p = 0;
  MPI_Comm_size(comm, &p);
  const auto n = static_cast<std::size_t>(count), all = n * static_cast<std::size_t>(p);
  std::vector<int> in(all, 1), out(all, 0), counts(static_cast<std::size_t>(p), count);
  const int root = p - 1;
  int rc = MPI_ERR_OTHER;
  switch (c) {
    case C::allreduce:
      rc = topocoll_allreduce(in.data(), out.data(), count, MPI_INT, op, comm, algorithm);
      break;
    case C::reduce_scatter_block:
      rc =
          topocoll_reduce_scatter_block(in.data(), out.data(), count, MPI_INT, op, comm, algorithm);
      break;
    case C::reduce_scatter:
      rc = topocoll_reduce_scatter(in.data(), out.data(), counts.data(), MPI_INT, op, comm,
                                   algorithm);
      break;
    case C::allgather:
      rc = topocoll_allgather(in.data(), count, MPI_INT, out.data(), count, MPI_INT, comm,
                              algorithm);
      break;
    case C::bcast: rc = topocoll_bcast(in.data(), count, MPI_INT, root, comm, algorithm); break;
    case C::reduce:
      rc = topocoll_reduce(in.data(), out.data(), count, MPI_INT, op, root, comm, algorithm);
      break;
    case C::gather:
      rc = topocoll_gather(in.data(), count, MPI_INT, out.data(), count, MPI_INT, root, comm,
                           algorithm);
      break;
    case C::scatter:
      rc = topocoll_scatter(in.data(), count, MPI_INT, out.data(), count, MPI_INT, root, comm,
                            algorithm);
      break;
    case C::alltoall:
      rc =
          topocoll_alltoall(in.data(), count, MPI_INT, out.data(), count, MPI_INT, comm, algorithm);
      break;
  }
  return rc == MPI_SUCCESS ? ran() : "";
}

// `auto` without a rules file follows docs/mpi.md's built-in table: on both sides of its
// 64 KiB threshold (16383 and 16384 MPI_INTs per rank: 65532 and 65536 bytes), every
// collective gets the table's first algorithm that accepts the call; an operator that is
// not commutative moves to the next one of the list.
void default_table() {
  using C = mpi::MpiCollective;
  struct Row {
    C collective;
    const char* small;
    const char* large;
  };
  // The table of docs/mpi.md ("The built-in table"): the first entry of each list accepts
  // any rank count, so these hold at every P.
  const Row rows[] = {{C::allreduce, "swing-lat", "swing-bw"},
                      {C::reduce_scatter_block, "swing-bw", "swing-bw"},
                      {C::reduce_scatter, "swing-bw", "swing-bw"},
                      {C::allgather, "swing-bw", "swing-bw"},
                      {C::bcast, "binomial-doubling", "binomial-large"},
                      {C::reduce, "binomial-halving", "binomial-large"},
                      {C::gather, "binomial", "binomial"},
                      {C::scatter, "binomial", "binomial"},
                      {C::alltoall, "bruck", "pairwise"}};
  unsetenv("TOPOCOLL_RULES");
  for (const Row& row : rows) {
    const std::string name = mpi::mpi_collective_name(row.collective);
    const std::string below = served_by(row.collective, 16383, MPI_COMM_WORLD, "auto");
    const std::string above = served_by(row.collective, 16384, MPI_COMM_WORLD, "auto");
    check(below == row.small && above == row.large,
          "auto " + name + ": 65532 bytes -> " + below + " (table: " + row.small +
              "), 65536 bytes -> " + above + " (table: " + row.large + ")");
  }
  MPI_Op first = MPI_OP_NULL;  // inout = in: not commutative
  MPI_Op_create(
      [](void* in, void* inout, int* len, MPI_Datatype*) {
        for (int i = 0; i < *len; ++i) static_cast<int*>(inout)[i] = static_cast<int*>(in)[i];
      },
      0, &first);
  const std::string ordered = served_by(C::allreduce, 100, MPI_COMM_WORLD, "auto", first);
  check(ordered == "recdoub-lat",
        "auto allreduce, non-commutative operator: swing-lat reorders, the next entry "
        "recdoub-lat serves (" +
            ordered + ")");
  MPI_Op_free(&first);
}

// Rules files: the first matching rule wins, even when a later one matches too; a matching
// rule whose algorithm rejects the call hands it to the built-in table, not to the next rule.
void rule_order() {
  const auto rules = [](const std::vector<std::string>& algorithms) {
    std::string text = R"({"version": 1, "rules": [)";
    for (std::size_t i = 0; i < algorithms.size(); ++i)
      text += std::string(i ? "," : "") + R"({"collective": "allreduce", "algorithm": ")" +
              algorithms[i] + R"("})";
    return text + "]}";
  };
  setenv("TOPOCOLL_RULES", write_file("order.json", rules({"ring", "recdoub-lat"})).c_str(), 1);
  const std::string first = served_by(mpi::MpiCollective::allreduce, 10, MPI_COMM_WORLD, "auto");
  check(first == "ring",
        "rules [ring, recdoub-lat], both matching: the first serves (" + first + ")");
  // hamiltonian-rings needs a 2D torus: it rejects this ring-shaped communicator.
  setenv("TOPOCOLL_RULES",
         write_file("rejected.json", rules({"hamiltonian-rings", "ring"})).c_str(), 1);
  const std::string fallen = served_by(mpi::MpiCollective::allreduce, 10, MPI_COMM_WORLD, "auto");
  check(fallen == "swing-lat",
        "rules [hamiltonian-rings (rejects a ring), ring]: the built-in table serves, not the "
        "next rule (" +
            fallen + ")");
  unsetenv("TOPOCOLL_RULES");
}

// The shape of an MPI_Cart communicator reaches the registry's checks: an algorithm whose
// shape rule accepts one of ring and torus and rejects the other is served on exactly the
// accepted one, forced and through a rules file under `auto`.
void cartesian_shapes() {
  int dims[2] = {0, 0}, periods[2] = {1, 1};
  MPI_Dims_create(size_, 2, dims);
  MPI_Comm cart = MPI_COMM_NULL;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  const std::string shape = std::to_string(dims[0]) + "x" + std::to_string(dims[1]);
  const std::string ring = std::to_string(size_);
  // An algorithm of 2D tori only (accepts the Cart shape, not the ring) or one that needs
  // every side even (accepts a ring of even size, not a torus with an odd side).
  std::string algorithm, on_torus_only;
  for (const char* name : {"hamiltonian-rings", "bine-lat-torus"}) {
    const AlgorithmInfo* a = registry().find(name);
    ScheduleRequest r;
    r.collective = Collective::allreduce;
    r.ranks = size_;
    r.dims = {dims[0], dims[1]};
    const bool torus = !Registry::rejection(*a, r);
    r.dims = {size_};
    const bool ring_shape = !Registry::rejection(*a, r);
    if (torus != ring_shape) {
      algorithm = name;
      on_torus_only = torus ? "1" : "";
      break;
    }
  }
  check(!algorithm.empty(), "an algorithm that tells the " + shape + " torus from a ring");
  if (!algorithm.empty()) {
    setenv("TOPOCOLL_FALLBACK", "silent", 1);
    const bool torus = !on_torus_only.empty();
    const auto want = [&](bool accepted) { return accepted ? algorithm : std::string("mpi"); };
    const std::string on_cart =
        served_by(mpi::MpiCollective::allreduce, 10, cart, algorithm.c_str());
    const std::string on_world =
        served_by(mpi::MpiCollective::allreduce, 10, MPI_COMM_WORLD, algorithm.c_str());
    check(on_cart == want(torus) && on_world == want(!torus),
          algorithm + " forced: " + on_cart + " on the " + shape + " MPI_Cart communicator, " +
              on_world + " on the ring of " + ring);
    setenv("TOPOCOLL_DIMS", shape.c_str(), 1);
    const std::string with_dims =
        served_by(mpi::MpiCollective::allreduce, 10, MPI_COMM_WORLD, algorithm.c_str());
    unsetenv("TOPOCOLL_DIMS");
    check(with_dims == want(torus),
          algorithm + " forced with TOPOCOLL_DIMS=" + shape + ": " + with_dims);
    const std::string rules = R"({"version": 1, "rules": [{"collective": "allreduce", )"
                              R"("algorithm": ")" +
                              algorithm + R"("}]})";
    setenv("TOPOCOLL_RULES", write_file("cart.json", rules).c_str(), 1);
    const std::string auto_cart = served_by(mpi::MpiCollective::allreduce, 10, cart, "auto");
    const std::string auto_world =
        served_by(mpi::MpiCollective::allreduce, 10, MPI_COMM_WORLD, "auto");
    unsetenv("TOPOCOLL_RULES");
    const std::string table = "swing-lat";
    check(auto_cart == (torus ? algorithm : table) && auto_world == (torus ? table : algorithm),
          "auto with a rule naming " + algorithm + ": " + auto_cart + " on the " + shape +
              " MPI_Cart communicator, " + auto_world + " on the ring");
    setenv("TOPOCOLL_FALLBACK", "warn", 1);
  }
  MPI_Comm_free(&cart);
}

void communicators() {
  int rc = 0;
  // An intercommunicator between the even and the odd ranks.
  MPI_Comm half = MPI_COMM_NULL, inter = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank_ % 2, rank_, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank_ % 2 == 0 ? 1 : 0, 7, &inter);
  int value = rank_, sum = -1;
  rc = topocoll_allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, inter, "ring");
  int expected = 0;
  for (int r = 0; r < size_; ++r) expected += r % 2 != rank_ % 2 ? r : 0;
  check(rc == MPI_SUCCESS && sum == expected && ran() == "mpi",
        "intercommunicator with ring forced: the MPI library serves it (remote group's sum)");
  MPI_Comm_free(&inter);

  // Several communicators alive at once, interleaved, then freed and replaced.
  for (int round = 0; round < 3; ++round) {
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    bool ok = true;
    for (int i = 0; i < 4; ++i) {
      ok = allreduce_ok(dup, "ring", 17 + i, &rc) && ok;
      ok = allreduce_ok(half, "auto", 9 + i, &rc) && ok;
      ok = allreduce_ok(MPI_COMM_WORLD, "recdoub-lat", 5 + i, &rc) && ok;
    }
    MPI_Comm_free(&dup);
    check(ok, "round " + std::to_string(round) +
                  ": interleaved calls on MPI_COMM_WORLD, a duplicate and a split, then the "
                  "duplicate freed");
  }
  MPI_Comm_free(&half);

  // A communicator created right after one was freed may get its handle (Open MPI reuses the
  // memory): its calls must run on its own state, not on the one the thread remembers for the
  // handle (state_for), whose private duplicate was freed with it. Sizes alternate, so a
  // stale state also has the wrong rank count.
  bool reused = false, fresh_ok = true;
  MPI_Comm previous = MPI_COMM_NULL;
  for (int round = 0; round < 6; ++round) {
    MPI_Comm comm = MPI_COMM_NULL;
    if (round % 2 == 0) {
      MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    } else {
      MPI_Comm_split(MPI_COMM_WORLD, rank_ % 2, rank_, &comm);
    }
    reused = reused || comm == previous;
    fresh_ok = allreduce_ok(comm, "ring", 3, &rc) && ran() == "ring" && fresh_ok;
    fresh_ok = allreduce_ok(comm, "ring", 5, &rc) && fresh_ok;
    previous = comm;
    MPI_Comm_free(&comm);
  }
  check(fresh_ok, std::string("communicators freed and created in turn (a handle came back: ") +
                      (reused ? "yes" : "no") + "): every call right, on its own communicator");

  // A Cartesian communicator: its dims reach torus algorithms.
  int dims[2] = {0, 0}, periods[2] = {1, 1};
  MPI_Dims_create(size_, 2, dims);
  MPI_Comm cart = MPI_COMM_NULL;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  for (const auto* a : registry().for_collective(Collective::allreduce)) {
    if (a->requirements.dims != DimsRule::any_torus || a->requirements.commutative_op == false)
      continue;
    ScheduleRequest r;
    r.collective = Collective::allreduce;
    r.ranks = size_;
    r.dims = {dims[0], dims[1]};
    if (Registry::rejection(*a, r) || dims[1] == 1) continue;
    check(allreduce_ok(cart, a->name.c_str(), 50, &rc) && ran() == a->name,
          a->name + " on a " + std::to_string(dims[0]) + "x" + std::to_string(dims[1]) +
              " MPI_Cart communicator");
    const std::string shape = std::to_string(dims[0]) + "x" + std::to_string(dims[1]);
    setenv("TOPOCOLL_DIMS", shape.c_str(), 1);
    check(allreduce_ok(MPI_COMM_WORLD, a->name.c_str(), 50, &rc) && ran() == a->name,
          a->name + " with TOPOCOLL_DIMS=" + shape);
    unsetenv("TOPOCOLL_DIMS");
    break;
  }
  MPI_Comm_free(&cart);
}

// Send and receive datatypes that differ but have the same signature (as MPI allows): two
// MPI_INTs per rank sent as MPI_INT x 2 and received as one vector element {int, gap, int}.
void mixed_types() {
  MPI_Datatype spaced = MPI_DATATYPE_NULL;
  MPI_Type_vector(2, 1, 2, MPI_INT, &spaced);  // ints at 0 and 8, extent 12
  MPI_Type_commit(&spaced);
  const auto p = static_cast<std::size_t>(size_);
  for (const char* algorithm : {"auto", "ring", "bruck", "pairwise", "binomial"}) {
    const AlgorithmInfo* a = registry().find(algorithm);
    int in[2] = {rank_ * 10 + 1, rank_ * 10 + 2};
    std::vector<int> out(3 * p, -7), all(2 * p);
    for (std::size_t d = 0; d < 2 * p; ++d) all[d] = rank_ * 100 + static_cast<int>(d);
    bool ok = true;
    std::string what;
    if (!a || a->supports(Collective::allgather)) {
      int rc = topocoll_allgather(in, 2, MPI_INT, out.data(), 1, spaced, MPI_COMM_WORLD, algorithm);
      ok = rc == MPI_SUCCESS && ran() != "mpi";
      for (std::size_t r = 0; r < p; ++r)
        ok = ok && out[3 * r] == static_cast<int>(r) * 10 + 1 && out[3 * r + 1] == -7 &&
             out[3 * r + 2] == static_cast<int>(r) * 10 + 2;
      what = "allgather";
    } else if (a->supports(Collective::alltoall)) {
      int rc = topocoll_alltoall(all.data(), 2, MPI_INT, out.data(), 1, spaced, MPI_COMM_WORLD,
                                 algorithm);
      ok = rc == MPI_SUCCESS && ran() == algorithm;
      for (std::size_t s = 0; s < p; ++s)
        ok = ok && out[3 * s] == static_cast<int>(s) * 100 + 2 * rank_ && out[3 * s + 1] == -7 &&
             out[3 * s + 2] == static_cast<int>(s) * 100 + 2 * rank_ + 1;
      what = "alltoall";
    } else if (a->supports(Collective::gather)) {
      const int root = size_ - 1;
      int rc = topocoll_gather(in, 2, MPI_INT, rank_ == root ? out.data() : nullptr, 1, spaced,
                               root, MPI_COMM_WORLD, algorithm);
      ok = rc == MPI_SUCCESS && ran() == algorithm;
      for (std::size_t r = 0; r < p && rank_ == root; ++r)
        ok = ok && out[3 * r] == static_cast<int>(r) * 10 + 1 && out[3 * r + 1] == -7 &&
             out[3 * r + 2] == static_cast<int>(r) * 10 + 2;
      what = "gather";
    } else {
      continue;
    }
    check(ok, std::string(algorithm) + " " + what +
                  ": send MPI_INT x 2, receive one vector{int, gap, int} per rank");
  }
  MPI_Type_free(&spaced);
}

std::string reason() { return topocoll_last_reason(); }

int error_class(int rc) {
  int c = rc;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &c);
  return c;
}

std::string class_name(int c) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(c, text, &length);
  return std::string(text, static_cast<std::size_t>(length));
}

// Buffer arguments the standard forbids get the MPI library's own answer: each case calls the
// MPI library's collective (MPI_*: this program links libtopocoll_mpi, which does not replace
// them) and then topocoll's with the same arguments, on a communicator that returns errors,
// and requires the same error class (or, where the library does not check, the same success),
// with the MPI library serving topocoll's call. Only the ranks whose arguments are wrong call
// where the library reports them before communicating (a non-root's MPI_IN_PLACE).
void invalid_buffers() {
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  // Open MPI 4.1 raises some buffer errors on MPI_COMM_WORLD rather than on `comm`.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  std::vector<int> a(64, rank_ + 1), b(64, 0);
  const int root = size_ - 1;
  const bool at_root = rank_ == root;
  std::vector<int> counts(static_cast<std::size_t>(size_), 2);
  struct Case {
    std::string what;
    bool participates;  // whether this rank calls
    std::function<int()> library, topocoll;
    // MPI_IN_PLACE that a library may read as an address (MPICH 4.0.2 crashes on these):
    // topocoll raises the error itself, with Open MPI's class under Open MPI (which checks
    // them) and MPI_ERR_BUFFER elsewhere; the library is only asked under Open MPI.
    bool raised_by_topocoll = false;
  };
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int version_length = 0;
  MPI_Get_library_version(version, &version_length);
  const bool open_mpi = std::string(version).find("Open MPI") != std::string::npos;
  void* in_place = MPI_IN_PLACE;
  const std::vector<Case> cases = {
      {"allreduce with sendbuf == recvbuf", true,
       [&] { return MPI_Allreduce(a.data(), a.data(), 4, MPI_INT, MPI_SUM, comm); },
       [&] { return topocoll_allreduce(a.data(), a.data(), 4, MPI_INT, MPI_SUM, comm, "ring"); }},
      {"allreduce with recvbuf = MPI_IN_PLACE", true,
       [&] { return MPI_Allreduce(a.data(), in_place, 4, MPI_INT, MPI_SUM, comm); },
       [&] { return topocoll_allreduce(a.data(), in_place, 4, MPI_INT, MPI_SUM, comm, "ring"); }},
      {"reduce with MPI_IN_PLACE on the non-root ranks", !at_root,
       [&] { return MPI_Reduce(in_place, b.data(), 4, MPI_INT, MPI_SUM, root, comm); },
       [&] { return topocoll_reduce(in_place, b.data(), 4, MPI_INT, MPI_SUM, root, comm, "auto"); },
       true},
      {"reduce with recvbuf = MPI_IN_PLACE at the root", at_root,
       [&] { return MPI_Reduce(a.data(), in_place, 4, MPI_INT, MPI_SUM, root, comm); },
       [&] {
         return topocoll_reduce(a.data(), in_place, 4, MPI_INT, MPI_SUM, root, comm, "auto");
       }},
      {"reduce with sendbuf == recvbuf at the root", at_root,
       [&] { return MPI_Reduce(a.data(), a.data(), 4, MPI_INT, MPI_SUM, root, comm); },
       [&] {
         return topocoll_reduce(a.data(), a.data(), 4, MPI_INT, MPI_SUM, root, comm, "auto");
       }},
      {"gather with MPI_IN_PLACE on the non-root ranks", !at_root,
       [&] { return MPI_Gather(in_place, 2, MPI_INT, b.data(), 2, MPI_INT, root, comm); },
       [&] {
         return topocoll_gather(in_place, 2, MPI_INT, b.data(), 2, MPI_INT, root, comm, "auto");
       },
       true},
      {"scatter with recvbuf = MPI_IN_PLACE on the non-root ranks", !at_root,
       [&] { return MPI_Scatter(a.data(), 2, MPI_INT, in_place, 2, MPI_INT, root, comm); },
       [&] {
         return topocoll_scatter(a.data(), 2, MPI_INT, in_place, 2, MPI_INT, root, comm, "auto");
       },
       true},
      {"bcast of MPI_IN_PLACE", true, [&] { return MPI_Bcast(in_place, 4, MPI_INT, 0, comm); },
       [&] { return topocoll_bcast(in_place, 4, MPI_INT, 0, comm, "auto"); }, true},
      {"bcast with root = comm_size", true,
       [&] { return MPI_Bcast(a.data(), 4, MPI_INT, size_, comm); },
       [&] { return topocoll_bcast(a.data(), 4, MPI_INT, size_, comm, "auto"); }},
      {"allgather with recvbuf = MPI_IN_PLACE", true,
       [&] { return MPI_Allgather(a.data(), 2, MPI_INT, in_place, 2, MPI_INT, comm); },
       [&] {
         return topocoll_allgather(a.data(), 2, MPI_INT, in_place, 2, MPI_INT, comm, "ring");
       }},
      {"alltoall with recvbuf = MPI_IN_PLACE", true,
       [&] { return MPI_Alltoall(a.data(), 2, MPI_INT, in_place, 2, MPI_INT, comm); },
       [&] { return topocoll_alltoall(a.data(), 2, MPI_INT, in_place, 2, MPI_INT, comm, "auto"); }},
      {"reduce_scatter_block with recvbuf = MPI_IN_PLACE", true,
       [&] { return MPI_Reduce_scatter_block(a.data(), in_place, 2, MPI_INT, MPI_SUM, comm); },
       [&] {
         return topocoll_reduce_scatter_block(a.data(), in_place, 2, MPI_INT, MPI_SUM, comm,
                                              "ring");
       }},
      {"reduce_scatter with sendbuf == recvbuf", true,
       [&] {
         return MPI_Reduce_scatter(a.data(), a.data(), counts.data(), MPI_INT, MPI_SUM, comm);
       },
       [&] {
         return topocoll_reduce_scatter(a.data(), a.data(), counts.data(), MPI_INT, MPI_SUM, comm,
                                        "ring");
       }},
      {"alltoall with sendbuf == recvbuf", true,
       [&] { return MPI_Alltoall(a.data(), 2, MPI_INT, a.data(), 2, MPI_INT, comm); },
       [&] { return topocoll_alltoall(a.data(), 2, MPI_INT, a.data(), 2, MPI_INT, comm, "auto"); }},
  };
  for (const Case& c : cases) {
    bool ok = true;
    std::string seen = " (rank 0 does not call)";
    if (c.participates) {
      const bool ask_library = !c.raised_by_topocoll || open_mpi;
      const int library = ask_library ? error_class(c.library()) : MPI_ERR_BUFFER;
      const int ours = error_class(c.topocoll());
      ok =
          ours == library && ran() == (c.raised_by_topocoll ? "error" : "mpi") && !reason().empty();
      seen = std::string(": ") + (ask_library ? "the MPI library's answer " : "expected ") +
             class_name(library) + ", topocoll's " + class_name(ours) + ", served by " + ran() +
             " (" + reason() + ")";
    }
    check(ok, c.what + seen);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_free(&comm);
}

// Fallback reasons name the cause: the operator, the variable a user sets.
void fallback_reasons() {
  setenv("TOPOCOLL_FALLBACK", "warn", 1);
  MPI_Op first = MPI_OP_NULL;  // inout = in: not commutative
  MPI_Op_create(
      [](void* in, void* inout, int* len, MPI_Datatype*) {
        for (int i = 0; i < *len; ++i) static_cast<int*>(inout)[i] = static_cast<int*>(in)[i];
      },
      0, &first);
  // 64 KiB and more: the built-in table's allreduce algorithms (swing-bw, ring) all reorder.
  std::vector<int> in(1 << 15, rank_), out(in.size(), -1);
  int rc = topocoll_allreduce(in.data(), out.data(), static_cast<MPI_Count>(in.size()), MPI_INT,
                              first, MPI_COMM_WORLD, "auto");
  check(rc == MPI_SUCCESS && out.back() == 0 && ran() == "mpi" &&
            reason().find("needs a commutative operator") != std::string::npos &&
            reason().find("comm_size") == std::string::npos,
        "auto, 128 KiB allreduce, non-commutative operator: the reason names the operator (" +
            reason() + ")");
  int value = rank_, result = -1;
  rc = topocoll_reduce_scatter_block(in.data(), &result, 1, MPI_INT, first, MPI_COMM_WORLD, "auto");
  check(rc == MPI_SUCCESS && result == 0 && ran() == "mpi" &&
            reason().find("needs a commutative operator") != std::string::npos,
        "auto, reduce_scatter_block, non-commutative operator: the reason names the operator");
  MPI_Op_free(&first);
  (void)value;
  // An algorithm for 2D tori on a communicator without a shape: the variable to set.
  for (const auto& a : registry().all()) {
    if (a.requirements.dims != DimsRule::two_dimensional || !a.supports(Collective::allreduce))
      continue;
    int rc2 = 0;
    allreduce_ok(MPI_COMM_WORLD, a.name.c_str(), 8, &rc2);
    check(ran() == "mpi" && reason().find("TOPOCOLL_DIMS") != std::string::npos &&
              reason().find("--") == std::string::npos,
          a.name +
              " without TOPOCOLL_DIMS: the reason names TOPOCOLL_DIMS, no command-line flag (" +
              reason() + ")");
    break;
  }
}

// TOPOCOLL_CHECK=1: ranks that disagree all get the same error instead of a hang or a wrong
// result, with the class the disagreement calls for; agreeing calls run as usual.
void agreement_check() {
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  setenv("TOPOCOLL_CHECK", "1", 1);
  int rc = 0;
  check(allreduce_ok(comm, "ring", 10, &rc) && ran() == "ring",
        "TOPOCOLL_CHECK=1, ranks agree: ring serves, right result");
  std::vector<int> in(16, 1), out(16, 0);
  // Rank 0 with count 0 posts no message at all: without the check the others would wait.
  rc =
      topocoll_allreduce(in.data(), out.data(), rank_ == 0 ? 0 : 5, MPI_INT, MPI_SUM, comm, "ring");
  check(error_class(rc) == MPI_ERR_TRUNCATE && ran() == "error",
        "TOPOCOLL_CHECK=1, counts 0 and 5: MPI_ERR_TRUNCATE on every rank");
  rc =
      topocoll_allreduce(in.data(), out.data(), rank_ == 1 ? 4 : 5, MPI_INT, MPI_SUM, comm, "auto");
  check(error_class(rc) == MPI_ERR_TRUNCATE, "TOPOCOLL_CHECK=1, counts 4 and 5: MPI_ERR_TRUNCATE");
  rc = topocoll_bcast(in.data(), 4, MPI_INT, rank_ % 2, comm, "auto");
  check(error_class(rc) == MPI_ERR_ROOT, "TOPOCOLL_CHECK=1, roots 0 and 1: MPI_ERR_ROOT");
  rc = topocoll_allreduce(in.data(), out.data(), 4, MPI_INT, MPI_SUM, comm,
                          rank_ == 0 ? "recdoub-lat" : "ring");
  check(error_class(rc) == MPI_ERR_ARG, "TOPOCOLL_CHECK=1, algorithms differ: MPI_ERR_ARG");
  std::vector<int> counts(static_cast<std::size_t>(size_), 1);
  if (rank_ == size_ - 1) counts[0] = 2;
  rc =
      topocoll_reduce_scatter(in.data(), out.data(), counts.data(), MPI_INT, MPI_SUM, comm, "ring");
  check(error_class(rc) == MPI_ERR_TRUNCATE,
        "TOPOCOLL_CHECK=1, recvcounts differ on one rank: MPI_ERR_TRUNCATE");
  // Messages cut at different sizes: without the check, truncation or a hang.
  std::vector<int> large(4096, 1), large_out(4096, 0);
  if (rank_ == 0) setenv("TOPOCOLL_SEGMENT_BYTES", "4KiB", 1);
  rc = topocoll_allreduce(large.data(), large_out.data(), 4096, MPI_INT, MPI_SUM, comm, "ring");
  check(error_class(rc) == MPI_ERR_ARG && ran() == "error",
        "TOPOCOLL_CHECK=1, segments of 4 KiB and 1 MiB: MPI_ERR_ARG");
  rc = topocoll_bcast(large.data(), 4096, MPI_INT, 0, comm, "binomial-halving");
  check(rc == MPI_SUCCESS && ran() == "binomial-halving",
        "TOPOCOLL_CHECK=1, segments differ on a bcast, which does not cut them: it runs");
  unsetenv("TOPOCOLL_SEGMENT_BYTES");
  if (rank_ == 0) setenv("TOPOCOLL_MAX_MESSAGE_BYTES", "4KiB", 1);
  rc = topocoll_bcast(large.data(), 4096, MPI_INT, 0, comm, "binomial-halving");
  check(error_class(rc) == MPI_ERR_ARG && ran() == "error",
        "TOPOCOLL_CHECK=1, largest messages 4 KiB and 1 GiB on a bcast: MPI_ERR_ARG");
  unsetenv("TOPOCOLL_MAX_MESSAGE_BYTES");
  check(allreduce_ok(comm, "auto", 10, &rc), "TOPOCOLL_CHECK=1: the next agreeing call is right");
  unsetenv("TOPOCOLL_CHECK");
  MPI_Comm_free(&comm);
}

// The JSON schedule of a registry allreduce for this communicator.
std::string allreduce_schedule_json(const std::string& algorithm) {
  ScheduleRequest request;
  request.collective = Collective::allreduce;
  request.ranks = size_;
  request.dims = {size_};
  return schedule_to_json(*registry().build(algorithm, request));
}

// TOPOCOLL_CHECK=1 with file: schedules: one path read with different contents (as node-local
// files of one name can be) is a disagreement, though the algorithm's name is the same.
void file_agreement_check() {
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int pid = getpid();
  MPI_Bcast(&pid, 1, MPI_INT, 0, comm);
  const std::string path = "/tmp/topocoll-misuse-" + std::to_string(pid) + "-shared.json";
  if (rank_ == 0) std::ofstream(path) << allreduce_schedule_json("ring");
  MPI_Barrier(comm);
  setenv("TOPOCOLL_CHECK", "1", 1);
  setenv("TOPOCOLL_ALLREDUCE_ALGORITHM", ("file:" + path).c_str(), 1);
  int rc = 0;
  check(allreduce_ok(comm, nullptr, 10, &rc) && ran() == "file:" + path,
        "TOPOCOLL_CHECK=1, one file: schedule on every rank: it serves, right result");
  MPI_Barrier(comm);
  if (rank_ == 0) {  // rank 0 alone reads the file again, after it changed
    std::ofstream(path) << allreduce_schedule_json("bruck-lat");
    setenv("TOPOCOLL_MAX_VERIFY_BYTES", "128MiB", 1);
    topocoll_clear_cache();
  }
  std::vector<int> in(10, 1), out(10, 0);
  rc = topocoll_allreduce(in.data(), out.data(), 10, MPI_INT, MPI_SUM, comm, nullptr);
  check(error_class(rc) == MPI_ERR_ARG && ran() == "error",
        "TOPOCOLL_CHECK=1, one file: path read with two contents: MPI_ERR_ARG on every rank");
  unsetenv("TOPOCOLL_MAX_VERIFY_BYTES");
  unsetenv("TOPOCOLL_ALLREDUCE_ALGORITHM");
  unsetenv("TOPOCOLL_CHECK");
  MPI_Barrier(comm);
  if (rank_ == 0) std::remove(path.c_str());
  MPI_Comm_free(&comm);
}

// Counts that differ without TOPOCOLL_CHECK, where a message is longer than the receive the
// schedule posted: the default error handler aborts with MPI_ERR_TRUNCATE after topocoll's
// line (mismatch_abort.sh expects both). Never returns normally.
void mismatch_abort() {
  std::vector<int> in(16, 1), out(16, 0);
  topocoll_allreduce(in.data(), out.data(), rank_ == 0 ? 4 : 8, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                     "ring");
}

// One bcast of 2^31 + 64 bytes (count above INT_MAX): pieces of at most 1 GiB.
void large_message() {
  const MPI_Count count = (MPI_Count{1} << 31) + 64;
  std::vector<unsigned char> buffer(static_cast<std::size_t>(count));
  for (MPI_Count i = 0; i < count; i += 4096)
    buffer[static_cast<std::size_t>(i)] =
        rank_ == 0 ? static_cast<unsigned char>(i / 4096 % 251) : 0;
  if (rank_ == 0) buffer.back() = 99;
  const int rc =
      topocoll_bcast(buffer.data(), count, MPI_BYTE, 0, MPI_COMM_WORLD, "binomial-doubling");
  bool ok = rc == MPI_SUCCESS && buffer.back() == 99 && ran() == "binomial-doubling";
  for (MPI_Count i = 0; i < count && ok; i += 4096)
    ok = buffer[static_cast<std::size_t>(i)] == static_cast<unsigned char>(i / 4096 % 251);
  check(ok, "bcast of 2^31 + 64 bytes (count > INT_MAX) with binomial-doubling");
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  if (argc > 1 && std::string(argv[1]) == "--large") {
    large_message();
  } else if (argc > 1 && std::string(argv[1]) == "--mismatch-abort") {
    mismatch_abort();
  } else {
    // The checks of the rules files and the built-in table see `auto`'s own choice, without the
    // comparison with the library (machine_file_auto and default_machine_auto check that).
    setenv("TOPOCOLL_MACHINE", "none", 1);
    forced_names();
    rules_files();
    machine_file_auto();
    default_machine_auto();
    communicators();
    mixed_types();
    default_table();
    rule_order();
    cartesian_shapes();
    invalid_buffers();
    fallback_reasons();
    agreement_check();
    file_agreement_check();
  }
  if (rank_ == 0) std::printf("%d failed checks on %d ranks\n", failures, size_);
  for (const std::string& path : written_files) std::remove(path.c_str());
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
