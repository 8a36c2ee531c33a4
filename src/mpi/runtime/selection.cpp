#include "selection.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <numeric>

#include "library_model.hpp"
#include "prediction.hpp"
#include "rules.hpp"
#include "schedule_file.hpp"

namespace topocoll::mpi {
namespace {

long long product(const std::vector<int>& dims) {
  return std::accumulate(dims.begin(), dims.end(), 1LL, std::multiplies<long long>());
}

// The request `algo` would get: the torus shape, unless the algorithm runs on rings only.
ScheduleRequest shaped(const AlgorithmInfo& algo, ScheduleRequest request) {
  if (algo.requirements.dims == DimsRule::ring_only) request.dims = {request.ranks};
  return request;
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

// nullopt when `name` can serve the request, else the reason.
std::optional<std::string> why_not(const Settings& settings, const std::string& name,
                                   const ScheduleRequest& request,
                                   const std::string& node_rejection) {
  if (names_file(name)) return file_rejection(name, request, settings.max_verify_bytes);
  const AlgorithmInfo* algo = registry().find(name);
  if (!algo) return "unknown algorithm '" + name + "'; accepted: " + accepted_algorithms();
  // The compositions assume the block layout of ranks on nodes; flat algorithms ignore nodes.
  if (algo->composition && !node_rejection.empty()) return name + ": " + node_rejection;
  if (auto why = Registry::rejection(*algo, shaped(*algo, request))) return in_runtime_terms(*why);
  return std::nullopt;
}

Choice served_by(const std::string& name, const ScheduleRequest& request) {
  Choice c;
  c.algorithm = name;
  c.request = names_file(name) ? request : shaped(*registry().find(name), request);
  return c;
}

Choice fallback(const Settings& settings, std::string reason, bool forced) {
  Choice c;
  c.reason = std::move(reason);
  if (!forced) return c;
  if (settings.fallback == FallbackPolicy::error) {
    c.error = true;
  } else if (settings.fallback == FallbackPolicy::warn) {
    warn_once(c.reason + "; the MPI library's collective serves these calls");
  }
  return c;
}

std::string microseconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2fus", seconds * 1e6);
  return text;
}

// On the machine of TOPOCOLL_MACHINE, or the default machine when it is unset, `auto`'s
// candidate serves the call only where the analytic model predicts it faster than the
// registry baseline that stands for the MPI library's own choice; anything else (slower, a
// tie, no model of the library's choice, no prediction) goes to the library, so the drop-in
// never makes a call slower than the library would on that machine's figures.
// TOPOCOLL_MACHINE=none skips the comparison.
Choice against_library(const Settings& settings, MpiCollective collective,
                       const ScheduleRequest& request, std::uint64_t bytes, Choice candidate) {
  if (!settings.compare_with_library) return candidate;
  const MpiLibrary library = running_library();
  const std::string who = library_name(library);
  const std::string baseline =
      library_algorithm(library, collective, request.ranks, bytes, request.commutative);
  if (baseline.empty())
    return fallback(settings, "auto: no model of " + who + "'s own algorithm for this call", false);
  // The library's algorithms run on the ranks as a ring, whatever torus topocoll was given.
  ScheduleRequest flat = request;
  flat.dims = {request.ranks};
  flat.ports = 0;
  const AlgorithmInfo* algo = registry().find(baseline);
  if (const auto why = algo ? Registry::rejection(*algo, flat) : std::nullopt; !algo || why)
    return fallback(settings,
                    "auto: " + who + "'s " + baseline + " cannot be predicted here (" +
                        (why ? *why : std::string("not in the registry")) + ")",
                    false);
  const Predicted mine =
      predict(settings.machine_path, candidate.algorithm, candidate.request, bytes);
  const Predicted theirs = predict(settings.machine_path, baseline, flat, bytes);
  const std::string machine = machine_label(settings.machine_path);
  for (const Predicted* p : {&mine, &theirs})
    if (!p->seconds) {
      // A file the user named is reported; the default machine's limits (a communicator
      // larger than its hosts) show in TOPOCOLL_VERBOSE's reason only.
      if (!settings.machine_path.empty()) warn_once("TOPOCOLL_MACHINE: " + p->error);
      return fallback(settings, "auto: no prediction (" + p->error + ")", false);
    }
  const std::string text = "predicted on " + machine + ": " + candidate.algorithm + "=" +
                           microseconds(*mine.seconds) + " " + who + ":" + baseline + "=" +
                           microseconds(*theirs.seconds);
  if (*mine.seconds < *theirs.seconds) {
    candidate.prediction = text;
    return candidate;
  }
  return fallback(settings, "auto: " + text, false);
}

Choice choose_auto(const Settings& settings, MpiCollective collective,
                   const ScheduleRequest& request, std::uint64_t bytes,
                   const std::string& node_rejection) {
  std::string rejected;
  if (!settings.rules_path.empty()) {
    const auto rules = load_rules(settings.rules_path);
    if (!rules->error.empty()) {
      warn_once(rules->error);
      Choice c =
          fallback(settings, "rules file invalid", settings.fallback == FallbackPolicy::error);
      return c;
    }
    for (const Rule& rule : rules->rules) {
      if (!rule.matches(collective, request.ranks, bytes)) continue;
      if (rule.algorithm == "mpi") return fallback(settings, "rules file chose mpi", false);
      const auto why = why_not(settings, rule.algorithm, request, node_rejection);
      if (!why)
        return against_library(settings, collective, request, bytes,
                               served_by(rule.algorithm, request));
      rejected = "rule: " + *why;
      break;
    }
  }
  // Each candidate's own reason, so that the line names the cause (a non-commutative
  // operator, a rank count) rather than only the table.
  std::vector<std::string> reasons;
  for (const std::string& name : default_candidates(collective, request.ranks, bytes)) {
    const auto why = why_not(settings, name, request, node_rejection);
    if (!why)
      return against_library(settings, collective, request, bytes, served_by(name, request));
    if (std::find(reasons.begin(), reasons.end(), *why) == reasons.end()) reasons.push_back(*why);
  }
  std::string reason = "no algorithm of the built-in table serves this call: ";
  for (std::size_t i = 0; i < reasons.size(); ++i) reason += (i ? "; " : "") + reasons[i];
  if (!rejected.empty()) reason += " (and the rules file's " + rejected + ")";
  return fallback(settings, reason, false);
}

bool same_request(const ScheduleRequest& a, const ScheduleRequest& b) {
  return a.collective == b.collective && a.ranks == b.ranks && a.root == b.root &&
         a.commutative == b.commutative && a.ports == b.ports && a.dims == b.dims &&
         a.ranks_per_node == b.ranks_per_node;
}

}  // namespace

std::string accepted_algorithms() {
  std::string out = "auto, mpi, file:PATH, " + registry().names();
  for (const CompositionForm& form : registry().composition_forms())
    out += ", " + form.name + ":INNER";
  return registry().composition_forms().empty() ? out
                                                : out + " (INNER: one of the algorithms before)";
}

std::string in_runtime_terms(std::string reason) {
  replace_all(reason, "--dims omitted", "TOPOCOLL_DIMS unset");
  replace_all(reason, "--dims RxC", "TOPOCOLL_DIMS=RxC or a 2D MPI_Cart communicator");
  replace_all(reason, "--dims", "TOPOCOLL_DIMS");
  replace_all(reason, "--ports 1 on a ring", "a ring (TOPOCOLL_DIMS unset)");
  replace_all(reason, "--ranks", "the communicator size");
  return reason;
}

Choice choose_algorithm(const Settings& settings, MpiCollective collective, ScheduleRequest request,
                        const std::vector<int>& cart_dims, std::uint64_t bytes,
                        const std::string& blocker, const std::string& node_rejection) {
  const bool forced = settings.algorithm != "auto";
  if (settings.algorithm == "mpi") return fallback(settings, "requested", false);
  if (!blocker.empty()) return fallback(settings, blocker, forced);
  if (!settings.dims_error.empty()) return fallback(settings, settings.dims_error, true);
  request.dims.clear();
  if (!settings.dims.empty() && product(settings.dims) == request.ranks) {
    request.dims = settings.dims;
  } else if (!cart_dims.empty() && product(cart_dims) == request.ranks) {
    request.dims = cart_dims;
  }
  // A dimension of size 1 adds nothing to the torus (MPI_Dims_create gives {P, 1} for prime P).
  std::erase(request.dims, 1);
  if (request.dims.empty()) request.dims = {request.ranks};
  if (!forced) return choose_auto(settings, collective, request, bytes, node_rejection);
  if (const auto why = why_not(settings, settings.algorithm, request, node_rejection))
    return fallback(settings, *why, true);
  return served_by(settings.algorithm, request);
}

const Choice& remembered_choice(const Settings& settings, MpiCollective collective,
                                const ScheduleRequest& request, const std::vector<int>& cart,
                                std::uint64_t bytes, const std::string& blocker,
                                const std::string& node_rejection) {
  struct Cached {
    bool valid = false;
    std::uint64_t generation = 0;
    ScheduleRequest request;
    std::vector<int> cart;
    std::uint64_t bytes = 0;
    std::string blocker;
    std::string node_rejection;
    Choice choice;
  };
  thread_local std::array<Cached, kMpiCollectives.size()> cache;
  Cached& slot = cache[static_cast<std::size_t>(collective)];
  if (slot.valid && slot.generation == settings.generation && slot.bytes == bytes &&
      same_request(slot.request, request) && slot.cart == cart && slot.blocker == blocker &&
      slot.node_rejection == node_rejection)
    return slot.choice;
  slot.choice =
      choose_algorithm(settings, collective, request, cart, bytes, blocker, node_rejection);
  slot.choice.max_message_bytes = settings.max_message_bytes;
  slot.choice.segment_bytes = settings.segment_bytes;
  slot.choice.pack = settings.pack;
  slot.generation = settings.generation;
  slot.request = request;
  slot.cart = cart;
  slot.bytes = bytes;
  slot.blocker = blocker;
  slot.node_rejection = node_rejection;
  slot.valid = true;
  return slot.choice;
}

}  // namespace topocoll::mpi
