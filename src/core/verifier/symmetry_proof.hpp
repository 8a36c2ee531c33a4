#pragma once
// Translation symmetry of a schedule, proven rank by rank, so that fingerprint verification
// can check one block per orbit instead of every block (docs/verifier.md, "Translation
// symmetry").
//
// Why one block per orbit is enough: let g be a translation of the ranks (a ring's or torus's
// shift, a hypercube's XOR) and t_g its move of blocks (block o * S + i to g(o) * S + i). If every
// rank g(r) runs exactly rank r's lanes and steps with every peer p replaced by g(p) and every
// block set X by t_g(X), then the execution commutes with g: the slot t_g(b) of rank g(r)
// ends holding the contributions of slot b of rank r, each (q, c) replaced by (g(q), t_g(c)).
// The post-conditions of allreduce, reduce-scatter and allgather commute with g too (what
// slot b of rank r must hold, moved by g, is what slot t_g(b) of rank g(r) must hold), so slot b
// is right at every rank exactly when slot t_g(b) is. Blocks never mix (the schedule keeps
// positions), so running the schedule on the blocks of one rank per orbit, at every rank,
// proves the rest.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/schedule.hpp"
#include "core/verifier/translation_group.hpp"
#include "core/verifier/verifier.hpp"

namespace topocoll::detail {

struct VerifySymmetry {
  std::optional<TranslationGroup> group;  // nullopt: every block is checked
  int per_rank = 1;                       // S: blocks per rank
  std::vector<BlockRange> checked;        // slots holding a block of every orbit
  std::uint64_t proof_rank_steps = 0;     // lane steps compared to build the proof
  bool proven = false;                    // for every rank, or on a sample of ranks
  // "translation symmetry: ..." or "no translation symmetry (why): full verification".
  std::string description;
};

// How an element moves an operation: TranslationGroup::act, or in tests a deliberately wrong
// one, to show that the proof rejects what it should.
using Translate = std::function<Operation(const TranslationGroup&, int g, const Operation&, int)>;

// The largest translation group found for the schedule (on the shape of `info.dims`, a ring
// when it has none, and the hypercube when P is a power of two), proven for every rank when
// `prove` (otherwise found on a sample of ranks only: what the up-front estimate uses, since
// the proof walks the whole schedule). Cached per schedule object.
[[nodiscard]] VerifySymmetry find_verify_symmetry(const Schedule& schedule, int threads,
                                                  bool prove = true);
// The same without the cache and with a given translation of operations (tests).
[[nodiscard]] VerifySymmetry find_verify_symmetry(const Schedule& schedule, int threads,
                                                  const Translate& translate, bool prove = true);

// Whether the verification of `options` may use translation symmetry at all, and if not why.
[[nodiscard]] std::optional<std::string> symmetry_excluded(const ScheduleInfo& info,
                                                           const VerifyOptions& options);

// find_verify_symmetry where symmetry_excluded allows it; otherwise no group and the reason.
[[nodiscard]] VerifySymmetry symmetry_for(const Schedule& schedule, const VerifyOptions& options,
                                          bool prove = true);

}  // namespace topocoll::detail
