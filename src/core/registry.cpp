#include "core/registry.hpp"

#include <algorithm>
#include <bit>
#include <numeric>
#include <string_view>

#include "algorithms/families.hpp"
#include "algorithms/hierarchical/hierarchical.hpp"
#include "core/rank_math.hpp"

namespace topocoll {

bool AlgorithmInfo::supports(Collective c) const {
  return std::find(collectives.begin(), collectives.end(), c) != collectives.end();
}

std::vector<int> AlgorithmInfo::accepted_ports(int dimensions) const {
  const PortsRule& rule = requirements.ports;
  std::vector<int> out;
  if (rule.one) out.push_back(1);
  if (rule.two) out.push_back(2);
  if (rule.per_dimension) out.push_back(dimensions);
  if (rule.two_per_dimension) out.push_back(2 * dimensions);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

int AlgorithmInfo::default_ports(int dimensions) const {
  switch (requirements.ports.default_ports) {
    case PortsRule::Default::one: return 1;
    case PortsRule::Default::two: return 2;
    case PortsRule::Default::per_dimension: return dimensions;
    case PortsRule::Default::two_per_dimension: return 2 * dimensions;
  }
  return 1;
}

bool AlgorithmInfo::uses_root(Collective c) const {
  return is_rooted(c) || requirements.root == RootUse::every_collective;
}

std::string_view rank_rule_name(RankRule rule) {
  switch (rule) {
    case RankRule::any: return "any";
    case RankRule::even: return "even";
    case RankRule::power_of_two: return "power-of-two";
    case RankRule::power_of_three: return "power-of-three";
  }
  return "any";
}

std::string_view side_rule_name(SideRule rule) {
  switch (rule) {
    case SideRule::any: return "any";
    case SideRule::even: return "even";
    case SideRule::binary_cube: return "binary-cube";
    case SideRule::power_of_two: return "power-of-two";
    case SideRule::hamiltonian_pair: return "hamiltonian-pair";
    case SideRule::some_odd: return "some-odd";
    case SideRule::some_just_above_power_of_three: return "some-just-above-power-of-three";
  }
  return "any";
}

std::vector<std::string> ports_rule_symbols(const PortsRule& rule) {
  std::vector<std::string> out;
  if (rule.one) out.emplace_back("1");
  if (rule.two) out.emplace_back("2");
  if (rule.per_dimension) out.emplace_back("D");
  if (rule.two_per_dimension) out.emplace_back("2D");
  return out;
}

std::string_view default_ports_symbol(const PortsRule& rule) {
  switch (rule.default_ports) {
    case PortsRule::Default::one: return "1";
    case PortsRule::Default::two: return "2";
    case PortsRule::Default::per_dimension: return "D";
    case PortsRule::Default::two_per_dimension: return "2D";
  }
  return "1";
}

void Registry::add(AlgorithmInfo info) { algorithms_.push_back(std::move(info)); }

void Registry::add_composition_form(CompositionForm form) { forms_.push_back(std::move(form)); }

void Registry::add_composition(AlgorithmInfo info) { compositions_.push_back(std::move(info)); }

const AlgorithmInfo* Registry::find(std::string_view name) const {
  for (const auto& a : algorithms_)
    if (a.name == name) return &a;
  for (const auto& a : compositions_)
    if (a.name == name) return &a;
  return nullptr;
}

const AlgorithmInfo& Registry::get(std::string_view name) const {
  if (const auto* a = find(name)) return *a;
  std::string forms;
  for (const auto& f : forms_) forms += (forms.empty() ? "" : ", ") + f.name + ":INNER";
  throw UnsupportedRequest("unknown algorithm '" + std::string(name) + "'; accepted: " + names() +
                           (forms.empty() ? "" : "; or " + forms + " with INNER one of those"));
}

std::vector<const AlgorithmInfo*> Registry::for_collective(Collective c) const {
  std::vector<const AlgorithmInfo*> out;
  for (const auto& a : algorithms_)
    if (a.supports(c)) out.push_back(&a);
  return out;
}

std::string Registry::names() const {
  std::string out;
  for (const auto& a : algorithms_) {
    if (!out.empty()) out += ", ";
    out += a.name;
  }
  return out;
}

namespace {

std::string join(const std::vector<int>& values) {
  std::string out;
  for (int v : values) {
    if (!out.empty()) out += ", ";
    out += std::to_string(v);
  }
  return out;
}

std::string collectives_of(const AlgorithmInfo& algo) {
  std::string out;
  for (auto c : algo.collectives) {
    if (!out.empty()) out += ", ";
    out += collective_name(c);
  }
  return out;
}

std::optional<std::string> rank_rule_violation(const AlgorithmInfo& algo, int p) {
  const auto& req = algo.requirements;
  const std::string who = algo.name + " ";
  if (p < req.min_ranks) {
    return who + "needs at least " + std::to_string(req.min_ranks) + " ranks (got " +
           std::to_string(p) + ")";
  }
  switch (req.ranks) {
    case RankRule::any: return std::nullopt;
    case RankRule::even:
      if (p % 2 == 0) return std::nullopt;
      return who + "needs an even number of ranks (got " + std::to_string(p) +
             "); accepted: 2, 4, 6, ...";
    case RankRule::power_of_two:
      if (is_power_of(p, 2)) return std::nullopt;
      return who + "needs a power-of-two number of ranks (got " + std::to_string(p) +
             "); accepted: 2, 4, 8, 16, ...";
    case RankRule::power_of_three:
      if (is_power_of(p, 3)) return std::nullopt;
      return who + "needs a power-of-three number of ranks (got " + std::to_string(p) +
             "); accepted: 3, 9, 27, 81, ...";
  }
  return std::nullopt;
}

std::string shape_text(const std::vector<int>& dims) {
  std::string out;
  for (int size : dims) out += (out.empty() ? "" : "x") + std::to_string(size);
  return out;
}

// The shapes of a binary cube with as many ranks as `dims`, or of any binary cube.
std::string binary_cube_shapes(const std::vector<int>& dims) {
  long long p = 1;
  for (int size : dims) p *= size;
  if (!is_power_of(p, 2)) return "a ring of 2^d ranks or d sides of 2 (2x2x...x2)";
  const int d = std::countr_zero(static_cast<unsigned long long>(p));
  return "--dims omitted, " + std::to_string(p) + ", or " + std::to_string(d) +
         " sizes of 2 (2x2x...x2)";
}

std::optional<std::string> side_rule_violation(const AlgorithmInfo& algo,
                                               const std::vector<int>& dims) {
  switch (algo.requirements.sides) {
    case SideRule::any: return std::nullopt;
    case SideRule::even:
      // A side of 1 has no links, so it does not break the pairing of the other sides.
      if (std::all_of(dims.begin(), dims.end(), [](int s) { return s % 2 == 0 || s == 1; }))
        return std::nullopt;
      return algo.name + " needs every torus side even (or 1); got " + shape_text(dims) +
             "; accepted: e.g. 8, 4x6, 8x8, 2x8x2";
    case SideRule::binary_cube:
      if (dims.size() <= 1 || std::all_of(dims.begin(), dims.end(), [](int s) { return s == 2; }))
        return std::nullopt;
      return algo.name + " runs on a binary cube; got a " + shape_text(dims) +
             " torus; accepted: " + binary_cube_shapes(dims);
    case SideRule::power_of_two:
      if (dims.size() <= 1 ||
          std::all_of(dims.begin(), dims.end(), [](int s) { return is_power_of(s, 2); }))
        return std::nullopt;
      return algo.name + " needs power-of-two torus sides (got " + shape_text(dims) +
             "); accepted: sides 1, 2, 4, 8, ..., or a ring of any size";
    case SideRule::hamiltonian_pair:
      if (dims.size() == 2 && algorithms::hamiltonian_rows_dimension(dims) >= 0)
        return std::nullopt;
      return algo.name + " cannot build two edge-disjoint Hamiltonian cycles on a " +
             shape_text(dims) +
             " torus: it needs r = k*c and gcd(r, c-1) = 1 for one orientation r x c "
             "(swing-nsdi24.txt section 2.3.1); accepted: e.g. square tori, 8x4, 9x3, 15x5";
    case SideRule::some_odd:
      if (std::any_of(dims.begin(), dims.end(), [](int s) { return s % 2 == 1 && s >= 3; }))
        return std::nullopt;
      return algo.name + " serves shapes with an odd side (got " + shape_text(dims) +
             "); accepted: a side odd and >= 3, e.g. 27, 15x15, 14x15";
    case SideRule::some_just_above_power_of_three:
      if (std::any_of(dims.begin(), dims.end(), [](int s) { return just_above_power_of_three(s); }))
        return std::nullopt;
      return algo.name + " serves shapes with a side just above a power of three p >= 9 (p < " +
             "n <= p + p/3; got " + shape_text(dims) + "); accepted: e.g. 10..12, 28..36, 28x28";
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> Registry::rejection(const AlgorithmInfo& algo,
                                               const ScheduleRequest& request) {
  if (!algo.supports(request.collective)) {
    return algo.name + " does not implement " + std::string(collective_name(request.collective)) +
           "; it implements: " + collectives_of(algo);
  }
  if (auto why = rank_rule_violation(algo, request.ranks)) return why;
  const int d = std::max<int>(1, static_cast<int>(request.dims.size()));
  if (d > 1 && algo.requirements.dims == DimsRule::ring_only) {
    return algo.name + " runs on a ring (1D) only; got a " + std::to_string(d) +
           "-dimensional torus; accepted: --dims omitted or a single size";
  }
  if (d != 2 && algo.requirements.dims == DimsRule::two_dimensional) {
    return algo.name + " runs on 2D tori only (got " + std::to_string(d) +
           " dimensions); accepted: --dims RxC";
  }
  if (auto why = side_rule_violation(algo, request.dims)) return why;
  const auto ports = algo.accepted_ports(d);
  if (request.ports != 0 && std::find(ports.begin(), ports.end(), request.ports) == ports.end()) {
    return algo.name + " cannot use " + std::to_string(request.ports) + " ports on a " +
           std::to_string(d) + "-dimensional shape; accepted: " + join(ports);
  }
  if (algo.requirements.commutative_op && !request.commutative) {
    return algo.name + " reorders operands and needs a commutative operator";
  }
  const int ports_used = request.ports != 0 ? request.ports : algo.default_ports(d);
  if (algo.requirements.commutative_op_beyond_one_port_ring && !request.commutative &&
      (d > 1 || ports_used > 1)) {
    return algo.name +
           " keeps rank order only on a ring with one port (on a torus or with mirrored lanes "
           "partial results combine ranks out of order); accepted: a commutative operator, or "
           "--ports 1 on a ring";
  }
  if (algo.uses_root(request.collective) && (request.root < 0 || request.root >= request.ranks)) {
    return "root " + std::to_string(request.root) + " is out of range; accepted: 0.." +
           std::to_string(request.ranks - 1);
  }
  if (algo.further_rejection) return algo.further_rejection(request);
  return std::nullopt;
}

ScheduleInfo info_for(const ScheduleRequest& request, std::string algorithm, Collective collective,
                      int blocks, int ports) {
  ScheduleInfo info;
  info.collective = collective;
  info.algorithm = std::move(algorithm);
  info.ranks = request.ranks;
  info.blocks = blocks;
  info.ports = ports;
  info.root = is_rooted(collective) ? request.root : 0;
  info.dims = request.dims.empty() ? std::vector<int>{request.ranks} : request.dims;
  return info;
}

void normalize_shape(ScheduleRequest& request) {
  if (request.ranks_per_node < 1) {
    throw UnsupportedRequest("ranks per node must be >= 1 (got " +
                             std::to_string(request.ranks_per_node) + ")");
  }
  for (int size : request.dims) {
    if (size < 1) {
      throw UnsupportedRequest("torus dimension sizes must be >= 1 (got " + std::to_string(size) +
                               ")");
    }
  }
  if (request.dims.empty()) {
    if (request.ranks < 1) throw UnsupportedRequest("give the number of ranks (>= 2) or --dims");
    request.dims = {request.ranks};
    return;
  }
  const long long product =
      std::accumulate(request.dims.begin(), request.dims.end(), 1LL, std::multiplies<long long>());
  if (product > (1LL << 30)) throw UnsupportedRequest("torus has too many ranks");
  if (request.ranks == 0) request.ranks = static_cast<int>(product);
  if (product != request.ranks) {
    throw UnsupportedRequest("--dims multiply to " + std::to_string(product) + " but --ranks is " +
                             std::to_string(request.ranks) + "; they must agree");
  }
}

SchedulePtr Registry::build(std::string_view name, ScheduleRequest request) const {
  const AlgorithmInfo& algo = get(name);
  normalize_shape(request);
  if (auto why = rejection(algo, request)) throw UnsupportedRequest(*why);
  if (request.ports == 0) request.ports = algo.default_ports(static_cast<int>(request.dims.size()));
  return algo.build(request);
}

const Registry& registry() {
  static const Registry instance = [] {
    Registry r;
    algorithms::register_ring(r);
    algorithms::register_recursive_doubling(r);
    algorithms::register_bruck(r);
    algorithms::register_bucket(r);
    algorithms::register_bucket_lanes(r);
    algorithms::register_balanced_bucket(r);
    algorithms::register_hamiltonian_rings(r);
    algorithms::register_swing(r);
    algorithms::register_bine(r);
    algorithms::register_trivance(r);
    algorithms::register_hamiltonian(r);
    algorithms::register_binomial_trees(r);
    algorithms::register_bine_trees(r);
    algorithms::register_personalized(r);
    algorithms::register_hypercube_rooted(r);
    // Last: the compositions are formed over every algorithm above.
    algorithms::hierarchical::register_compositions(r);
    return r;
  }();
  return instance;
}

}  // namespace topocoll
