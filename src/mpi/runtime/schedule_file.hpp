#pragma once
// Schedules read from files: TOPOCOLL_<COLL>_ALGORITHM=file:PATH runs a topocoll JSON schedule
// or an MSCCL XML algorithm (docs/interchange.md) instead of a registry algorithm. A file is
// read once per process with the core's reader policy (core/bounded_file.hpp: regular files
// only, at most 1 GiB) and verified (fingerprint mode) unless the verification's estimate
// exceeds TOPOCOLL_MAX_VERIFY_BYTES or a minute: a wrong or too large file falls back to the
// MPI library with the reason, it never runs; it serves only calls of its
// collective, rank count and root, with a commutative operator (an imported file may combine
// partial results in any order).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/registry.hpp"
#include "core/schedule.hpp"

namespace topocoll::mpi {

inline constexpr std::string_view kFilePrefix = "file:";

[[nodiscard]] inline bool names_file(const std::string& algorithm) {
  return algorithm.starts_with(kFilePrefix);
}

// The schedule of `algorithm` ("file:PATH") as file_rejection last loaded it, or nullptr when
// the file cannot be used (then file_rejection says why).
[[nodiscard]] std::shared_ptr<const Schedule> file_schedule(const std::string& algorithm);

// A hash of the bytes file_schedule's schedule was read from (0 when there is none): ranks on
// different nodes may read different files under one path.
[[nodiscard]] std::uint64_t file_content_hash(const std::string& algorithm);

// nullopt when the file's schedule serves `request`, else the reason in one line.
// `max_verify_bytes`: the verification's memory bound (Settings::max_verify_bytes).
[[nodiscard]] std::optional<std::string> file_rejection(const std::string& algorithm,
                                                        const ScheduleRequest& request,
                                                        std::uint64_t max_verify_bytes);

}  // namespace topocoll::mpi
