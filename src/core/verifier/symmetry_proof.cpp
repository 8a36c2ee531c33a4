#include "core/verifier/symmetry_proof.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <memory>
#include <mutex>
#include <vector>

#include "core/parallel_for.hpp"

namespace topocoll::detail {
namespace {

// Where rank `to` differs from rank `from` moved by g, or nullopt when it does not.
struct Difference {
  int lane = 0;
  int step = -1;
  std::string what;
};

class Comparer {
 public:
  // `describe`: whether a difference names the operations. A sampled candidate only needs to
  // know that one differs, and on a large schedule printing two block sets of millions of
  // ranges costs more than the whole comparison.
  Comparer(const Schedule& schedule, const TranslationGroup& group, const Translate& translate,
           bool describe)
      : schedule_(schedule),
        group_(group),
        translate_(translate),
        per_rank_(schedule.info().blocks_per_chunk()),
        describe_(describe) {}

  // Every lane step of `to` against the lane steps of `from` moved by g. `steps` counts the
  // lane steps compared.
  std::optional<Difference> compare(int from, int g, int to, std::uint64_t& steps) {
    const int lanes = schedule_.lane_count(from);
    if (schedule_.lane_count(to) != lanes)
      return Difference{0, -1, "it has " + std::to_string(schedule_.lane_count(to)) + " lanes"};
    for (int l = 0; l < lanes; ++l) {
      const int n = schedule_.lane_step_count(from, l);
      if (schedule_.lane_step_count(to, l) != n)
        return Difference{l, -1, "its lane has " + std::to_string(n) + " steps"};
      for (int k = 0; k < n; ++k) {
        ++steps;
        if (auto what = compare_step(from, g, to, l, k)) return Difference{l, k, *what};
      }
    }
    return std::nullopt;
  }

 private:
  std::optional<std::string> compare_step(int from, int g, int to, int l, int k) {
    a_.clear();
    b_.clear();
    schedule_.build_lane_step(from, l, k, a_);
    schedule_.build_lane_step(to, l, k, b_);
    if (a_.ops.size() != b_.ops.size())
      return std::to_string(b_.ops.size()) + " operations instead of " +
             std::to_string(a_.ops.size());
    if (a_.after != b_.after) return std::string("other lane dependencies");
    for (std::size_t i = 0; i < a_.ops.size(); ++i) {
      Operation moved = translate_(group_, g, a_.ops[i], per_rank_);
      Operation actual = b_.ops[i];
      actual.blocks.normalize();
      actual.source.normalize();
      // The path is for commutative reductions only, where the operand order is immaterial.
      moved.order = actual.order = OperandOrder::received_first;
      if (moved == actual) continue;
      if (!describe_) return "operation " + std::to_string(i) + " differs";
      return "operation " + std::to_string(i) + " is " + b_.ops[i].to_string() +
             " where the translate is " + moved.to_string();
    }
    return std::nullopt;
  }

  const Schedule& schedule_;
  const TranslationGroup& group_;
  const Translate& translate_;
  int per_rank_;
  bool describe_;
  Step a_, b_;
};

// Ranks a candidate translation is tried on before the proof: the first few, the middle, the
// last and a spread of others. A schedule without the symmetry shows it on one of them in
// practice; the proof over every rank decides.
std::vector<int> sample_ranks(int ranks) {
  std::vector<int> out = {0, 1, 2, 3, ranks / 2, ranks / 2 + 1, ranks - 1};
  for (int i = 1; i <= 5; ++i) out.push_back(static_cast<int>((ranks * 0.6180339887 * i)) % ranks);
  std::erase_if(out, [&](int r) { return r < 0 || r >= ranks; });
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Whether generator h maps the sampled ranks' steps onto those of their images.
bool sample_invariant(const Schedule& schedule, const TranslationGroup& whole, int h,
                      const Translate& translate) {
  if (!whole.keeps_aligned_runs(h)) return false;
  Comparer comparer(schedule, whole, translate, false);
  std::uint64_t steps = 0;
  for (int r : sample_ranks(schedule.ranks()))
    if (comparer.compare(r, h, whole.act(h, r), steps)) return false;
  return true;
}

// The translations of `whole` (every translation of its shape) that pass the sample: on a
// torus per dimension the smallest period whose shift does, on a hypercube every bit whose
// XOR does.
TranslationGroup candidate(const Schedule& schedule, const TranslationGroup& whole,
                           const Translate& translate) {
  if (whole.is_cube()) {
    std::uint32_t moved = 0;
    for (int j = 0; (1 << j) < whole.ranks(); ++j)
      if (sample_invariant(schedule, whole, 1 << j, translate)) moved |= 1U << j;
    return whole.with_moved(moved);
  }
  std::vector<int> periods;
  int stride = 1;
  for (const int n : whole.sizes()) {
    int period = n;
    for (int t = 1; t < n; ++t) {
      if (n % t != 0) continue;
      if (sample_invariant(schedule, whole, t * stride, translate)) {
        period = t;
        break;
      }
    }
    periods.push_back(period);
    stride *= n;
  }
  return whole.with_periods(periods);
}

// Every translation group and block layout the schedule's shape allows, and its own order of
// blocks (Schedule::block_ranks) where it has one.
std::vector<TranslationGroup> shapes(const Schedule& schedule) {
  const ScheduleInfo& info = schedule.info();
  long long product = 1;
  for (const int n : info.dims) product *= n;
  const std::vector<int> sizes =
      !info.dims.empty() && product == info.ranks ? info.dims : std::vector<int>{info.ranks};
  const std::vector<int> ones(sizes.size(), 1);
  const bool copies = info.blocks > info.ranks;
  std::vector<TranslationGroup> out;
  std::vector<BlockLayout> direct = {BlockLayout::owner_major};
  if (copies) direct.push_back(BlockLayout::copy_major);
  for (BlockLayout layout : direct) out.push_back(TranslationGroup::torus(sizes, ones, layout));
  const auto p = static_cast<unsigned>(info.ranks);
  if (std::has_single_bit(p)) {
    const int bits = std::countr_zero(p);
    for (BlockLayout layout : direct) out.push_back(TranslationGroup::hypercube(bits, ~0U, layout));
    out.push_back(TranslationGroup::hypercube(bits, ~0U, BlockLayout::copy_major_reversed));
    out.push_back(TranslationGroup::torus({info.ranks}, {1}, BlockLayout::copy_major_reversed, 2));
  }
  long long power = 1;
  while (power < info.ranks) power *= 3;
  if (power == info.ranks)
    out.push_back(TranslationGroup::torus({info.ranks}, {1}, BlockLayout::copy_major_reversed, 3));
  const std::vector<int> own = schedule.block_ranks();
  if (own.empty()) return out;
  const int radix = std::has_single_bit(p) ? 2 : 3;
  std::vector<TranslationGroup> plain = {TranslationGroup::torus(sizes, ones)};
  if (std::has_single_bit(p))
    plain.push_back(TranslationGroup::hypercube(std::countr_zero(p), ~0U));
  for (const TranslationGroup& group : plain)
    if (auto relabelled = group.with_block_ranks(own, radix)) out.push_back(std::move(*relabelled));
  if (auto grouped = plain.front().with_residue_groups(own)) out.push_back(std::move(*grouped));
  return out;
}

// Every rank against its representative moved by its element. Returns the first rank that
// differs (smallest among those the parallel workers reached) and its difference.
std::optional<std::pair<int, Difference>> prove_all(const Schedule& schedule,
                                                    const TranslationGroup& group, int threads,
                                                    const Translate& translate,
                                                    std::uint64_t& steps) {
  const int ranks = schedule.ranks();
  constexpr int kChunk = 256;
  const auto chunks = static_cast<std::size_t>((ranks + kChunk - 1) / kChunk);
  std::atomic<int> first_bad{ranks};
  std::atomic<std::uint64_t> compared{0};
  std::mutex mutex;
  std::optional<std::pair<int, Difference>> found;
  parallel_for(chunks, threads, [&](std::size_t c) {
    Comparer comparer(schedule, group, translate, true);
    std::uint64_t local = 0;
    const int end = std::min(ranks, static_cast<int>((c + 1) * kChunk));
    for (int r = static_cast<int>(c * kChunk); r < end && r < first_bad.load(); ++r) {
      const int rep = group.representative(r);
      if (rep == r) continue;
      auto d = comparer.compare(rep, group.element(r), r, local);
      if (!d) continue;
      const std::lock_guard lock(mutex);
      if (!found || r < found->first) found = std::pair{r, *d};
      first_bad = std::min(first_bad.load(), r);
      break;
    }
    compared += local;
  });
  steps = compared;
  return found;
}

std::string location(int rank, const Difference& d, int lanes) {
  std::string out = "rank " + std::to_string(rank);
  if (lanes > 1) out += " lane " + std::to_string(d.lane);
  if (d.step >= 0) out += " step " + std::to_string(d.step);
  return out;
}

}  // namespace

std::optional<std::string> symmetry_excluded(const ScheduleInfo& info,
                                             const VerifyOptions& options) {
  if (options.mode != VerifyMode::fingerprint) return "exact mode checks every block";
  if (!options.translation_symmetry) return "not requested";
  if (!options.commutative)
    return "a non-commutative reduction fixes the rank order 0..P-1, which translations move";
  const Collective c = info.collective;
  if (c != Collective::allreduce && c != Collective::reduce_scatter && c != Collective::allgather)
    return "the post-condition of " + std::string(collective_name(c)) +
           " does not commute with translations";
  if (info.ranks < 2) return "a single rank";
  if (info.blocks % info.ranks != 0) return "the blocks are not a multiple of the ranks";
  if (info.total_slots() != info.blocks) return "the schedule uses scratch slots";
  if (!info.keeps_positions) return "the schedule moves data between slots";
  return std::nullopt;
}

VerifySymmetry find_verify_symmetry(const Schedule& schedule, int threads,
                                    const Translate& translate, bool prove) {
  const ScheduleInfo& info = schedule.info();
  VerifySymmetry out;
  out.per_rank = info.blocks / std::max(info.ranks, 1);
  out.proven = true;  // unless only sampled, below
  std::optional<TranslationGroup> best;
  for (const TranslationGroup& whole : shapes(schedule)) {
    TranslationGroup found = candidate(schedule, whole, translate);
    if (!best || found.order() > best->order()) best = std::move(found);
  }
  if (best->order() == 1) {
    out.description =
        "no translation symmetry (no translation of the ring, torus or hypercube maps the "
        "steps of the sampled ranks onto each other): full verification";
    return out;
  }
  if (!prove) {
    out.proven = false;
    out.checked = best->orbit_blocks(out.per_rank);
    out.description = "translation symmetry on a sample of ranks: " + best->describe() +
                      " (the run proves it for every rank, and checks every block if one "
                      "differs)";
    out.group = std::move(best);
    return out;
  }
  if (auto bad =
          prove_all(schedule, *best, resolve_threads(threads), translate, out.proof_rank_steps)) {
    const auto& [rank, d] = *bad;
    out.description = "no translation symmetry (" + location(rank, d, schedule.lane_count(rank)) +
                      " is not the translate of rank " +
                      std::to_string(best->representative(rank)) + "'s under the " +
                      best->describe() + ": " + d.what + "): full verification";
    return out;
  }
  out.checked = best->orbit_blocks(out.per_rank);
  BlockSet checked;
  for (const BlockRange& r : out.checked) checked.add(r.begin, r.end);
  out.description = "translation symmetry: " + best->describe() + ", proven for every rank; " +
                    std::to_string(info.ranks / best->order()) + " orbit(s) of ranks, checking " +
                    std::to_string(checked.block_count()) + " of " + std::to_string(info.blocks) +
                    " blocks (" + checked.to_string() + ")";
  out.group = std::move(best);
  return out;
}

VerifySymmetry find_verify_symmetry(const Schedule& schedule, int threads, bool prove) {
  const Translate act = [](const TranslationGroup& group, int g, const Operation& op,
                           int per_rank) { return group.act(g, op, per_rank); };
  // A schedule held in memory may be edited between two verifications: never cached.
  if (dynamic_cast<const ExplicitSchedule*>(&schedule) != nullptr)
    return find_verify_symmetry(schedule, threads, act, prove);
  static std::mutex mutex;
  // Per schedule, the proven result, or the sampled one while none is proven.
  static std::vector<std::pair<std::uint64_t, std::shared_ptr<const VerifySymmetry>>> cache;
  {
    const std::lock_guard lock(mutex);
    for (const auto& [serial, entry] : cache)
      if (serial == schedule.serial() && (!prove || entry->proven)) return *entry;
  }
  auto entry =
      std::make_shared<const VerifySymmetry>(find_verify_symmetry(schedule, threads, act, prove));
  const std::lock_guard lock(mutex);
  std::erase_if(cache, [&](const auto& e) { return e.first == schedule.serial(); });
  constexpr std::size_t kEntries = 8;  // an estimate and its run, with room to spare
  if (cache.size() == kEntries) cache.erase(cache.begin());
  cache.emplace_back(schedule.serial(), entry);
  return *entry;
}

VerifySymmetry symmetry_for(const Schedule& schedule, const VerifyOptions& options, bool prove) {
  if (auto why = symmetry_excluded(schedule.info(), options)) {
    VerifySymmetry out;
    out.description = "no translation symmetry (" + *why + "): full verification";
    return out;
  }
  return find_verify_symmetry(schedule, options.threads, prove);
}

}  // namespace topocoll::detail
