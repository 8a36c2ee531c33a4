// Bine alltoall (bine-trees-sc25.txt section 4.4): the butterfly of a small-vector allreduce,
// where every step ships half of the data and concatenates instead of reducing.
//
// Routing. Step i pairs rank h with h + d_i (h even) or h - d_i (h odd), d_i = sum_{j<s-i}
// (-2)^j: the distance-halving Bine butterfly (section 3.1, Eq. 4; every step moves half of
// the data, so the order of the distances does not change the volume). It superposes the Bine
// trees of every rank, so the chunk from src to dst follows the tree path from src to the
// node y with src + eps*y = dst (eps = +1 for even src, -1 for odd: odd ranks mirror, section
// 3.1). On that path the holder's node flips its s - i low bits at step i exactly when bit
// s-1-i of g = nb(y) ^ (nb(y) >> 1) is set (sections 2.3.2-2.3.3), so g is the chunk's route.
// For P not a power of two every offset dst - src has several negabinary representatives y;
// any one works for even P (parities of holder and node stay tied), we take the fewest hops.
//
// Layout (section 4.4: "moves the data it wants to keep to the left ... and the data it needs
// to send to the right; each rank tracks the block stored in each buffer position"). Before
// step i a rank's working buffer lists its chunks by a key whose top bit is bit s-1-i of g
// (layout_key): the chunks that move at step i are the right part, sent as one range. The
// kept chunks and the received ones then interleave into the next order; both keep their
// relative order, so one receive and one local copy do it. Routes are distinct among
// the chunks a rank holds, and the set of routes in use is the same at every rank and step.
// A final permutation moves every chunk to its receive slot.
//
// Odd P (Appendix C: the butterfly needs even P): the last rank X hands its send buffer to
// rank Y = P - 2 first, Y runs the butterfly of P - 1 ranks for both (chunks from or to Y's
// group are two chunks wide), and Y hands X its received chunks at the end.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "algorithms/personalized/alltoall_schedules.hpp"
#include "algorithms/personalized/personal_negabinary.hpp"
#include "core/rank_math.hpp"

namespace topocoll::algorithms {
namespace {

using namespace personal;

// Local copies collected slot run by slot run; adjacent runs merge. Runs whose sources and
// destinations both increase share one copy operation (a copy maps its source ranges to its
// destination ranges in order), so a permutation costs as many operations as its longest
// decreasing sequence of runs, not one per chunk.
class CopyList {
 public:
  void add(BlockIndex from, BlockIndex to, BlockIndex count) {
    if (!runs_.empty()) {
      Run& last = runs_.back();
      if (last.from + last.count == from && last.to + last.count == to) {
        last.count += count;
        return;
      }
    }
    runs_.push_back({from, to, count});
  }

  void emit(Step& out) {
    std::sort(runs_.begin(), runs_.end(),
              [](const Run& a, const Run& b) { return a.from < b.from; });
    // Patience sorting: each run extends the chain whose last destination is the largest one
    // below it; tails maps that destination to the chain.
    std::vector<Operation> chains;
    std::map<BlockIndex, std::size_t> tails;
    for (const Run& r : runs_) {
      auto it = tails.lower_bound(r.to);
      std::size_t chain;
      if (it == tails.begin()) {
        chain = chains.size();
        chains.push_back(Operation::local_copy({}, {}));
      } else {
        --it;
        chain = it->second;
        tails.erase(it);
      }
      chains[chain].source.add(r.from, r.from + r.count);
      chains[chain].blocks.add(r.to, r.to + r.count);
      tails.emplace(r.to + r.count, chain);
    }
    for (auto& op : chains) out.ops.push_back(std::move(op));
  }

 private:
  struct Run {
    BlockIndex from, to, count;
  };
  std::vector<Run> runs_;
};

class BineAlltoall final : public Schedule {
 public:
  BineAlltoall(int ranks, int per);

  // Steps: placement, s exchanges, final permutation. For odd P, X = P - 1 sends its buffer
  // to Y = P - 2 and later receives its chunks; Y receives first and returns them last.
  [[nodiscard]] int step_count(int rank) const override {
    if (folded_ && rank == extra_) return 2;
    return bits_ + 2 + (is_proxy(rank) ? 2 : 0);
  }

  void build_step(int rank, int step, Step& out) const override {
    if (folded_ && rank == extra_) return extra_step(step, out);
    if (is_proxy(rank)) {
      if (step == 0) return proxy_receive(out);
      if (step == bits_ + 3) return proxy_return(out);
      --step;
    }
    if (step == 0) return place(rank, out);
    if (step <= bits_) return exchange(rank, step - 1, out);
    finish(rank, out);
  }

 private:
  struct Item {
    int src;  // butterfly ranks
    int dst;
  };

  [[nodiscard]] bool is_proxy(int rank) const { return folded_ && rank == proxy_; }
  [[nodiscard]] BlockIndex slot(int region, int chunk) const {
    return static_cast<BlockIndex>(region + chunk * per_);
  }
  [[nodiscard]] int send_region() const { return 0; }
  [[nodiscard]] int recv_region() const { return info().blocks; }
  [[nodiscard]] int work_region() const { return 2 * info().blocks; }
  [[nodiscard]] int staging_region() const { return 2 * info().blocks + work_chunks_ * per_; }
  [[nodiscard]] bool moves(std::uint32_t g, int i) const { return (g >> (bits_ - 1 - i)) & 1; }
  // Real ranks a butterfly rank stands for: itself, plus X for Y when P is odd.
  [[nodiscard]] int group_size(int r) const { return is_proxy(r) ? 2 : 1; }
  [[nodiscard]] int member(int r, int k) const { return k == 0 ? r : extra_; }

  struct ExchangePlan {
    BlockSet sent, arriving;  // the message out and the slots the message in lands in
    BlockSet kept, staying;   // the chunks that stay, before and after
  };

  // The routes and layouts, built on the first step asked for: step counts and slots need
  // none of it, and building it sorts the V routes once per stage (about 100 s for 2^24
  // ranks), which an estimate that refuses the run must not wait for.
  struct Tables {
    std::vector<long long> node_value;              // per route g: the representative y
    std::vector<std::vector<std::uint32_t>> order;  // per stage: routes by layout_key
    std::vector<ExchangePlan> plans;  // even P: every chunk is one chunk wide, so every rank
                                      // has the same plan (O(V) ranges in all)
  };
  [[nodiscard]] const Tables& tables() const;
  [[nodiscard]] Tables build_tables() const;
  [[nodiscard]] std::vector<std::uint32_t> choose_routes(Tables& t) const;
  void order_stages(const std::vector<std::uint32_t>& routes, Tables& t) const;
  [[nodiscard]] ExchangePlan plan_exchange(const Tables& t, int holder, int stage) const;
  [[nodiscard]] Item item_at(const Tables& t, int holder, int stage, std::uint32_t g) const;
  [[nodiscard]] int width(const Item& it) const { return group_size(it.src) * group_size(it.dst); }

  void extra_step(int step, Step& out) const;
  void proxy_receive(Step& out) const;
  void proxy_return(Step& out) const;
  void place(int rank, Step& out) const;
  void exchange(int rank, int stage, Step& out) const;
  void finish(int rank, Step& out) const;

  int per_;
  int butterfly_;  // V: P, or P - 1 for odd P
  int bits_;       // s = ceil(log2 V)
  bool folded_;
  int extra_ = -1;  // X = P - 1 (odd P)
  int proxy_ = -1;  // Y = P - 2 (odd P)
  int work_chunks_ = 0;
  mutable std::once_flag tables_built_;
  mutable std::unique_ptr<const Tables> tables_;
};

// Working-buffer key of route g before exchange `stage`: the decisions still to take (bits
// s-1-stage .. 0 of g), then the ones taken, latest first. The top bit is the decision of this
// exchange, so the moving chunks are the right part; taking it moves it just below the
// remaining decisions, so kept and received chunks each land in 2^(s-1-stage) runs.
std::uint32_t layout_key(std::uint32_t g, int stage, int bits) {
  const int pending = bits - stage;
  std::uint32_t taken = 0;
  for (int t = 0; t < stage; ++t) taken |= ((g >> (pending + t)) & 1U) << (stage - 1 - t);
  return static_cast<std::uint32_t>(((g & low_mask(pending)) << stage) | taken);
}

ScheduleInfo bine_alltoall_info(int ranks, int per) {
  ScheduleInfo info;
  info.collective = Collective::alltoall;
  info.algorithm = "bine";
  info.ranks = ranks;
  info.blocks = ranks * per;
  info.dims = {ranks};
  info.keeps_positions = false;
  return info;
}

// Fewer hops first, then the shorter tree distance, then the positive value.
auto route_preference(std::uint32_t g, long long y) {
  return std::tuple(std::popcount(g), y < 0 ? -y : y, y < 0);
}

BineAlltoall::BineAlltoall(int ranks, int per)
    : Schedule(bine_alltoall_info(ranks, per)),
      per_(per),
      butterfly_(ranks % 2 == 0 ? ranks : ranks - 1),
      bits_(ceil_log(butterfly_, 2)),
      folded_(ranks % 2 == 1) {
  if (folded_) {
    extra_ = ranks - 1;
    proxy_ = ranks - 2;
  }
  // A chunk is at most two wide (odd P), and the g = 0 chunk never enters the working buffer.
  work_chunks_ = (folded_ ? 2 : 1) * (butterfly_ - 1);
  mutable_info().slots = (2 * ranks + work_chunks_ + (folded_ ? ranks - 1 : 0)) * per;
}

const BineAlltoall::Tables& BineAlltoall::tables() const {
  std::call_once(tables_built_,
                 [this] { tables_ = std::make_unique<const Tables>(build_tables()); });
  return *tables_;
}

BineAlltoall::Tables BineAlltoall::build_tables() const {
  Tables t;
  order_stages(choose_routes(t), t);
  if (!folded_)
    for (int stage = 0; stage < bits_; ++stage) t.plans.push_back(plan_exchange(t, 0, stage));
  return t;
}

// One negabinary representative per offset 1..V-1 (the s-bit strings cover 2^s >= V
// consecutive values). The V routes in use, with g = 0 for offset 0, are distinct and
// V > 2^(s-1), so every bit of g is set in some route: no exchange is empty.
std::vector<std::uint32_t> BineAlltoall::choose_routes(Tables& t) const {
  const int v = butterfly_;
  const long long lowest = -odd_bits(bits_), highest = even_bits(bits_);
  t.node_value.assign(std::size_t{1} << bits_, 0);
  std::vector<std::uint32_t> routes;
  for (int offset = 1; offset < v; ++offset) {
    std::uint32_t best = 0;
    long long best_y = 0;
    for (long long y = offset - ((offset - lowest) / v) * v; y <= highest; y += v) {
      const std::uint64_t nb = to_negabinary(y);
      const auto g = static_cast<std::uint32_t>(nb ^ (nb >> 1));
      if (best == 0 || route_preference(g, y) < route_preference(best, best_y)) {
        best = g;
        best_y = y;
      }
    }
    t.node_value[best] = best_y;
    routes.push_back(best);
  }
  return routes;
}

void BineAlltoall::order_stages(const std::vector<std::uint32_t>& routes, Tables& t) const {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> keyed(routes.size());
  for (int stage = 0; stage <= bits_; ++stage) {
    for (std::size_t k = 0; k < routes.size(); ++k)
      keyed[k] = {layout_key(routes[k], stage, bits_), routes[k]};
    std::sort(keyed.begin(), keyed.end());
    std::vector<std::uint32_t> order(routes.size());
    for (std::size_t k = 0; k < keyed.size(); ++k) order[k] = keyed[k].second;
    t.order.push_back(std::move(order));
  }
}

// The chunk with route g at `holder` before exchange `stage`: its holder node on the path is
// the route's first `stage` decisions, the low bits all equal to the last one taken.
BineAlltoall::Item BineAlltoall::item_at(const Tables& t, int holder, int stage,
                                         std::uint32_t g) const {
  const long long y = t.node_value[g];
  const std::uint64_t nb = to_negabinary(y);
  const int low = bits_ - stage;
  std::uint64_t node = (nb >> low) << low;
  if ((nb >> low) & 1) node |= low_mask(low);
  const long long at = from_negabinary(node);
  int src = mod(holder - at, butterfly_);
  if (src % 2 != 0) src = mod(holder + at, butterfly_);
  const int dst = mod(src + (src % 2 == 0 ? y : -y), butterfly_);
  return {src, dst};
}

void BineAlltoall::extra_step(int step, Step& out) const {
  const int b = info().blocks;
  const auto chunks_before_x = static_cast<BlockIndex>(extra_ * per_);
  if (step == 0) {
    out.ops.push_back(Operation::send(proxy_, BlockSet::range(0, chunks_before_x)));
    out.ops.push_back(Operation::local_copy(BlockSet::range(slot(0, extra_), slot(0, extra_ + 1)),
                                            BlockSet::range(slot(b, extra_), slot(b, extra_ + 1))));
  } else {
    out.ops.push_back(
        Operation::recv(proxy_, BlockSet::range(slot(b, 0), slot(b, extra_)), Combine::copy));
  }
}

void BineAlltoall::proxy_receive(Step& out) const {
  const int t = staging_region();
  out.ops.push_back(
      Operation::recv(extra_, BlockSet::range(slot(t, 0), slot(t, extra_)), Combine::copy));
}

void BineAlltoall::proxy_return(Step& out) const {
  const int t = staging_region();
  out.ops.push_back(Operation::send(extra_, BlockSet::range(slot(t, 0), slot(t, extra_))));
}

// Send buffer (and, at Y, X's chunks in staging) into the working order of stage 0; each rank
// keeps its own chunk (and Y keeps X's chunk for Y) straight in the receive buffer.
void BineAlltoall::place(int rank, Step& out) const {
  const Tables& t = tables();
  CopyList copies;
  const auto p = static_cast<BlockIndex>(per_);
  BlockIndex pos = 0;
  for (std::uint32_t g : t.order[0]) {
    const Item it = item_at(t, rank, 0, g);
    for (int k = 0; k < group_size(rank); ++k) {
      const int from_region = k == 0 ? send_region() : staging_region();
      for (int m = 0; m < group_size(it.dst); ++m) {
        copies.add(slot(from_region, member(it.dst, m)), slot(work_region(), 0) + pos * p, p);
        ++pos;
      }
    }
  }
  copies.add(slot(send_region(), rank), slot(recv_region(), rank), p);
  if (is_proxy(rank)) {
    copies.add(slot(staging_region(), rank), slot(recv_region(), extra_), p);
  }
  copies.emit(out);
}

// The slots of one exchange at `holder`: before it, the kept chunks then the moving ones;
// after it, both interleaved in the order of the next stage.
BineAlltoall::ExchangePlan BineAlltoall::plan_exchange(const Tables& t, int holder,
                                                       int stage) const {
  const auto w = static_cast<BlockIndex>(work_region());
  const auto p = static_cast<BlockIndex>(per_);
  BlockIndex kept = 0, total = 0;
  for (std::uint32_t g : t.order[stage]) {
    const auto n = static_cast<BlockIndex>(width(item_at(t, holder, stage, g)));
    if (!moves(g, stage)) kept += n;
    total += n;
  }
  ExchangePlan plan;
  plan.sent = BlockSet::range(w + kept * p, w + total * p);
  plan.kept = BlockSet::range(w, w + kept * p);
  BlockIndex pos = 0;
  for (std::uint32_t g : t.order[stage + 1]) {
    const auto n = static_cast<BlockIndex>(width(item_at(t, holder, stage + 1, g)));
    (moves(g, stage) ? plan.arriving : plan.staying).add(w + pos * p, w + (pos + n) * p);
    pos += n;
  }
  return plan;
}

void BineAlltoall::exchange(int rank, int stage, Step& out) const {
  const long long distance = ones_value(bits_ - stage);
  const int peer = mod(rank % 2 == 0 ? rank + distance : rank - distance, butterfly_);
  const Tables& t = tables();
  const ExchangePlan plan = folded_ ? plan_exchange(t, rank, stage) : t.plans[stage];
  out.ops.push_back(Operation::send(peer, plan.sent));
  out.ops.push_back(Operation::recv(peer, plan.arriving, Combine::copy));
  if (!plan.kept.empty() && !(plan.kept == plan.staying))
    out.ops.push_back(Operation::local_copy(plan.kept, plan.staying));
}

// The final permutation: chunk (src, dst) to receive slot src; at Y the chunks for X go to
// staging in source order, with Y's own chunk for X.
void BineAlltoall::finish(int rank, Step& out) const {
  const Tables& t = tables();
  CopyList copies;
  const auto p = static_cast<BlockIndex>(per_);
  BlockIndex pos = 0;
  for (std::uint32_t g : t.order[bits_]) {
    const Item it = item_at(t, rank, bits_, g);
    for (int k = 0; k < group_size(it.src); ++k) {
      for (int m = 0; m < group_size(rank); ++m) {
        const int to_region = m == 0 ? recv_region() : staging_region();
        copies.add(slot(work_region(), 0) + pos * p, slot(to_region, member(it.src, k)), p);
        ++pos;
      }
    }
  }
  if (is_proxy(rank)) copies.add(slot(send_region(), extra_), slot(staging_region(), rank), p);
  copies.emit(out);
}

}  // namespace

SchedulePtr make_bine_alltoall(int ranks, int blocks_per_rank) {
  return std::make_unique<BineAlltoall>(ranks, blocks_per_rank);
}

}  // namespace topocoll::algorithms
