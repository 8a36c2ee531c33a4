#pragma once
// One step of one rank: a set of operations executed concurrently (docs/design.md, "2.3 Snapshot
// semantics"). Sends read the buffer as it was when the step began; receives and local copies
// are applied, in list order, when every operation of the step has completed. Copies marked
// after_receives then read the result and apply last, in list order.
#include <string>
#include <vector>

#include "core/block_set.hpp"

namespace topocoll {

enum class OpKind { send, recv, copy };

// What a receive (or a local copy) does with the incoming data.
enum class Combine { copy, reduce };

// Operand order of a reduction: received_first is inout = in ∘ inout (the order of
// MPI_Reduce_local(in, inout)); local_first is inout = inout ∘ in.
enum class OperandOrder { received_first, local_first };

// When a local copy or reduction reads its source. step_start: with the sends, so several
// copies can permute blocks in place. after_receives: once the step's receives have landed,
// the local computation between two rounds (e.g. a partial sum to send in the next step).
enum class CopyTiming { step_start, after_receives };

struct Operation {
  OpKind kind = OpKind::send;
  int peer = -1;  // send and recv only
  // Lane of a concurrent sub-collective (multi-port). Sends and receives match per
  // (sender, receiver, port) in posting order, as MPI matches per (source, tag).
  int port = 0;
  BlockSet blocks;  // send: slots read; recv and copy: slots written
  BlockSet source;  // copy only: slots read, same block count as `blocks`
  Combine combine = Combine::copy;
  OperandOrder order = OperandOrder::received_first;
  CopyTiming timing = CopyTiming::step_start;  // copy only

  static Operation send(int peer, BlockSet blocks, int port = 0);
  static Operation recv(int peer, BlockSet blocks, Combine combine, int port = 0,
                        OperandOrder order = OperandOrder::received_first);
  static Operation local_copy(BlockSet source, BlockSet destination,
                              Combine combine = Combine::copy,
                              OperandOrder order = OperandOrder::received_first);
  // A local copy or reduction that reads its source after the step's receives.
  static Operation local_after_receives(BlockSet source, BlockSet destination, Combine combine,
                                        OperandOrder order = OperandOrder::received_first);
  [[nodiscard]] bool after_receives() const {
    return kind == OpKind::copy && timing == CopyTiming::after_receives;
  }

  [[nodiscard]] bool writes() const { return kind != OpKind::send; }
  [[nodiscard]] std::string to_string() const;
  friend bool operator==(const Operation&, const Operation&) = default;
};

// A step of another lane of the same rank that must have completed before a step starts
// (docs/design.md, "2.2 Lanes and steps": lanes meet only where the schedule says so).
struct Dependency {
  int lane = 0;
  int step = 0;
  friend bool operator==(const Dependency&, const Dependency&) = default;
};

struct Step {
  std::vector<Operation> ops;
  std::vector<Dependency> after;  // steps of other lanes this step waits for
  void clear() {
    ops.clear();
    after.clear();
  }
  [[nodiscard]] bool empty() const { return ops.empty(); }
};

[[nodiscard]] std::string_view op_kind_name(OpKind kind);
[[nodiscard]] std::string_view combine_name(Combine combine);
[[nodiscard]] std::string_view operand_order_name(OperandOrder order);
[[nodiscard]] std::string_view copy_timing_name(CopyTiming timing);

}  // namespace topocoll
