#include "algorithms/bine/bine_butterfly.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "algorithms/common/negabinary.hpp"
#include "core/rank_math.hpp"

namespace topocoll::algorithms::bine {
namespace {

constexpr std::int8_t kUnreached = -2;

// The values (x + sign * y) mod size for y in `ys` (sorted ascending), appended in ascending
// order in O(|ys|): the map is monotone except for one wrap-around.
void shifted_sorted(const std::vector<int>& ys, int x, int sign, int size, std::vector<int>& out) {
  if (sign > 0) {
    // x + y wraps for y >= size - x; the wrapped values are the smaller ones.
    const auto split = std::lower_bound(ys.begin(), ys.end(), size - x);
    for (auto it = split; it != ys.end(); ++it) out.push_back(x + *it - size);
    for (auto it = ys.begin(); it != split; ++it) out.push_back(x + *it);
    return;
  }
  // x - y is in [0, x] for y <= x (descending in y), and wraps above x otherwise.
  const auto split = std::upper_bound(ys.begin(), ys.end(), x);
  for (auto it = split; it != ys.begin();) out.push_back(x - *--it);
  for (auto it = ys.end(); it != split;) out.push_back(x - *--it + size);
}

}  // namespace

BineRing::BineRing(int size, AllgatherOrder order)
    : size_(size), steps_(negabinary::digits_for(size)), order_(order) {
  if (size < 1 || (size > 1 && size % 2 != 0))
    throw std::logic_error("BineRing: the ring size must be even (or 1)");
  std::vector<int> allgather_distance(static_cast<std::size_t>(steps_));
  std::vector<int> scatter_distance(static_cast<std::size_t>(steps_));
  for (int i = 0; i < steps_; ++i) {
    allgather_distance[static_cast<std::size_t>(i)] = distance_index(i);
    // The reduce-scatter runs the allgather backwards.
    scatter_distance[static_cast<std::size_t>(i)] = distance_index(steps_ - 1 - i);
  }
  arrival_ = flood(size, allgather_distance, nullptr);
  scatter_path_.assign(static_cast<std::size_t>(size), 0);
  flood(size, scatter_distance, &scatter_path_);
  for (auto& lists : by_step_) lists.assign(static_cast<std::size_t>(steps_), {});
  for (int x = 0; x < size; ++x) {
    const int a = arrival(x);
    if (a >= 0) by_step_[x % 2][static_cast<std::size_t>(a)].push_back(x);
  }
}

int BineRing::distance_index(int i) const {
  return order_ == AllgatherOrder::distance_halving ? steps_ - 1 - i : i;
}

int BineRing::peer(int x, int i) const {
  return static_cast<int>(negabinary::butterfly_peer(x, distance_index(i), size_));
}

int BineRing::relative(int root, int x) const {
  return root % 2 == 0 ? mod(x - root, size_) : mod(root - x, size_);
}

// Appendix C: every holder sends to its peer unless the peer already holds the data, which
// keeps the subtree reached first and drops the one reached later.
std::vector<std::int8_t> BineRing::flood(int size, const std::vector<int>& distance_of_step,
                                         std::vector<std::uint64_t>* paths) {
  std::vector<std::int8_t> arrival(static_cast<std::size_t>(size), kUnreached);
  std::vector<int> holders{0};
  holders.reserve(static_cast<std::size_t>(size));
  arrival[0] = -1;
  for (std::size_t i = 0; i < distance_of_step.size(); ++i) {
    const std::size_t holding = holders.size();
    for (std::size_t h = 0; h < holding; ++h) {
      const int n = holders[h];
      const auto q =
          static_cast<std::size_t>(negabinary::butterfly_peer(n, distance_of_step[i], size));
      if (arrival[q] != kUnreached) continue;
      arrival[q] = static_cast<std::int8_t>(i);
      if (paths) (*paths)[q] = (*paths)[static_cast<std::size_t>(n)] | (1ULL << i);
      holders.push_back(static_cast<int>(q));
    }
  }
  if (static_cast<int>(holders.size()) != size)
    throw std::logic_error("BineRing: the pruned tree does not reach every rank");
  return arrival;
}

void BineRing::reached_at(int x, int i, std::vector<int>& out) const {
  // Tree of root b reaches x at step i iff relative(b, x) is reached at step i: even roots
  // b = x - y with y of x's parity, odd roots b = x + y with y of the other parity.
  const auto& same = by_step_[x % 2][static_cast<std::size_t>(i)];
  const auto& other = by_step_[1 - x % 2][static_cast<std::size_t>(i)];
  std::vector<int> minus, plus;
  minus.reserve(same.size());
  plus.reserve(other.size());
  shifted_sorted(same, x, -1, size_, minus);
  shifted_sorted(other, x, +1, size_, plus);
  const std::size_t start = out.size();
  out.resize(start + minus.size() + plus.size());
  std::merge(minus.begin(), minus.end(), plus.begin(), plus.end(),
             out.begin() + static_cast<std::ptrdiff_t>(start));
}

void BineRing::reached_before(int x, int c, std::vector<int>& out) const {
  const std::size_t start = out.size();
  out.push_back(x);
  for (int i = 0; i < c; ++i) reached_at(x, i, out);
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(start), out.end());
}

BineGrid::BineGrid(std::vector<int> dims, AllgatherOrder order, int start_dim, bool mirrored)
    : dims_(std::move(dims)), mirrored_(mirrored) {
  ranks_ = 1;
  power_of_two_ = true;
  for (int d : dims_) {
    strides_.push_back(ranks_);
    ranks_ *= d;
    rings_.emplace_back(d, order);
    power_of_two_ = power_of_two_ && is_power_of(d, 2);
  }
  build_order(start_dim);
  build_sigma();
}

void BineGrid::build_order(int start_dim) {
  const int dims = static_cast<int>(dims_.size());
  // Reduce-scatter order: round-robin over the dimensions with steps left (Appendix D).
  std::vector<Step> scatter;  // (dim, ring-local reduce-scatter index)
  std::vector<int> used(static_cast<std::size_t>(dims), 0);
  for (bool more = true; more;) {
    more = false;
    for (int off = 0; off < dims; ++off) {
      const int j = (start_dim + off) % dims;
      auto& u = used[static_cast<std::size_t>(j)];
      if (u < rings_[static_cast<std::size_t>(j)].steps()) {
        scatter.push_back({j, u++});
        more = true;
      }
    }
  }
  const auto total = scatter.size();
  schedule_.resize(total);
  for (std::size_t t = 0; t < total; ++t) {
    const Step& s = scatter[total - 1 - t];
    const int ring_steps = rings_[static_cast<std::size_t>(s.dim)].steps();
    schedule_[t] = {s.dim, ring_steps - 1 - s.local};
  }
  done_before_.assign(total, std::vector<int>(static_cast<std::size_t>(dims), 0));
  for (std::size_t t = 1; t < total; ++t) {
    done_before_[t] = done_before_[t - 1];
    ++done_before_[t][static_cast<std::size_t>(schedule_[t - 1].dim)];
  }
}

void BineGrid::build_sigma() {
  const int total = steps();
  // Global reduce-scatter step of each (dim, ring-local reduce-scatter index).
  auto& global = scatter_global_;
  global.assign(dims_.size(), {});
  for (std::size_t j = 0; j < dims_.size(); ++j)
    global[j].assign(static_cast<std::size_t>(rings_[j].steps()), 0);
  for (int t = 0; t < total; ++t) {
    const Step& s = schedule_[static_cast<std::size_t>(t)];
    const int ring_steps = rings_[static_cast<std::size_t>(s.dim)].steps();
    // Allgather step t is reduce-scatter step total-1-t, ring-local index ring_steps-1-local.
    global[static_cast<std::size_t>(s.dim)][static_cast<std::size_t>(ring_steps - 1 - s.local)] =
        total - 1 - t;
  }
  std::vector<std::uint64_t> key(static_cast<std::size_t>(ranks_), 0);
  std::vector<int> coords;
  for (int node = 0; node < ranks_; ++node) {
    coordinates(node, coords);
    std::uint64_t k = 0;
    for (std::size_t j = 0; j < dims_.size(); ++j) {
      const std::uint64_t path = rings_[j].scatter_path(coords[j]);
      for (int l = 0; l < rings_[j].steps(); ++l)
        if ((path >> l) & 1ULL) k |= 1ULL << (total - 1 - global[j][static_cast<std::size_t>(l)]);
    }
    key[static_cast<std::size_t>(node)] = k;
  }
  sigma_inverse_.resize(static_cast<std::size_t>(ranks_));
  std::iota(sigma_inverse_.begin(), sigma_inverse_.end(), 0);
  std::sort(sigma_inverse_.begin(), sigma_inverse_.end(), [&](int a, int b) {
    return key[static_cast<std::size_t>(a)] < key[static_cast<std::size_t>(b)];
  });
  sigma_.resize(static_cast<std::size_t>(ranks_));
  for (int pos = 0; pos < ranks_; ++pos)
    sigma_[static_cast<std::size_t>(sigma_inverse_[static_cast<std::size_t>(pos)])] = pos;
}

int BineGrid::scatter_arrival(int inner_node) const {
  int arrival = -1;
  for (std::size_t j = 0; j < dims_.size(); ++j) {
    const int x = (inner_node / strides_[j]) % dims_[j];
    const std::uint64_t path = rings_[j].scatter_path(x);
    if (path == 0) continue;
    int last = 63;
    while (((path >> last) & 1ULL) == 0) --last;
    arrival = std::max(arrival, scatter_global_[j][static_cast<std::size_t>(last)]);
  }
  return arrival;
}

int BineGrid::scatter_distance(int t) const {
  const Step& s = schedule_[static_cast<std::size_t>(steps() - 1 - t)];
  return rings_[static_cast<std::size_t>(s.dim)].distance_index(s.local);
}

void BineGrid::coordinates(int rank, std::vector<int>& out) const {
  out.resize(dims_.size());
  for (std::size_t j = 0; j < dims_.size(); ++j) {
    out[j] = rank % dims_[j];
    rank /= dims_[j];
  }
}

int BineGrid::inner(int rank) const {
  if (!mirrored_) return rank;
  int out = 0;
  for (std::size_t j = 0; j < dims_.size(); ++j) {
    const int x = rank % dims_[j];
    rank /= dims_[j];
    out += ((dims_[j] - x) % dims_[j]) * strides_[j];
  }
  return out;
}

int BineGrid::allgather_peer(int rank, int t) const {
  const Step& s = schedule_[static_cast<std::size_t>(t)];
  const auto j = static_cast<std::size_t>(s.dim);
  const int y = inner(rank);
  const int x = (y / strides_[j]) % dims_[j];
  const int q = y + (rings_[j].peer(x, s.local) - x) * strides_[j];
  return inner(q);
}

void BineGrid::per_dimension_sets(int inner_rank, int t,
                                  std::vector<std::vector<int>>& lists) const {
  const Step& s = schedule_[static_cast<std::size_t>(t)];
  lists.assign(dims_.size(), {});
  for (std::size_t j = 0; j < dims_.size(); ++j) {
    const int x = (inner_rank / strides_[j]) % dims_[j];
    if (static_cast<int>(j) == s.dim)
      rings_[j].reached_at(x, s.local, lists[j]);
    else
      rings_[j].reached_before(x, done_before_[static_cast<std::size_t>(t)][j], lists[j]);
  }
}

namespace {

// Calls f(block) for every element of the product of the per-dimension lists, in ascending
// block order when every list is sorted (the last dimension varies slowest).
template <class F>
void for_each_in_product(const std::vector<std::vector<int>>& lists,
                         const std::vector<int>& strides, F&& f) {
  const std::size_t dims = lists.size();
  for (const auto& l : lists)
    if (l.empty()) return;
  std::vector<std::size_t> index(dims, 0);
  while (true) {
    int base = 0;
    for (std::size_t j = 1; j < dims; ++j) base += lists[j][index[j]] * strides[j];
    for (int x : lists[0]) f(base + x);
    std::size_t j = 1;
    while (j < dims && ++index[j] == lists[j].size()) index[j++] = 0;
    if (j >= dims) return;
  }
}

}  // namespace

void BineGrid::received(int rank, int t, BlockSet& out) const {
  std::vector<std::vector<int>> lists;
  per_dimension_sets(inner(rank), t, lists);
  if (mirrored_) {
    // Inner block c is the lane's label of block inner(c): mirror every coordinate back.
    for (std::size_t j = 0; j < dims_.size(); ++j) {
      for (int& x : lists[j]) x = (dims_[j] - x) % dims_[j];
      std::sort(lists[j].begin(), lists[j].end());
    }
  }
  for_each_in_product(lists, strides_, [&](int b) { out.add(static_cast<BlockIndex>(b)); });
}

void BineGrid::received_sigma(int rank, int t, BlockSet& out) const {
  const int y = inner(rank);
  if (power_of_two_) {
    // Section 4.3.1: the set is the aligned range of 2^t positions next to sigma(y)'s.
    const auto position = static_cast<BlockIndex>(sigma(y));
    const BlockIndex begin = ((position >> t) ^ 1U) << t;
    out.add(begin, begin + (BlockIndex{1} << t));
    return;
  }
  std::vector<std::vector<int>> lists;
  per_dimension_sets(y, t, lists);
  std::vector<int> positions;
  for_each_in_product(lists, strides_, [&](int c) { positions.push_back(sigma(c)); });
  std::sort(positions.begin(), positions.end());
  for (int p : positions) out.add(static_cast<BlockIndex>(p));
}

}  // namespace topocoll::algorithms::bine
