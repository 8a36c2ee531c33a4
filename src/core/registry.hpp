#pragma once
// The algorithm registry: what each algorithm is, what it needs (as data), and how to build
// its schedule. Callers never branch on algorithm names; they ask the registry.
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/schedule.hpp"

namespace topocoll {

// Raised for a request an algorithm cannot serve; the message names the reason and the
// accepted values. The CLI maps it to exit code 2.
class UnsupportedRequest : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct ScheduleRequest {
  Collective collective = Collective::allreduce;
  int ranks = 0;
  std::vector<int> dims;  // empty or {P}: a ring; otherwise a torus with product == ranks
  int ports = 0;          // 0: the algorithm's default for the shape
  int root = 0;
  bool commutative = true;  // whether the reduction operator commutes
  // K: ranks per node, P = N nodes x K (rank r on node r / K). Flat algorithms ignore it; the
  // compositions (hier:INNER, leader:INNER) run their inner algorithm on the N nodes.
  int ranks_per_node = 1;
};

enum class RankRule { any, even, power_of_two, power_of_three };
// How many dimensions: a ring (one size), a torus of any number of dimensions, or exactly two.
enum class DimsRule { ring_only, any_torus, two_dimensional };
// What every side of the shape must be; a ring of P ranks is one side of P.
enum class SideRule {
  any,
  even,              // every side even or 1 (the Bine torus variants)
  binary_cube,       // a ring, or every side 2 (2x2x...x2): the hypercube algorithms
  power_of_two,      // a ring of any size (the rank rule applies), or power-of-two torus sides
  hamiltonian_pair,  // 2D R x C with R = k*C, gcd(R, C-1) = 1 either way round (hamiltonian-rings)
  some_odd,          // at least one side odd and >= 3 (the odd-side folds)
  some_just_above_power_of_three,  // a side n with 3^k < n <= 3^k + 3^(k-1), k >= 2
};
// Which collectives read the request's root: only the rooted ones (bcast, reduce, gather,
// scatter), or every collective of the algorithm (those that collect at a root first).
enum class RootUse { rooted_collectives, every_collective };

// Accepted port counts: 1, plus (optional) 2 (both ring directions), D (one per dimension),
// 2D (both directions of every dimension), for a torus of D dimensions.
struct PortsRule {
  bool one = true;
  bool two = false;
  bool per_dimension = false;
  bool two_per_dimension = false;
  enum class Default { one, two, per_dimension, two_per_dimension } default_ports = Default::one;
};

// Everything a request must satisfy, as data: Registry::rejection checks it before building,
// and `topocoll algorithms --json` states it, so a caller never has to try.
struct Requirements {
  int min_ranks = 2;
  RankRule ranks = RankRule::any;
  DimsRule dims = DimsRule::ring_only;
  SideRule sides = SideRule::any;
  PortsRule ports;
  bool commutative_op = false;  // the algorithm reorders operands
  // Keeps rank order only on a ring with one port: on a torus or with several ports (lanes that
  // combine partial results out of order) the operator must commute.
  bool commutative_op_beyond_one_port_ring = false;
  RootUse root = RootUse::rooted_collectives;
};

[[nodiscard]] std::string_view rank_rule_name(RankRule rule);
[[nodiscard]] std::string_view side_rule_name(SideRule rule);
// The port counts of a rule as symbols of the dimension count D: "1", "2", "D", "2D".
[[nodiscard]] std::vector<std::string> ports_rule_symbols(const PortsRule& rule);
[[nodiscard]] std::string_view default_ports_symbol(const PortsRule& rule);

struct AlgorithmInfo {
  std::string name;     // e.g. "swing-bw"
  std::string family;   // e.g. "swing"
  std::string variant;  // e.g. "bandwidth-optimal"
  std::string paper;    // e.g. "swing-nsdi24.txt sections 3.1.1, 4"
  std::string summary;  // one line for `topocoll algorithms`
  // A state-of-the-art algorithm a paper compares its own against (compare's gain is the best
  // paper algorithm over the best baseline).
  bool baseline = false;
  std::vector<Collective> collectives;
  Requirements requirements;
  // Builds the schedule for a request that passed the data requirements. Only limits of size
  // (more blocks than a schedule can index) may still be refused here; every rule of shape,
  // ports, operator and root is in `requirements`.
  std::function<SchedulePtr(const ScheduleRequest&)> build;
  // Compositions only: which form of which registry algorithm this is. Their requirements
  // above hold for the composed request; `further_rejection` applies the inner algorithm's own
  // requirements to the node count (its reason, or nullopt).
  struct Composition {
    std::string form;   // "hier", "leader"
    std::string inner;  // the registry name of the inner algorithm
  };
  std::optional<Composition> composition;
  std::function<std::optional<std::string>(const ScheduleRequest&)> further_rejection;

  [[nodiscard]] bool supports(Collective c) const;
  [[nodiscard]] std::vector<int> accepted_ports(int dimensions) const;
  [[nodiscard]] int default_ports(int dimensions) const;
  // Whether the request's root matters (and must be in 0..P-1) for collective c.
  [[nodiscard]] bool uses_root(Collective c) const;
};

// A template that builds a schedule out of a registry algorithm: FORM:INNER names it.
struct CompositionForm {
  std::string name;  // the prefix: "hier", "leader"
  std::string paper;
  std::string summary;
  std::vector<Collective> collectives;  // those the form defines (the inner must have them too)
};

class Registry {
 public:
  void add(AlgorithmInfo info);
  // The flat algorithms (compositions are listed apart, below).
  [[nodiscard]] const std::vector<AlgorithmInfo>& all() const { return algorithms_; }
  // The composition templates, and one entry FORM:INNER per form and registry algorithm that
  // shares a collective with it (whether it runs on a given node count is for `rejection`).
  void add_composition_form(CompositionForm form);
  void add_composition(AlgorithmInfo info);
  [[nodiscard]] const std::vector<CompositionForm>& composition_forms() const { return forms_; }
  [[nodiscard]] const std::vector<AlgorithmInfo>& compositions() const { return compositions_; }
  // Flat algorithms and compositions.
  [[nodiscard]] const AlgorithmInfo* find(std::string_view name) const;
  [[nodiscard]] const AlgorithmInfo& get(std::string_view name) const;  // throws with the list
  [[nodiscard]] std::vector<const AlgorithmInfo*> for_collective(Collective c) const;
  [[nodiscard]] std::string names() const;

  // The reason the request cannot be served, naming the accepted values; nullopt if it can.
  [[nodiscard]] static std::optional<std::string> rejection(const AlgorithmInfo& algo,
                                                            const ScheduleRequest& request);
  // Checks, fills defaults (ports, dims) and builds. Throws UnsupportedRequest.
  [[nodiscard]] SchedulePtr build(std::string_view name, ScheduleRequest request) const;

 private:
  std::vector<AlgorithmInfo> algorithms_;
  std::vector<CompositionForm> forms_;
  std::vector<AlgorithmInfo> compositions_;
};

// The registry with every algorithm of topocoll.
[[nodiscard]] const Registry& registry();

// Normalizes a request's shape: empty dims become {ranks}; ranks 0 becomes the product.
// Throws UnsupportedRequest when the two disagree or a dimension is < 1.
void normalize_shape(ScheduleRequest& request);

// The info of a schedule built for `request`: its ranks, shape and root, with the collective,
// name, block count and ports the algorithm chose.
[[nodiscard]] ScheduleInfo info_for(const ScheduleRequest& request, std::string algorithm,
                                    Collective collective, int blocks, int ports);

}  // namespace topocoll
