// Baseline alltoall schedules: the linear exchange and Bruck's log-step algorithm, the
// algorithm the Bine alltoall is compared with (bine-trees-sc25.txt sections 4.4, 5.1.1).
#include <memory>

#include "algorithms/personalized/alltoall_schedules.hpp"
#include "core/rank_math.hpp"

namespace topocoll::algorithms {
namespace {

ScheduleInfo alltoall_info(const char* name, int ranks, int blocks_per_rank, int scratch_chunks) {
  ScheduleInfo info;
  info.collective = Collective::alltoall;
  info.algorithm = name;
  info.ranks = ranks;
  info.blocks = ranks * blocks_per_rank;
  info.slots = (2 * ranks + scratch_chunks) * blocks_per_rank;
  info.dims = {ranks};
  info.keeps_positions = false;
  return info;
}

// Slots of `count` chunks starting at chunk `first` of the region that begins at `base`.
BlockSet chunks(int base, int first, int count, int per) {
  return BlockSet::range(static_cast<BlockIndex>(base + first * per),
                         static_cast<BlockIndex>(base + (first + count) * per));
}

class PairwiseAlltoall final : public Schedule {
 public:
  PairwiseAlltoall(int ranks, int per)
      : Schedule(alltoall_info("pairwise", ranks, per, 0)), per_(per) {}

  [[nodiscard]] int step_count(int) const override { return ranks() - 1; }

  void build_step(int rank, int step, Step& out) const override {
    const int p = ranks(), b = info().blocks;
    const int to = mod(rank + step + 1, p), from = mod(rank - step - 1, p);
    out.ops.push_back(Operation::send(to, chunks(0, to, 1, per_)));
    out.ops.push_back(Operation::recv(from, chunks(b, from, 1, per_), Combine::copy));
    if (step == 0)
      out.ops.push_back(Operation::local_copy(chunks(0, rank, 1, per_), chunks(b, rank, 1, per_)));
  }

 private:
  int per_;
};

// Scratch chunk i of rank r holds, after the first rotation, the chunk r sends to r + i. At
// exchange k the chunks whose index has bit k set move to r + 2^k and keep their index, so
// chunk i ends at rank dst = src + i: it came from dst - i. The last step undoes the rotation.
class BruckAlltoall final : public Schedule {
 public:
  BruckAlltoall(int ranks, int per)
      : Schedule(alltoall_info("bruck", ranks, per, ranks)),
        per_(per),
        exchanges_(ceil_log(ranks, 2)) {}

  [[nodiscard]] int step_count(int) const override { return exchanges_ + 2; }

  void build_step(int rank, int step, Step& out) const override {
    if (step == 0) {
      rotate(rank, out);
    } else if (step <= exchanges_) {
      exchange(rank, step - 1, out);
    } else {
      unrotate(rank, out);
    }
  }

 private:
  [[nodiscard]] int scratch() const { return 2 * info().blocks; }

  void rotate(int rank, Step& out) const {
    const int p = ranks();
    out.ops.push_back(Operation::local_copy(chunks(0, rank, p - rank, per_),
                                            chunks(scratch(), 0, p - rank, per_)));
    if (rank > 0)
      out.ops.push_back(
          Operation::local_copy(chunks(0, 0, rank, per_), chunks(scratch(), p - rank, rank, per_)));
  }

  void exchange(int rank, int k, Step& out) const {
    const int p = ranks();
    const int bit = 1 << k;
    BlockSet moving;
    for (int start = bit; start < p; start += 2 * bit)
      moving.add(chunks(scratch(), start, std::min(bit, p - start), per_));
    out.ops.push_back(Operation::send(mod(rank + bit, p), moving));
    out.ops.push_back(Operation::recv(mod(rank - bit, p), moving, Combine::copy));
  }

  void unrotate(int rank, Step& out) const {
    const int p = ranks();
    for (int i = 0; i < p; ++i)
      out.ops.push_back(Operation::local_copy(chunks(scratch(), i, 1, per_),
                                              chunks(info().blocks, mod(rank - i, p), 1, per_)));
  }

  int per_;
  int exchanges_;
};

}  // namespace

SchedulePtr make_pairwise_alltoall(int ranks, int blocks_per_rank) {
  return std::make_unique<PairwiseAlltoall>(ranks, blocks_per_rank);
}

SchedulePtr make_bruck_alltoall(int ranks, int blocks_per_rank) {
  return std::make_unique<BruckAlltoall>(ranks, blocks_per_rank);
}

}  // namespace topocoll::algorithms
