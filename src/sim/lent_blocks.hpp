#pragma once
// Blocks of one rank that a rank of its node read (docs/host-costs.md, "Bytes a node peer
// read"). A rank that sends bytes to a rank of its node lends them: the peer's copy pulls their
// cache lines, and the rank's next copy or reduction into them pays to take the lines back
// (measured on one VM: a reduction 5.4 to 14 times as long, a copy up to 3.3 times, from 4 to
// 128 KiB; docs/validation.md, "The terms, by experiment", item 9). A received message landing
// on them pays nothing more here: the transfer rate is a ping-pong's, whose landing buffer is
// lent too.
#include "core/block_set.hpp"

namespace topocoll::sim {

class LentBlocks {
 public:
  enum class Write { landing, copy, reduce };
  struct Settlement {
    BlockSet copy, reduce;
  };

  // The call starts: its own input copy writes `input_copy` before the first step.
  explicit LentBlocks(const BlockSet& input_copy);

  // A rank of the node read `sent`.
  void lend(const BlockSet& sent);
  // The rank writes `blocks`: returns those of them that were lent (the caller charges a copy's
  // or a reduction's); they are the rank's own again.
  BlockSet write(const BlockSet& blocks, Write how);
  // At the call's end: blocks still lent that the call first wrote with a copy (a reduction).
  // The next call writes them first the same way and pays for them: a loop of calls, as
  // calibrate and validate time, pays them once per call.
  [[nodiscard]] Settlement settle() const;

 private:
  BlockSet lent_, written_, first_copied_, first_reduced_;
};

}  // namespace topocoll::sim
