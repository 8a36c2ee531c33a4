#pragma once
// Translation symmetry of a flow-model run on a torus, hypercube, HyperX or HammingMesh
// (docs/simulator-engines.md, "Symmetry"). When moving every host by a translation g of the grid
// maps the run onto itself (the rank on host h+g runs the steps of the rank on h with every peer
// moved by g and the same bytes, and routes move with their hosts), every state of the run is
// g-invariant: the ranks of an orbit finish together and the flows of an orbit share bandwidth at
// the same rate. The flow model then simulates one host per orbit (the domain: a representative per
// orbit) on the links of one orbit each, where a flow that crosses k links of an orbit carries k
// times its load. Nothing is assumed about the algorithm: the search compares every rank's steps.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "core/schedule.hpp"
#include "sim/simulate.hpp"
#include "topology/routing.hpp"
#include "topology/topology.hpp"

namespace topocoll::sim {

// How much of a send's block set the run can tell apart, and so how much of it the signature
// of a step must hold. Under SimConfig::message_per_range every range is a message of its own;
// otherwise a send is one message of its total bytes, and its ranges matter only through the
// copy that packs and unpacks a message of several ranges, when host costs charge copies.
enum class RangeView : std::uint8_t {
  each_range,  // every range's block count (one message per range)
  packed,      // the total block count and whether there are several ranges (packing is charged)
  total,       // the total block count only (a send is one message, packing is free)
};

// The view the engine's run takes of ranges under `config` on `topology`'s host costs.
[[nodiscard]] RangeView range_view(const SimConfig& config, const topo::Topology& topology);

class TranslationSymmetry {
 public:
  // The largest group of translations the run is invariant under, or nullopt
  // when it is only the identity or the run does not qualify (not a translatable network, a
  // router that does not commute with translations, or blocks of unequal sizes). `host_of`
  // places rank r on host host_of[r]. The search reads every step of every rank once per
  // schedule object and mapping; the result is cached, since with equal blocks the bytes of a
  // message are its block count times the block size at every vector size.
  [[nodiscard]] static std::optional<TranslationSymmetry> find(const Schedule& schedule,
                                                               const topo::Topology& topology,
                                                               const topo::Router& router,
                                                               std::span<const int> host_of,
                                                               bool equal_blocks,
                                                               RangeView ranges);

  // Whether a run on this network and router can have a symmetry at all: a translatable
  // network (Topology::translatable) with a host on every point of its grid, a router that
  // commutes with its translations, and blocks of equal sizes.
  [[nodiscard]] static bool qualifies(const topo::Topology& topology, const topo::Router& router,
                                      bool equal_blocks);

  [[nodiscard]] std::int64_t group_size() const { return group_size_; }
  // Whether `host` is its orbit's representative (the smallest host of its orbit inside the
  // box of the axis periods).
  [[nodiscard]] bool in_domain(int host) const;
  // `host` moved by the translation that takes `reference` to its representative.
  [[nodiscard]] int shift_like(int host, int reference) const;
  [[nodiscard]] int representative(int host) const {
    return representative_[static_cast<std::size_t>(host)];
  }
  // The link of the domain's orbit copy that `link` translates to.
  [[nodiscard]] int link_representative(int link) const;

 private:
  TranslationSymmetry(const topo::Topology& topology, const std::vector<int>& periods,
                      const std::vector<std::vector<int>>& cosets);
  [[nodiscard]] std::span<const int> translation_of(int host) const;

  const topo::Topology* topology_;
  int dims_ = 0;
  std::int64_t group_size_ = 1;
  std::vector<int> representative_;  // per host
  std::vector<int> translation_;     // per host, per dimension: the offset to its representative
};

// A router whose paths are those of `inner` with every link replaced by its orbit's
// representative: the links of the reduced flow model.
class OrbitRouter final : public topo::Router {
 public:
  OrbitRouter(const topo::Router& inner, const TranslationSymmetry& symmetry)
      : inner_(inner), symmetry_(symmetry) {}
  void route_set(int src, int dst, topo::RouteSet& out) const override;
  [[nodiscard]] std::string name() const override { return inner_.name(); }

 private:
  const topo::Router& inner_;
  const TranslationSymmetry& symmetry_;
};

}  // namespace topocoll::sim
