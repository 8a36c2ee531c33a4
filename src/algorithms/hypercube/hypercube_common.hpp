#pragma once
// Shared pieces of the hypercube algorithms of cm200-all-to-all-tr0293.txt (sections 3-5).
//
// A binary d-cube has P = 2^d nodes; node n and n ^ 2^k are neighbours across dimension k. The
// generators in this family are written for node addresses ("node space": node n holds chunk n)
// and send every message across one dimension on the port of that dimension, so
//  - DimensionSerial turns a d-port schedule into its one-port form (dimension by dimension),
//  - GrayLabels places rank r on node G(r) (the CM-200 default, section 3), so that
//    consecutive ranks are neighbours; with binary labels rank r is node r,
//  - Reversed turns a data flow around (section 4.2.2: "the reversed data motion"):
//    allgather -> reduce-scatter, broadcast -> reduce, scatter -> gather.
#include <bit>
#include <string>
#include <vector>

#include "core/registry.hpp"

namespace topocoll::algorithms::hypercube {

// Binary-reflected Gray code (section 3, Table 1) and its inverse (a prefix xor).
[[nodiscard]] constexpr unsigned gray(unsigned x) { return x ^ (x >> 1); }
[[nodiscard]] constexpr unsigned gray_inverse(unsigned g) {
  for (unsigned shift = 1; shift < 32; shift <<= 1) g ^= g >> shift;
  return g;
}

// The dimension crossed between G(u) and G(u + 1): the transition sequence of section 3.
[[nodiscard]] constexpr int transition(unsigned u) { return std::countr_zero(u + 1); }

// sh^by: left cyclic shift of a d-bit string (section 4.2.1).
[[nodiscard]] constexpr unsigned rotate_left(unsigned x, int by, int d) {
  by %= d;
  if (by == 0) return x;
  const unsigned mask = (1u << d) - 1;
  return ((x << by) | (x >> (d - by))) & mask;
}

// Neighbour of `node` across dimension `dim`.
[[nodiscard]] constexpr int across(int node, int dim) { return node ^ (1 << dim); }

// The cube dimension d of a request whose shape the registry accepted: dims omitted, {P}, or
// 2x2x...x2 with P a power of two (RankRule::power_of_two, SideRule::binary_cube).
[[nodiscard]] int cube_dimension(const ScheduleRequest& request, const std::string& algorithm);

// The ranks of the subcube `base` + span(free): base's bits outside `free` with every
// combination of the bits in `free`, in increasing order (O(2^popcount(free))).
template <typename Visit>
void for_each_in_subcube(unsigned base, unsigned free, Visit&& visit) {
  const unsigned fixed = base & ~free;
  unsigned sub = 0;
  do {
    visit(fixed | sub);
    sub = (sub - free) & free;  // next subset of `free` in increasing order
  } while (sub != 0);
}

// Mask of the dimensions first, first + 1, ..., first + count - 1 (mod d).
[[nodiscard]] unsigned rotated_dims(int first, int count, int d);

// The blocks [lo, hi) of slice `part` when `blocks` are cut into `parts` nearly equal slices.
[[nodiscard]] BlockSet slice(int blocks, int parts, int part);

// Info shared by the schedules of this family.
[[nodiscard]] ScheduleInfo family_info(const ScheduleRequest& request, const std::string& name,
                                       Collective collective, int blocks, int ports);

// The reversed data motion of `inner`: a rank's steps run backwards, every send becomes a
// receive (combined with `combine`) and every receive a send. Needs no local copies. Each lane
// runs backwards on its own (the inner's lanes must not depend on each other).
class Reversed final : public Schedule {
 public:
  Reversed(ScheduleInfo info, SchedulePtr inner, Combine combine);
  [[nodiscard]] int step_count(int rank) const override { return inner_->step_count(rank); }
  void build_step(int rank, int step, Step& out) const override;
  [[nodiscard]] int lane_count(int rank) const override { return inner_->lane_count(rank); }
  [[nodiscard]] int lane_step_count(int rank, int lane) const override {
    return inner_->lane_step_count(rank, lane);
  }
  void build_lane_step(int rank, int lane, int step, Step& out) const override;

 private:
  void reverse(Step& step) const;
  SchedulePtr inner_;
  Combine combine_;
};

// One-port form of a schedule whose port is the dimension of each message: step s runs the
// messages of inner step s / d on dimension s % d. Every message still reads what the inner
// step read, because in this family no rank writes a block on one dimension that it reads on
// another within one inner step (a send and the receive of the same exchange share a dimension).
class DimensionSerial final : public Schedule {
 public:
  DimensionSerial(SchedulePtr inner, int d);
  [[nodiscard]] int step_count(int rank) const override { return d_ * inner_->step_count(rank); }
  void build_step(int rank, int step, Step& out) const override;

 private:
  SchedulePtr inner_;
  int d_;
};

// Rank r runs node G(r)'s part of a node-space schedule. With `remap_chunks`, node n's chunk
// (blocks [n*S, (n+1)*S)) becomes rank G^-1(n)'s chunk, so rank r starts with its own data;
// without, blocks keep their index (schedules that treat all blocks alike).
class GrayLabels final : public Schedule {
 public:
  GrayLabels(SchedulePtr inner, bool remap_chunks);
  [[nodiscard]] int step_count(int rank) const override;
  void build_step(int rank, int step, Step& out) const override;
  [[nodiscard]] int lane_count(int rank) const override;
  [[nodiscard]] int lane_step_count(int rank, int lane) const override;
  void build_lane_step(int rank, int lane, int step, Step& out) const override;

 private:
  void relabel_peers(Step& step) const;
  [[nodiscard]] BlockSet relabel(const BlockSet& blocks) const;
  SchedulePtr inner_;
  bool remap_chunks_;
};

enum class Labels { binary, gray };

// The requested form of a node-space schedule: its one-port form when fewer ports than it uses
// were requested (ports are then its dimensions), then the rank placement of `labels`.
[[nodiscard]] SchedulePtr finish(SchedulePtr node_schedule, int d, int ports, Labels labels,
                                 bool remap_chunks);

}  // namespace topocoll::algorithms::hypercube
