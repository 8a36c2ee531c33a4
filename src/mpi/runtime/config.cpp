#include "config.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>

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

std::string env(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  return value ? value : "";
}

}  // namespace

std::optional<std::uint64_t> parse_bytes(const std::string& text) {
  const std::size_t digits = text.find_first_not_of("0123456789");
  if (digits == 0 || text.empty() || (digits == std::string::npos && text.size() > 15) ||
      digits > 15)
    return std::nullopt;
  const std::uint64_t number = std::stoull(text.substr(0, digits));
  const std::string unit = digits == std::string::npos ? "" : text.substr(digits);
  std::uint64_t scale = 0;
  if (unit.empty() || unit == "B") scale = 1;
  if (unit == "KiB") scale = std::uint64_t{1} << 10;
  if (unit == "MiB") scale = std::uint64_t{1} << 20;
  if (unit == "GiB") scale = std::uint64_t{1} << 30;
  if (scale == 0 || number == 0 || number > (std::uint64_t{1} << 40) / scale) return std::nullopt;
  return number * scale;
}

std::optional<std::vector<int>> parse_dims(const std::string& text) {
  std::vector<int> dims;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('x', start), text.size());
    const std::string part = text.substr(start, end - start);
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

Settings read_settings(MpiCollective c, const char* algorithm) {
  Settings s;
  s.algorithm =
      algorithm ? algorithm : env(std::string("TOPOCOLL_") + env_suffix(c) + "_ALGORITHM");
  if (s.algorithm.empty()) s.algorithm = "auto";
  const std::string fallback = env("TOPOCOLL_FALLBACK");
  if (fallback == "error") {
    s.fallback = FallbackPolicy::error;
  } else if (fallback == "silent") {
    s.fallback = FallbackPolicy::silent;
  } else if (!fallback.empty() && fallback != "warn") {
    warn_once("TOPOCOLL_FALLBACK='" + fallback +
              "' is not valid; accepted: error, warn, silent (using warn)");
  }
  const std::string verbose = env("TOPOCOLL_VERBOSE");
  s.verbose = !verbose.empty() && verbose != "0";
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
  const std::string limit = env("TOPOCOLL_MAX_MESSAGE_BYTES");
  if (!limit.empty()) {
    if (auto bytes = parse_bytes(limit)) {
      s.max_message_bytes = std::min(*bytes, s.max_message_bytes);
    } else {
      warn_once("TOPOCOLL_MAX_MESSAGE_BYTES='" + limit +
                "' is not valid; accepted: a byte count such as 4096, 64KiB, 1GiB (up to 1GiB)");
    }
  }
  return s;
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
