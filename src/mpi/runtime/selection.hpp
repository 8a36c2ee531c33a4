#pragma once
// Which algorithm serves a call: the forced name, `auto` (rules file, then the built-in
// table) or `mpi`, checked against the registry's requirements (never by name).
#include <cstdint>
#include <string>

#include "config.hpp"
#include "core/registry.hpp"

namespace topocoll::mpi {

struct Choice {
  std::string algorithm;   // registry name; empty: the MPI library's collective
  std::string reason;      // why the MPI library serves it (empty when topocoll does)
  std::string prediction;  // `auto` served: the machine and both predicted times (verbose)
  bool error = false;      // TOPOCOLL_FALLBACK=error: return MPI_ERR_ARG, reason printed
  ScheduleRequest request;
  std::uint64_t max_message_bytes = std::uint64_t{1} << 30;
  std::uint64_t segment_bytes = kDefaultSegmentBytes;
  PackMode pack = PackMode::copy;
};

// `request` carries the collective, ranks, root, commutativity and the communicator's ranks
// per node; dims are filled here (TOPOCOLL_DIMS or the Cartesian dims when their product is
// the communicator size). `blocker` is a reason no algorithm can serve the call
// (intercommunicator, ...), or empty; `node_rejection` a reason no composition (hier:,
// leader:) can (the nodes are not in the block layout), or empty.
[[nodiscard]] Choice choose_algorithm(const Settings& settings, MpiCollective collective,
                                      ScheduleRequest request, const std::vector<int>& cart_dims,
                                      std::uint64_t bytes, const std::string& blocker,
                                      const std::string& node_rejection = {});

// choose_algorithm, remembered per collective on this thread for the same inputs (loops
// repeat their calls): choosing walks the registry's requirements and builds strings, a
// large part of a small call's own cost (docs/mpi-benchmark.md, "Small messages"). The
// Choice carries settings.max_message_bytes, segment_bytes and pack; the reference stays valid
// until the thread's next call for the same collective.
[[nodiscard]] const Choice& remembered_choice(const Settings& settings, MpiCollective collective,
                                              const ScheduleRequest& request,
                                              const std::vector<int>& cart, std::uint64_t bytes,
                                              const std::string& blocker,
                                              const std::string& node_rejection = {});

// The names an algorithm setting accepts, for "accepted:" lines: auto, mpi, file:PATH, the
// registry's algorithms and its composition forms (hier:INNER, leader:INNER).
[[nodiscard]] std::string accepted_algorithms();

// A registry reason in the runtime's words: the registry writes its rules for the command
// line (--dims, --ports); here the shape comes from TOPOCOLL_DIMS or an MPI_Cart
// communicator and the ports are the algorithm's default.
[[nodiscard]] std::string in_runtime_terms(std::string reason);

}  // namespace topocoll::mpi
