#include "algorithms/baselines/bucket_lane.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/rank_math.hpp"

namespace topocoll::algorithms {

BucketLane::BucketLane(ScheduleInfo info, BucketLanePlan plan)
    : Schedule(std::move(info)), plan_(std::move(plan)), sizes_(this->info().dims) {
  const int m = static_cast<int>(plan_.order.size());
  if (m == 0 || static_cast<int>(plan_.phase_steps.size()) != m || this->info().blocks != ranks())
    throw std::logic_error("BucketLane: inconsistent plan");
  strides_.assign(sizes_.size(), 1);
  for (std::size_t i = 1; i < sizes_.size(); ++i) strides_[i] = strides_[i - 1] * sizes_[i - 1];
  span_.assign(m + 1, 1);
  for (int i = m - 1; i >= 0; --i) span_[i] = span_[i + 1] * sizes_[plan_.order[i]];

  const Collective c = this->info().collective;
  auto add = [&](int position, bool reduce) {
    phases_.push_back(Phase{position, reduce, total_steps_});
    total_steps_ += plan_.phase_steps[position];
  };
  // Reduce-scatter visits the dimensions in order; allgather undoes it in reverse.
  if (c != Collective::allgather)
    for (int i = 0; i < m; ++i) add(i, true);
  if (c != Collective::reduce_scatter)
    for (int i = m - 1; i >= 0; --i) add(i, false);
}

int BucketLane::step_count(int) const { return total_steps_; }

std::vector<int> BucketLane::coords_of(int rank) const {
  std::vector<int> coords(sizes_.size());
  for (std::size_t i = 0; i < sizes_.size(); ++i) {
    coords[i] = rank % sizes_[i];
    rank /= sizes_[i];
  }
  return coords;
}

int BucketLane::neighbour(int rank, const std::vector<int>& coords, int dim, int delta) const {
  const int x = coords[dim];
  return rank + (mod(x + delta, sizes_[dim]) - x) * strides_[dim];
}

BlockSet BucketLane::group(const std::vector<int>& coords, int position, int value) const {
  if (plan_.numbering == BucketNumbering::by_rank) return group_by_rank(coords, position, value);
  long long base = 0;
  for (int i = 0; i < position; ++i) base += coords[plan_.order[i]] * span_[i + 1];
  base += value * span_[position + 1];
  return BlockSet::range(static_cast<BlockIndex>(base),
                         static_cast<BlockIndex>(base + span_[position + 1]));
}

// Ranks below the lowest fixed dimension vary freely, so they form runs of strides_[lowest]
// consecutive blocks; the free dimensions above it select the runs (an odometer, so the runs
// come out sorted).
BlockSet BucketLane::group_by_rank(const std::vector<int>& coords, int position, int value) const {
  long long base = 0;
  int lowest = static_cast<int>(sizes_.size());
  for (int i = 0; i <= position; ++i) {
    const int dim = plan_.order[i];
    base += static_cast<long long>(i == position ? value : coords[dim]) * strides_[dim];
    lowest = std::min(lowest, dim);
  }
  std::vector<int> later;
  for (std::size_t i = position + 1; i < plan_.order.size(); ++i)
    if (plan_.order[i] > lowest) later.push_back(plan_.order[i]);
  std::sort(later.begin(), later.end());

  const long long run = strides_[lowest];
  std::vector<int> digit(later.size(), 0);
  long long offset = 0;
  BlockSet out;
  for (;;) {
    out.add(static_cast<BlockIndex>(base + offset), static_cast<BlockIndex>(base + offset + run));
    std::size_t k = 0;
    for (; k < later.size(); ++k) {
      offset += strides_[later[k]];
      if (++digit[k] < sizes_[later[k]]) break;
      offset -= static_cast<long long>(sizes_[later[k]]) * strides_[later[k]];
      digit[k] = 0;
    }
    if (k == later.size()) return out;
  }
}

// Ring steps as in ring.cpp (section 2.3.1), on the line of `dim` through this rank: the
// reduce-scatter leaves group x at coordinate x, the allgather starts from it.
void BucketLane::build_step(int rank, int step, Step& out) const {
  const auto it = std::upper_bound(phases_.begin(), phases_.end(), step,
                                   [](int s, const Phase& p) { return s < p.first_step; });
  const Phase& phase = *(it - 1);
  const int t = step - phase.first_step;
  const int dim = plan_.order[phase.position];
  const int n = sizes_[dim];
  if (t >= n - 1) return;  // idle until the longest dimension of this phase is done

  const std::vector<int> coords = coords_of(rank);
  const int x = coords[dim];
  const int d = plan_.direction;
  const int shift = phase.reduce ? 1 : 0;
  const int sent = mod(x - d * (t + shift), n);
  const int received = mod(x - d * (t + shift + 1), n);
  const Combine combine = phase.reduce ? Combine::reduce : Combine::copy;
  out.ops.push_back(
      Operation::send(neighbour(rank, coords, dim, d), group(coords, phase.position, sent)));
  out.ops.push_back(Operation::recv(neighbour(rank, coords, dim, -d),
                                    group(coords, phase.position, received), combine));
}

}  // namespace topocoll::algorithms
