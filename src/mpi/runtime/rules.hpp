#pragma once
// `auto` selection: the rules file (TOPOCOLL_RULES, written by `topocoll tune`) and the
// built-in default table used without one (docs/mpi.md, "Automatic selection").
//
// {"version": 1, "rules": [{"collective": "allreduce", "min_ranks": 2, "max_ranks": 64,
//   "min_bytes": 0, "max_bytes": 65536, "algorithm": "swing-lat"}, ...]}
// Ranges are inclusive; bytes are the count x type size of one rank's vector (the MPI
// count argument); the first matching rule wins. `algorithm` is a registry name, "mpi", or
// "file:PATH" (a schedule file, read and verified as TOPOCOLL_<COLL>_ALGORITHM=file:PATH is).
// The file itself is read with the core's reader policy (regular files only, at most 1 MiB,
// at most 16 levels of nesting); any problem is one reason line, never an exception.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "config.hpp"

namespace topocoll::mpi {

struct Rule {
  std::string collective;  // MPI name ("reduce_scatter_block") or core name ("reduce-scatter")
  std::int64_t min_ranks = 0;
  std::int64_t max_ranks = INT64_MAX;
  std::uint64_t min_bytes = 0;
  std::uint64_t max_bytes = UINT64_MAX;
  std::string algorithm;

  [[nodiscard]] bool matches(MpiCollective c, int ranks, std::uint64_t bytes) const;
};

struct RuleSet {
  std::vector<Rule> rules;
  std::string error;  // non-empty when the file could not be used
};

// Parses a rules document; `where` names it in error messages.
[[nodiscard]] RuleSet parse_rules(const std::string& text, const std::string& where);
// Loads (once per path) and caches the rules file.
[[nodiscard]] std::shared_ptr<const RuleSet> load_rules(const std::string& path);

// The algorithms `auto` tries without a rules file (or when no rule matches, or the rule's
// algorithm cannot serve the call), best first.
[[nodiscard]] std::vector<std::string> default_candidates(MpiCollective c, int ranks,
                                                          std::uint64_t bytes);
// Every algorithm name of the built-in table (tests check they are all in the registry).
[[nodiscard]] std::vector<std::string> default_table_names();

}  // namespace topocoll::mpi
