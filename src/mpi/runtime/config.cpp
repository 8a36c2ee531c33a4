#include "config.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <vector>

#include "byte_size.hpp"
#include "core/fnv1a.hpp"
#include "core/registry.hpp"
#include "rules.hpp"

extern char** environ;

namespace topocoll::mpi {
namespace {

const char* env_suffix(MpiCollective c) {
  switch (c) {
    case MpiCollective::allreduce: return "ALLREDUCE";
    case MpiCollective::reduce_scatter_block: return "REDUCE_SCATTER_BLOCK";
    case MpiCollective::reduce_scatter: return "REDUCE_SCATTER";
    case MpiCollective::allgather: return "ALLGATHER";
    case MpiCollective::bcast: return "BCAST";
    case MpiCollective::reduce: return "REDUCE";
    case MpiCollective::gather: return "GATHER";
    case MpiCollective::scatter: return "SCATTER";
    case MpiCollective::alltoall: return "ALLTOALL";
  }
  return "";
}

std::string trimmed(const std::string& text) {
  const std::size_t first = text.find_first_not_of(" \t\n\r");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\n\r") - first + 1);
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// Every value is read without surrounding white space.
std::string env(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  return value ? trimmed(value) : "";
}

// TOPOCOLL_VERBOSE and other switches: 1/0, on/off, yes/no, true/false (any case); unset is
// off; anything else is reported once and read as off.
bool switch_value(const std::string& name) {
  const std::string value = lower(env(name));
  if (value == "1" || value == "on" || value == "yes" || value == "true") return true;
  if (!value.empty() && value != "0" && value != "off" && value != "no" && value != "false")
    warn_once(name + "='" + value +
              "' is not valid; accepted: 1, 0, on, off, yes, no, true, false");
  return false;
}

}  // namespace

std::optional<std::vector<int>> parse_dims(const std::string& text) {
  // As `topocoll --dims` reads them (topocoll.shapes.parse_dims): sizes joined by x or X.
  std::vector<int> dims;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find_first_of("xX", start), text.size());
    const std::string part = trimmed(text.substr(start, end - start));
    if (part.empty() || part.size() > 9 ||
        part.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    const int value = std::stoi(part);
    if (value < 1) return std::nullopt;
    dims.push_back(value);
    start = end + 1;
  }
  return dims;
}

namespace {

bool is_composition(const std::string& name) {
  const AlgorithmInfo* algo = registry().find(name);
  return algo && algo->composition;
}

bool may_run_composition(const Settings& s) {
  if (is_composition(s.algorithm)) return true;
  if (s.algorithm != "auto" || s.rules_path.empty()) return false;
  const auto rules = load_rules(s.rules_path);
  return std::any_of(rules->rules.begin(), rules->rules.end(),
                     [](const Rule& rule) { return is_composition(rule.algorithm); });
}

// Reported once per job (by rank 0 of MPI_COMM_WORLD), so that emulated nodes are never
// mistaken for the machine's.
void report_emulation(int k) {
  int initialized = 0, finalized = 0, rank = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  if (initialized && !finalized) PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return;
  const std::string ks = std::to_string(k);
  warn_once("TOPOCOLL_RANKS_PER_NODE=" + ks + ": emulating nodes of " + ks +
            (k == 1 ? " rank" : " ranks") + " (rank r of MPI_COMM_WORLD on node r / " + ks +
            ") for the hier: and leader: compositions, instead of MPI_COMM_TYPE_SHARED");
}

int parse_ranks_per_node() {
  const std::string value = env("TOPOCOLL_RANKS_PER_NODE");
  if (value.empty()) return 0;
  if (value.size() <= 9 && value.find_first_not_of("0123456789") == std::string::npos) {
    const int k = std::stoi(value);
    if (k >= 1) {
      report_emulation(k);
      return k;
    }
  }
  warn_once("TOPOCOLL_RANKS_PER_NODE='" + value +
            "' is not valid; accepted: a number of ranks per node, at least 1 (using the nodes "
            "of MPI_COMM_TYPE_SHARED)");
  return 0;
}

Settings parse_settings(MpiCollective c, const char* algorithm) {
  Settings s;
  s.algorithm =
      algorithm ? algorithm : env(std::string("TOPOCOLL_") + env_suffix(c) + "_ALGORITHM");
  if (s.algorithm.empty()) s.algorithm = "auto";
  const std::string fallback = lower(env("TOPOCOLL_FALLBACK"));
  if (fallback == "error") {
    s.fallback = FallbackPolicy::error;
  } else if (fallback == "silent") {
    s.fallback = FallbackPolicy::silent;
  } else if (!fallback.empty() && fallback != "warn") {
    warn_once("TOPOCOLL_FALLBACK='" + fallback +
              "' is not valid; accepted: error, warn, silent (using warn)");
  }
  s.verbose = switch_value("TOPOCOLL_VERBOSE");
  s.check = switch_value("TOPOCOLL_CHECK");
  const std::string dims = env("TOPOCOLL_DIMS");
  if (!dims.empty()) {
    if (auto parsed = parse_dims(dims)) {
      s.dims = *parsed;
    } else {
      s.dims_error =
          "TOPOCOLL_DIMS='" + dims + "' is not valid; accepted: sizes joined by x, e.g. 8x8";
    }
  }
  s.rules_path = env("TOPOCOLL_RULES");
  s.machine_path = env("TOPOCOLL_MACHINE");
  if (lower(s.machine_path) == "none") {
    s.compare_with_library = false;
    s.machine_path.clear();
  }
  s.pack = pack_mode();
  const std::string limit = env("TOPOCOLL_MAX_MESSAGE_BYTES");
  if (!limit.empty()) {
    const auto bytes = parse_byte_size(limit);
    if (bytes && *bytes > 0) {
      s.max_message_bytes = std::min(*bytes, s.max_message_bytes);
    } else {
      warn_once("TOPOCOLL_MAX_MESSAGE_BYTES='" + limit +
                "' is not valid; accepted: " + kByteSizeSyntax +
                ", at least 1 byte (larger than 1GiB reads as 1GiB); using " + "1GiB");
    }
  }
  const std::string segment = env("TOPOCOLL_SEGMENT_BYTES");
  if (!segment.empty()) {
    if (const auto bytes = parse_byte_size(segment)) {
      s.segment_bytes = *bytes;
    } else {
      warn_once("TOPOCOLL_SEGMENT_BYTES='" + segment + "' is not valid; accepted: " +
                kByteSizeSyntax + ", or 0 for no segments; using 1MiB");
    }
  }
  const std::string verify_limit = env("TOPOCOLL_MAX_VERIFY_BYTES");
  if (!verify_limit.empty()) {
    const auto bytes = parse_byte_size(verify_limit);
    if (bytes && *bytes > 0) {
      s.max_verify_bytes = *bytes;
    } else {
      warn_once("TOPOCOLL_MAX_VERIFY_BYTES='" + verify_limit +
                "' is not valid; accepted: " + kByteSizeSyntax + ", at least 1 byte; using 256MiB");
    }
  }
  s.ranks_per_node = parse_ranks_per_node();
  s.needs_nodes = may_run_composition(s);
  return s;
}

// FNV-1a over the TOPOCOLL_ variables of the environment at `indices` of `environ`.
std::uint64_t hash_of(char** environment, const std::vector<std::size_t>& indices) {
  std::uint64_t h = kFnv1aOffset;
  for (std::size_t i : indices) {
    h = fnv1a(environment[i], h);
    h = fnv1a_add(h, 0x100);  // between variables: no byte has this value
  }
  return h;
}

// A hash of every TOPOCOLL_ variable of the environment, names and values. The thread
// remembers `environ`'s array and pointers and where the TOPOCOLL_ variables were: while the
// array and its pointers are the same (one memcmp, much cheaper than looking at the ~100
// variables mpiexec sets), only those variables are hashed again (a putenv'd string may
// change in place); when any pointer changed (setenv, putenv, unsetenv), the environment is
// scanned again. The memcmp reads no further than the array had entries when it was scanned:
// the C library only grows it (setenv reallocates it, unsetenv moves entries down), and a
// program that installs another array changes `environ`.
std::uint64_t environment_hash() {
  struct Snapshot {
    char** array = nullptr;
    std::vector<char*> pointers;        // environ's entries and its terminating nullptr
    std::vector<std::size_t> topocoll;  // indices of the TOPOCOLL_ variables
  };
  thread_local Snapshot snapshot;
  char** environment = environ;
  const std::size_t known = snapshot.pointers.size();
  if (environment && environment == snapshot.array && known > 0 &&
      std::memcmp(environment, snapshot.pointers.data(), known * sizeof(char*)) == 0)
    return hash_of(environment, snapshot.topocoll);
  snapshot.array = environment;
  snapshot.pointers.clear();
  snapshot.topocoll.clear();
  for (std::size_t i = 0; environment && environment[i]; ++i) {
    snapshot.pointers.push_back(environment[i]);
    if (environment[i][0] == 'T' && std::strncmp(environment[i], "TOPOCOLL_", 9) == 0)
      snapshot.topocoll.push_back(i);
  }
  if (environment) snapshot.pointers.push_back(nullptr);
  return hash_of(environment, snapshot.topocoll);
}

}  // namespace

// Parsed again only when a TOPOCOLL_ variable or the `algorithm` argument changed: parsing
// is most of a small call's own cost (docs/mpi-benchmark.md, "Small messages").
const Settings& read_settings(MpiCollective c, const char* algorithm) {
  struct Cached {
    bool valid = false;
    std::uint64_t environment = 0;
    bool from_environment = false;
    std::string argument;
    Settings settings;
  };
  thread_local std::array<Cached, kMpiCollectives.size()> cache;
  thread_local std::uint64_t generations = 0;
  Cached& slot = cache[static_cast<std::size_t>(c)];
  const std::uint64_t environment = environment_hash();
  const bool same_argument =
      algorithm ? !slot.from_environment && slot.argument == algorithm : slot.from_environment;
  if (!slot.valid || slot.environment != environment || !same_argument) {
    slot.settings = parse_settings(c, algorithm);
    slot.settings.generation = ++generations;
    slot.environment = environment;
    slot.from_environment = algorithm == nullptr;
    slot.argument = algorithm ? algorithm : "";
    slot.valid = true;
  }
  return slot.settings;
}

void warn_once(const std::string& message) {
  static std::mutex mutex;
  static std::set<std::string> seen;
  std::lock_guard lock(mutex);
  if (!seen.insert(message).second) return;
  std::fprintf(stderr, "topocoll: %s\n", message.c_str());
  std::fflush(stderr);
}

}  // namespace topocoll::mpi
