#pragma once
// The runtime's settings, from the environment (docs/mpi.md). Checked on every call (one pass
// over the environment's TOPOCOLL_ variables) and parsed again when they changed, so a
// program may change them between calls.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/collective.hpp"
#include "mpi_collective.hpp"
#include "pack_mode.hpp"

namespace topocoll::mpi {

// The default segment size (docs/mpi-benchmark.md, "Pipelining": the measurement).
inline constexpr std::uint64_t kDefaultSegmentBytes = std::uint64_t{1} << 20;

// The default bound on verifying a file: schedule, per rank: the state of a few thousand ranks
// x a few thousand blocks, well below a node's memory shared by its ranks.
inline constexpr std::uint64_t kDefaultMaxVerifyBytes = std::uint64_t{256} << 20;

enum class FallbackPolicy { error, warn, silent };

// The largest message a call sends: TOPOCOLL_MAX_MESSAGE_BYTES, and TOPOCOLL_SEGMENT_BYTES
// (when not 0) for the collectives that reduce. Both sides of a message cut it alike only
// when every rank has the same limit.
[[nodiscard]] inline std::uint64_t message_piece_bytes(std::uint64_t max_message_bytes,
                                                       std::uint64_t segment_bytes, bool reduces) {
  if (reduces && segment_bytes > 0 && segment_bytes < max_message_bytes) return segment_bytes;
  return max_message_bytes;
}

struct Settings {
  std::string algorithm;  // name, "auto" or "mpi"
  FallbackPolicy fallback = FallbackPolicy::warn;
  bool verbose = false;
  bool check = false;      // TOPOCOLL_CHECK: ranks check that they agree before every call
  std::vector<int> dims;   // TOPOCOLL_DIMS, empty when unset
  std::string dims_error;  // a malformed TOPOCOLL_DIMS
  std::string rules_path;  // TOPOCOLL_RULES, empty when unset
  // TOPOCOLL_MACHINE: the machine on which `auto` predicts its candidate and the MPI library's
  // own choice, serving a call only where its candidate is faster (docs/mpi.md): a file, or
  // unset for the default machine (default_machine.hpp); `none` turns the comparison off.
  bool compare_with_library = true;
  std::string machine_path;  // the file; empty: the default machine
  // TOPOCOLL_MAX_MESSAGE_BYTES: larger messages are split in pieces (default 1 GiB, which
  // keeps every MPI call below INT_MAX elements and 2^31 bytes).
  std::uint64_t max_message_bytes = std::uint64_t{1} << 30;
  // TOPOCOLL_SEGMENT_BYTES: the messages of reducing collectives are cut in segments of this
  // size, and a received segment is reduced while the next ones are in flight (0: off).
  std::uint64_t segment_bytes = kDefaultSegmentBytes;
  PackMode pack = PackMode::copy;  // TOPOCOLL_PACK (pack_mode.hpp)
  // TOPOCOLL_MAX_VERIFY_BYTES: a file: schedule whose verification needs more memory per
  // rank (the verifier's up-front estimate) is refused and the MPI library serves its calls.
  std::uint64_t max_verify_bytes = kDefaultMaxVerifyBytes;
  // TOPOCOLL_RANKS_PER_NODE: K > 0 emulates nodes of K ranks (rank r of MPI_COMM_WORLD on
  // node r / K); 0: the nodes of MPI_COMM_TYPE_SHARED.
  int ranks_per_node = 0;
  // Whether a call may run a composition (hier:, leader:): the forced algorithm is one, or
  // `auto` has a rules file that names one. Only then are the nodes looked up (collective
  // over the communicator, once per communicator), so every rank decides it alike.
  bool needs_nodes = false;
  std::uint64_t generation = 0;  // changes whenever the settings are parsed again
};

// `algorithm`: the caller's choice (C API argument), or nullptr for
// TOPOCOLL_<COLL>_ALGORITHM (default "auto").
// The reference stays valid until the thread's next call for the same collective.
[[nodiscard]] const Settings& read_settings(MpiCollective c, const char* algorithm);

// "8x8" -> {8, 8}; nullopt when malformed. (Byte counts: byte_size.hpp.)
[[nodiscard]] std::optional<std::vector<int>> parse_dims(const std::string& text);

// Writes "topocoll: <message>" to stderr once per distinct message for the process.
void warn_once(const std::string& message);

}  // namespace topocoll::mpi
