#include "sim/translation_symmetry.hpp"

#include <algorithm>
#include <mutex>
#include <string>
#include <utility>

namespace topocoll::sim {
namespace {

std::uint64_t mix64(std::uint64_t z) {  // splitmix64's finalizer
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The grid of hosts a translatable network is built on (Topology::translatable): host ids in
// mixed radix of the grid's sizes, dimension 0 fastest.
class Lattice {
 public:
  explicit Lattice(const topo::Topology& topology) : sizes_(topology.grid_dims()) {
    int stride = 1;
    for (std::size_t d = 0; d < sizes_.size(); ++d) {
      strides_.push_back(stride);
      steps_.push_back(topology.translation_step(static_cast<int>(d)));
      stride *= sizes_[d];
    }
    hosts_ = stride;
    // Coordinates are read for every operation of every rank-step the search hashes: a table
    // instead of a division per dimension (perf: the divisions were most of the search's own
    // time on hamiltonian-rings 32x32).
    coordinates_.resize(static_cast<std::size_t>(hosts_) * sizes_.size());
    for (int h = 0; h < hosts_; ++h)
      for (std::size_t d = 0; d < sizes_.size(); ++d)
        coordinates_[static_cast<std::size_t>(h) * sizes_.size() + d] =
            (h / strides_[d]) % sizes_[d];
  }
  [[nodiscard]] int dimensions() const { return static_cast<int>(sizes_.size()); }
  [[nodiscard]] int size(int dim) const { return sizes_[static_cast<std::size_t>(dim)]; }
  [[nodiscard]] int stride(int dim) const { return strides_[static_cast<std::size_t>(dim)]; }
  [[nodiscard]] int coordinate(int host, int dim) const {
    return coordinates_[static_cast<std::size_t>(host) * sizes_.size() +
                        static_cast<std::size_t>(dim)];
  }
  [[nodiscard]] int host_count() const { return hosts_; }
  // Translations along `dim` are multiples of this (a HammingMesh moves by whole boards).
  [[nodiscard]] int step(int dim) const { return steps_[static_cast<std::size_t>(dim)]; }
  [[nodiscard]] const std::vector<int>& steps() const { return steps_; }

 private:
  std::vector<int> sizes_;
  std::vector<int> strides_;
  std::vector<int> steps_;
  std::vector<int> coordinates_;  // per host, per dimension
  int hosts_ = 1;
};

// Two independent 64-bit hashes of a rank's step sequence: equal signatures stand for equal
// sequences (a false match among the 2^128 values is out of reach of any grid we can build).
struct Signature {
  std::uint64_t a = 0x9e3779b97f4a7c15ULL;
  std::uint64_t b = 0xd1b54a32d192ed03ULL;
  void add(std::uint64_t x) {
    a = mix64(a ^ (x + 0x632be59bd9b4e019ULL));
    b = mix64((b + x) * 0xff51afd7ed558ccdULL + 0x2545f4914f6cdd1dULL);
  }
  bool operator==(const Signature&) const = default;
};

// The offset from host `from` to host `to` as one number: per dimension (to - from) mod size.
std::uint64_t displacement(const Lattice& grid, int from, int to) {
  std::uint64_t d = 0;
  for (int dim = grid.dimensions() - 1; dim >= 0; --dim) {
    const int n = grid.size(dim);
    const int delta = grid.coordinate(to, dim) - grid.coordinate(from, dim);
    d = d * static_cast<std::uint64_t>(n) +
        static_cast<std::uint64_t>(delta < 0 ? delta + n : delta);
  }
  return d;
}

// What the engine sees of a send's block set (RangeView). A range that wraps around block 0 is
// two ranges where its translates are one (bruck-bw, trivance-bw, bine-bw-two): with one message
// per send and free packing the two runs are the same, so only what the engine charges is hashed.
void add_send_blocks(Signature& sig, const BlockSet& blocks, RangeView view) {
  switch (view) {
    case RangeView::each_range:
      sig.add(blocks.range_count());
      for (const auto& r : blocks.ranges()) sig.add(r.size());
      return;
    case RangeView::packed:
      sig.add(blocks.range_count() > 1 ? 1 : 0);
      sig.add(blocks.block_count());
      return;
    case RangeView::total: sig.add(blocks.block_count()); return;
  }
}

// What the flow model sees of a rank's step k, relative to its host: its operations in
// posting order with their kind, port, peer offset, the blocks of every message (RangeView) and
// the block count of every reduction. With equal blocks, bytes are block counts times one block
// size.
void add_step(Signature& sig, const Schedule& schedule, const Lattice& grid,
              std::span<const int> host_of, RangeView view, int rank, int k, Step& step) {
  const int host = host_of[static_cast<std::size_t>(rank)];
  step.clear();
  schedule.build_step(rank, k, step);
  sig.add(0xabcdef0000000000ULL + step.ops.size());
  for (const Operation& op : step.ops) {
    sig.add(static_cast<std::uint64_t>(op.kind) | static_cast<std::uint64_t>(op.combine) << 8 |
            static_cast<std::uint64_t>(op.port) << 16);
    if (op.kind != OpKind::copy) {
      if (op.peer < 0 || op.peer >= schedule.ranks()) {
        sig.add(~0ULL);  // the engine refuses it; no symmetry is claimed for it
        continue;
      }
      sig.add(displacement(grid, host, host_of[static_cast<std::size_t>(op.peer)]));
    }
    if (op.kind == OpKind::send) add_send_blocks(sig, op.blocks, view);
    if (op.combine == Combine::reduce && op.kind != OpKind::send) sig.add(op.blocks.block_count());
  }
}

// Host h moved by `by` along dimension `dim`.
int shift_along(const Lattice& grid, int host, int dim, int by) {
  const int n = grid.size(dim);
  const int x = grid.coordinate(host, dim);
  const int moved = x + by >= n ? x + by - n : x + by;  // by is in [0, n)
  return host + (moved - x) * grid.stride(dim);
}

// Host h moved by a translation given per dimension (each offset in [0, size)).
int translate(const Lattice& grid, int host, std::span<const int> offset) {
  for (int d = 0; d < grid.dimensions(); ++d)
    if (offset[static_cast<std::size_t>(d)] != 0)
      host = shift_along(grid, host, d, offset[static_cast<std::size_t>(d)]);
  return host;
}

// Smallest t dividing the dimension's size (a multiple of its step) such that moving every
// host by t along it maps every host's signature onto an equal one.
int period_along(const Lattice& grid, const std::vector<Signature>& by_host, int dim) {
  const int n = grid.size(dim);
  for (int t = grid.step(dim); t < n; t += grid.step(dim)) {
    if (n % t != 0) continue;
    bool invariant = true;
    for (int h = 0; h < grid.host_count() && invariant; ++h)
      invariant = by_host[static_cast<std::size_t>(h)] ==
                  by_host[static_cast<std::size_t>(shift_along(grid, h, dim, t))];
    if (invariant) return t;
  }
  return n;
}

// The translations found so far: the axis subgroup (multiples of a period per dimension) and
// the translations that move along several dimensions at once, as their offsets inside the
// box of the periods (every translation of the group is one of these plus an axis one). Hamiltonian
// cycles on a torus repeat along a diagonal only, which no axis period sees.
struct Group {
  std::vector<int> periods;
  std::vector<std::vector<int>> cosets;  // offsets in [0, period) per dimension, not all zero
};

bool trivial(const Lattice& grid, const Group& group) {
  if (!group.cosets.empty()) return false;
  for (int dim = 0; dim < grid.dimensions(); ++dim)
    if (group.periods[static_cast<std::size_t>(dim)] != grid.size(dim)) return false;
  return true;
}

// Comparisons of signatures the search of diagonal translations may spend: past it only the
// axis periods are kept (still exact, a smaller reduction).
constexpr std::int64_t kCosetSearchWork = 100'000'000;

class CosetSearch {
 public:
  CosetSearch(const Lattice& grid, const std::vector<Signature>& by_host)
      : grid_(grid), by_host_(by_host) {}

  // Every offset of the box of `periods` that is `old` plus a multiple of the old periods
  // (old's cosets split when a period grows) and still maps every signature onto an equal one.
  [[nodiscard]] std::vector<std::vector<int>> refine(const Group& old,
                                                     const std::vector<int>& periods) {
    std::vector<std::vector<int>> out;
    if (given_up_) return out;
    std::vector<std::vector<int>> starts = old.cosets;
    starts.emplace_back(periods.size(), 0);
    for (const auto& start : starts) {
      std::vector<int> offset = start;
      while (true) {
        if (std::any_of(offset.begin(), offset.end(), [](int x) { return x != 0; }) &&
            invariant(offset))
          out.push_back(offset);
        if (given_up_) return {};
        if (!next(offset, start, old.periods, periods)) break;
      }
    }
    return out;
  }

 private:
  // The next of start + k * step below `limit` per dimension (k >= 0), odometer order.
  static bool next(std::vector<int>& offset, const std::vector<int>& start,
                   const std::vector<int>& step, const std::vector<int>& limit) {
    for (std::size_t d = 0; d < offset.size(); ++d) {
      offset[d] += step[d];
      if (offset[d] < limit[d]) return true;
      offset[d] = start[d];
    }
    return false;
  }

  bool invariant(const std::vector<int>& offset) {
    for (int h = 0; h < grid_.host_count(); ++h) {
      if (++work_ > kCosetSearchWork) {
        given_up_ = true;
        return false;
      }
      if (!(by_host_[static_cast<std::size_t>(h)] ==
            by_host_[static_cast<std::size_t>(translate(grid_, h, offset))]))
        return false;
    }
    return true;
  }

  const Lattice& grid_;
  const std::vector<Signature>& by_host_;
  std::int64_t work_ = 0;
  bool given_up_ = false;
};

// Every host's signature grows one step at a time, across all ranks. A translation that maps
// the signatures of the first steps apart cannot map the whole runs onto each other, so the
// search stops at the first step after which no translation is left (a schedule without
// symmetry usually shows it in its first steps, and reading the rest would be wasted). The
// axis periods are checked after every step; the diagonal cosets when a period grows, after
// steps 1, 2, 4, 8, ... (enough to stop early) and after the last step.
Group search_group(const Schedule& schedule, const Lattice& grid, std::span<const int> host_of,
                   RangeView view) {
  Signature empty;  // hosts without a rank
  empty.add(~0ULL);
  std::vector<Signature> by_host(static_cast<std::size_t>(grid.host_count()), empty);
  int most_steps = 0;
  for (int r = 0; r < schedule.ranks(); ++r) {
    const int steps = schedule.step_count(r);
    Signature& sig = by_host[static_cast<std::size_t>(host_of[static_cast<std::size_t>(r)])];
    sig = Signature{};
    sig.add(static_cast<std::uint64_t>(steps));
    most_steps = std::max(most_steps, steps);
  }
  Group group{grid.steps(), {}};
  CosetSearch cosets(grid, by_host);
  Step step;
  for (int k = 0; k <= most_steps; ++k) {
    std::vector<int> periods(static_cast<std::size_t>(grid.dimensions()));
    for (int dim = 0; dim < grid.dimensions(); ++dim)
      periods[static_cast<std::size_t>(dim)] = period_along(grid, by_host, dim);
    const bool checkpoint = k == most_steps || (k & (k - 1)) == 0;
    if (periods != group.periods || (checkpoint && !group.cosets.empty()))
      group = {periods, cosets.refine(group, periods)};
    if (k == most_steps || trivial(grid, group)) break;
    for (int r = 0; r < schedule.ranks(); ++r)
      if (k < schedule.step_count(r))
        add_step(by_host[static_cast<std::size_t>(host_of[static_cast<std::size_t>(r)])], schedule,
                 grid, host_of, view, r, k, step);
  }
  return group;
}

// Searches are cached per schedule object, network and placement: a compare sweep asks again
// for every vector size.
struct CacheEntry {
  std::uint64_t schedule = 0;
  std::string network;
  RangeView view = RangeView::each_range;
  std::vector<int> host_of;
  Group group;
};

Group cached_group(const Schedule& schedule, const topo::Topology& topology, const Lattice& grid,
                   const topo::Router& router, std::span<const int> host_of, RangeView view) {
  static std::mutex mutex;
  static std::vector<CacheEntry> cache;
  const std::string network = topology.spec() + "|" + router.name();
  auto matches = [&](const CacheEntry& e) {
    return e.schedule == schedule.serial() && e.network == network && e.view == view &&
           std::equal(e.host_of.begin(), e.host_of.end(), host_of.begin(), host_of.end());
  };
  {
    const std::lock_guard lock(mutex);
    for (const CacheEntry& e : cache)
      if (matches(e)) return e.group;
  }
  Group group = search_group(schedule, grid, host_of, view);
  const std::lock_guard lock(mutex);
  constexpr std::size_t kEntries = 32;  // a compare sweep's algorithms, with room to spare
  if (cache.size() == kEntries) cache.erase(cache.begin());
  cache.push_back({schedule.serial(), network, view, {host_of.begin(), host_of.end()}, group});
  return group;
}

}  // namespace

RangeView range_view(const SimConfig& config, const topo::Topology& topology) {
  if (config.message_per_range) return RangeView::each_range;
  const topo::HostCosts* intra = topology.intra_node_host_costs();
  const bool packing = topology.params().host.copy_s_per_byte > 0 ||
                       (intra != nullptr && intra->copy_s_per_byte > 0);
  return packing ? RangeView::packed : RangeView::total;
}

bool TranslationSymmetry::qualifies(const topo::Topology& topology, const topo::Router& router,
                                    bool equal_blocks) {
  if (!equal_blocks || !topology.translatable() || !router.commutes_with_translations())
    return false;
  long long hosts = 1;
  for (const int n : topology.grid_dims()) hosts *= n;
  return !topology.grid_dims().empty() && hosts == topology.host_count();
}

std::optional<TranslationSymmetry> TranslationSymmetry::find(const Schedule& schedule,
                                                             const topo::Topology& topology,
                                                             const topo::Router& router,
                                                             std::span<const int> host_of,
                                                             bool equal_blocks, RangeView ranges) {
  if (!qualifies(topology, router, equal_blocks)) return std::nullopt;
  const Lattice grid(topology);
  const Group group = cached_group(schedule, topology, grid, router, host_of, ranges);
  if (trivial(grid, group)) return std::nullopt;
  return TranslationSymmetry(topology, group.periods, group.cosets);
}

// Each host's orbit meets the box of the periods in the points b + c (mod the periods), c
// running over the cosets and 0; the orbit's representative is the smallest host among them.
TranslationSymmetry::TranslationSymmetry(const topo::Topology& topology,
                                         const std::vector<int>& periods,
                                         const std::vector<std::vector<int>>& cosets)
    : topology_(&topology), dims_(static_cast<int>(topology.grid_dims().size())) {
  const Lattice grid(topology);
  group_size_ = static_cast<std::int64_t>(cosets.size()) + 1;
  for (int d = 0; d < dims_; ++d)
    group_size_ *= grid.size(d) / periods[static_cast<std::size_t>(d)];
  const auto hosts = static_cast<std::size_t>(grid.host_count());
  representative_.resize(hosts);
  translation_.resize(hosts * static_cast<std::size_t>(dims_));
  std::vector<int> box(static_cast<std::size_t>(dims_)), best(box.size()), point(box.size());
  for (std::size_t h = 0; h < hosts; ++h) {
    for (int d = 0; d < dims_; ++d)
      box[static_cast<std::size_t>(d)] =
          grid.coordinate(static_cast<int>(h), d) % periods[static_cast<std::size_t>(d)];
    int rep = -1;
    auto consider = [&](const std::vector<int>* coset) {
      int host = 0;
      for (int d = 0; d < dims_; ++d) {
        const auto i = static_cast<std::size_t>(d);
        point[i] = (box[i] + (coset ? (*coset)[i] : 0)) % periods[i];
        host += point[i] * grid.stride(d);
      }
      if (rep < 0 || host < rep) {
        rep = host;
        best = point;
      }
    };
    consider(nullptr);
    for (const auto& c : cosets) consider(&c);
    representative_[h] = rep;
    for (int d = 0; d < dims_; ++d) {
      const int n = grid.size(d);
      translation_[h * static_cast<std::size_t>(dims_) + static_cast<std::size_t>(d)] =
          ((best[static_cast<std::size_t>(d)] - grid.coordinate(static_cast<int>(h), d)) % n + n) %
          n;
    }
  }
}

bool TranslationSymmetry::in_domain(int host) const {
  return representative_[static_cast<std::size_t>(host)] == host;
}

std::span<const int> TranslationSymmetry::translation_of(int host) const {
  return {translation_.data() + static_cast<std::size_t>(host) * static_cast<std::size_t>(dims_),
          static_cast<std::size_t>(dims_)};
}

int TranslationSymmetry::shift_like(int host, int reference) const {
  return topology_->translated_node(host, translation_of(reference));
}

int TranslationSymmetry::link_representative(int link) const {
  return topology_->translated_link(link, translation_of(topology_->link_host(link)));
}

void OrbitRouter::route_set(int src, int dst, topo::RouteSet& out) const {
  inner_.route_set(src, dst, out);
  for (int& l : out.links) l = symmetry_.link_representative(l);
}

}  // namespace topocoll::sim
