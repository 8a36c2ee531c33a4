// Selection, fallback and communicator checks of the topocoll MPI runtime (ctest runs it
// under mpiexec): forced names the registry rejects, TOPOCOLL_FALLBACK policies, rules files
// (valid, malformed, naming an algorithm that cannot serve), TOPOCOLL_<COLL>_ALGORITHM,
// intercommunicators, several communicators alive at once, Cartesian communicators, and
// `--large`: one message above 2^31 bytes (count above INT_MAX). Every check states what it
// verified; any failure names the rank and the check.
#include <mpi.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "core/registry.hpp"
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
}

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = "/tmp/topocoll-misuse-" + std::to_string(getpid()) + "-" + name;
  std::ofstream(path) << text;
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
  } else {
    forced_names();
    rules_files();
    communicators();
    mixed_types();
  }
  if (rank_ == 0) std::printf("%d failed checks on %d ranks\n", failures, size_);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
