#pragma once
// Pre- and post-conditions of each collective, slot by slot (DESIGN.md, invariant 1).
// The contribution that starts in slot b of rank r is named (r, b).
#include "core/schedule.hpp"

namespace topocoll {

struct SlotExpectation {
  enum class Kind {
    dont_care,  // the slot's final content is not part of the result
    all_ranks,  // (q, block) for every rank q, each exactly once (ordered by q if non-commutative)
    single,     // exactly the one contribution (origin, block)
  };
  Kind kind = Kind::dont_care;
  int origin = 0;
  BlockIndex block = 0;
};

// Whether slot `slot` of `rank` holds the contribution (rank, slot) when the collective starts.
[[nodiscard]] bool initially_defined(const ScheduleInfo& info, int rank, BlockIndex slot);

[[nodiscard]] SlotExpectation expected_content(const ScheduleInfo& info, int rank,
                                               BlockIndex slot);

}  // namespace topocoll
