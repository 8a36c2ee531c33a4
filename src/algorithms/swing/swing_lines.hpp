#pragma once
// Swing on one dimension of a torus (swing-nsdi24.txt sections 3.1 and 3.2): who talks to whom
// at each step, which coordinates of the line each message carries, and which coordinates a
// node still holds. The torus schedules (swing_lanes.hpp) combine one line per dimension.
//
// A line's steps are "logical": every node of every line of the same size goes through the same
// steps, and a step may take two sub-steps (the extra node of an odd line, see BandwidthLine),
// so all ranks have the same number of schedule steps and the phases can be reversed.
#include <cstdint>
#include <memory>
#include <vector>

#include "core/block_set.hpp"
#include "core/operation.hpp"

namespace topocoll::algorithms::swing {

// rho(s) = sum_{i=0..s} (-2)^i (Eq. 2).
[[nodiscard]] long long rho(int step);
// +1 if coordinate x moves by +rho (even x of a plain collective), -1 otherwise. Mirrored
// collectives negate the direction (section 4.1).
[[nodiscard]] int direction(int x, bool mirrored);
// pi(x, s) on a line of even size m (Eq. 2; section 4.1 with the direction of `mirrored`).
[[nodiscard]] int peer(int x, int step, int m, bool mirrored);
// Position of x in the order that makes every reach set of a power-of-two line an aligned
// interval: bit (L-1-s) is set iff the path from 0 to x uses step s. The path's steps are the
// digit changes of the negabinary form of x (odd x) or -x (even x) (Appendix A.1, Eq. 4-5).
[[nodiscard]] std::uint32_t label(int x, int m, bool mirrored);

// The reduce-scatter butterfly on an even number m of nodes with ceil(log2 m) steps. Node x
// holds, before step s, the blocks R(x, s) it reaches with steps s, s+1, ...; at step s it
// sends its peer q the blocks D(x, s) = R(q, s+1) \ R(x, s+1), so no block is ever sent twice,
// also when m is not a power of two and the reach sets overlap (section 3.2, Appendix A.2).
// Both sets are x + direction(x) * (a set of offsets that does not depend on x), so the
// offsets are computed once per m (O(m log m)) and each set costs O(its ranges).
class Butterfly {
 public:
  explicit Butterfly(int m);
  [[nodiscard]] int size() const { return m_; }
  [[nodiscard]] int steps() const { return steps_; }
  [[nodiscard]] BlockSet reach(int x, int step, bool mirrored) const;  // step in [0, steps]
  [[nodiscard]] BlockSet sent(int x, int step, bool mirrored) const;   // step in [0, steps)

 private:
  int m_;
  int steps_;
  std::vector<std::vector<BlockRange>> offsets_;  // reach offsets per step (residues mod m)
  std::vector<std::vector<BlockRange>> deltas_;   // sent offsets per step
};

struct LineOp {
  OpKind kind = OpKind::send;
  int peer = 0;     // coordinate on the line
  BlockSet coords;  // coordinates of the line the message carries
  Combine combine = Combine::reduce;
};

class Line {
 public:
  virtual ~Line() = default;
  [[nodiscard]] virtual int steps() const = 0;
  [[nodiscard]] virtual int width(int step) const = 0;  // sub-steps of a logical step
  virtual void ops(int x, int step, int sub, std::vector<LineOp>& out) const = 0;
  // Coordinates x holds before `step` (step == steps(): at the end). Empty: x is idle.
  [[nodiscard]] virtual BlockSet held(int x, int step) const = 0;
};

// Bandwidth-optimal reduce-scatter on a line (section 3.1.1, Listing 1); the allgather is its
// reverse. Even sizes use the Butterfly directly. An odd size d runs the butterfly on the first
// m = d - 1 nodes, and the extra node E = m joins the first step: it sends the halves of its
// vector to the two nodes u, w = m - 1 of the step-0 pair that contains w, each in its own
// sub-step (section 3.2, Fig. 3 spreads E's vector over all nodes instead, which needs up to
// (d-1)/2 concurrent messages at E and two at the others: more than the ports we have). Block
// E travels with block m - 1 (coordinates m - 1 and m are adjacent, so sets stay contiguous).
// `standalone` adds the last step that hands block E to node E (a reduce-scatter on its own);
// inside an allreduce the allgather brings it back anyway.
class BandwidthLine final : public Line {
 public:
  BandwidthLine(int size, bool mirrored, bool standalone, std::shared_ptr<const Butterfly> inner);
  [[nodiscard]] int steps() const override;
  [[nodiscard]] int width(int step) const override { return extra_ && step == 0 ? 2 : 1; }
  void ops(int x, int step, int sub, std::vector<LineOp>& out) const override;
  [[nodiscard]] BlockSet held(int x, int step) const override;

 private:
  [[nodiscard]] int inner_steps() const { return inner_ ? inner_->steps() : 0; }
  [[nodiscard]] BlockSet ext(BlockSet coords) const;
  [[nodiscard]] BlockSet reach(int x, int step) const {
    return ext(inner_->reach(x, step, mirrored_));
  }
  [[nodiscard]] BlockSet sent(int x, int step) const {
    return ext(inner_->sent(x, step, mirrored_));
  }
  void first_step_with_extra(int x, int sub, std::vector<LineOp>& out) const;

  int size_;
  bool mirrored_;
  bool standalone_;
  bool extra_;  // odd size >= 3: node size - 1 is the extra node
  std::shared_ptr<const Butterfly> inner_;
  int u_ = -1, w_ = -1;  // the step-0 pair the extra node joins
};

// Latency-optimal allreduce on a line (section 3.1.2): every step exchanges the whole vector.
// With a single block the butterfly cannot skip contributions a node already has, so sizes that
// are not a power of two fold the extra nodes in and out (section 2.3.2): node 2i+1 (i < e)
// hands its vector to node 2i first and gets the result back last; the other nodes run the
// butterfly on the largest power of two below the size.
class LatencyLine final : public Line {
 public:
  LatencyLine(int size, bool mirrored);
  [[nodiscard]] int steps() const override;
  [[nodiscard]] int width(int) const override { return 1; }
  void ops(int x, int step, int sub, std::vector<LineOp>& out) const override;
  [[nodiscard]] BlockSet held(int x, int step) const override;

 private:
  [[nodiscard]] bool folded_out(int x) const { return x < 2 * extras_ && x % 2 == 1; }
  [[nodiscard]] int to_virtual(int x) const { return x < 2 * extras_ ? x / 2 : x - extras_; }
  [[nodiscard]] int from_virtual(int v) const { return v < extras_ ? 2 * v : v + extras_; }

  int size_;
  bool mirrored_;
  int core_;    // largest power of two <= size
  int extras_;  // size - core_
  int log_core_;
};

}  // namespace topocoll::algorithms::swing
