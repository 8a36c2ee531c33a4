// Python bindings of the schedule core (nanobind). The Python package wraps these in a CLI.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <unordered_map>

#include "analysis/traffic.hpp"
#include "bindings/bindings.hpp"
#include "core/partition.hpp"
#include "core/registry.hpp"
#include "core/schedule_io.hpp"
#include "core/verifier/estimate.hpp"
#include "core/verifier/verifier.hpp"
#include "topology/input_file.hpp"

namespace nb = nanobind;
using namespace nb::literals;
using namespace topocoll;

namespace {

Collective collective_from(const std::string& name) {
  if (auto c = parse_collective(name)) return *c;
  throw UnsupportedRequest("unknown collective '" + name +
                           "'; accepted: " + collective_names_list());
}

nb::dict algorithm_dict(const AlgorithmInfo& a) {
  nb::dict d;
  d["name"] = a.name;
  d["family"] = a.family;
  d["baseline"] = a.baseline;
  d["variant"] = a.variant;
  d["paper"] = a.paper;
  d["summary"] = a.summary;
  nb::list collectives, root_collectives;
  for (auto c : a.collectives) {
    collectives.append(std::string(collective_name(c)));
    if (a.uses_root(c)) root_collectives.append(std::string(collective_name(c)));
  }
  d["collectives"] = collectives;
  const Requirements& r = a.requirements;
  nb::dict req;
  req["min_ranks"] = r.min_ranks;
  req["ranks"] = std::string(rank_rule_name(r.ranks));
  req["torus"] = r.dims != DimsRule::ring_only;
  // null: any number of dimensions.
  req["min_dimensions"] = r.dims == DimsRule::two_dimensional ? 2 : 1;
  req["max_dimensions"] = r.dims == DimsRule::ring_only         ? nb::object(nb::int_(1))
                          : r.dims == DimsRule::two_dimensional ? nb::object(nb::int_(2))
                                                                : nb::none();
  req["sides"] = std::string(side_rule_name(r.sides));
  nb::list symbols;
  for (const auto& p : ports_rule_symbols(r.ports)) symbols.append(p);
  req["ports"] = symbols;
  req["default_ports"] = std::string(default_ports_symbol(r.ports));
  nb::dict by_dims;  // the same rule evaluated for D = 1..4
  for (int dims = 1; dims <= (r.dims == DimsRule::ring_only ? 1 : 4); ++dims)
    by_dims[std::to_string(dims).c_str()] = a.accepted_ports(dims);
  req["ports_by_dimensions"] = by_dims;
  req["ports_1d"] = a.accepted_ports(1);
  req["default_ports_1d"] = a.default_ports(1);
  req["commutative_op"] = r.commutative_op;
  req["commutative_op_beyond_one_port_ring"] = r.commutative_op_beyond_one_port_ring;
  req["root_collectives"] = root_collectives;
  d["requirements"] = req;
  return d;
}

// A composition's entry: its flat entry plus the form and the inner algorithm it is made of.
nb::dict composition_dict(const AlgorithmInfo& a) {
  nb::dict d = algorithm_dict(a);
  d["form"] = a.composition ? a.composition->form : std::string();
  d["inner"] = a.composition ? a.composition->inner : std::string();
  return d;
}

nb::dict form_dict(const CompositionForm& f) {
  nb::dict d;
  d["name"] = f.name;
  d["paper"] = f.paper;
  d["summary"] = f.summary;
  nb::list collectives;
  for (auto c : f.collectives) collectives.append(std::string(collective_name(c)));
  d["collectives"] = collectives;
  return d;
}

nb::dict info_dict(const ScheduleInfo& info) {
  nb::dict d;
  d["collective"] = std::string(collective_name(info.collective));
  d["algorithm"] = info.algorithm;
  d["ranks"] = info.ranks;
  d["blocks"] = info.blocks;
  d["slots"] = info.total_slots();
  d["ports"] = info.ports;
  d["root"] = info.root;
  d["dims"] = info.dims;
  d["keeps_positions"] = info.keeps_positions;
  d["placement"] = info.placement;            // empty: rank r on node r
  d["ranks_per_node"] = info.ranks_per_node;  // K of a hier:/leader: composition; 0 flat
  return d;
}

nb::dict report_dict(const VerifyReport& r) {
  nb::dict d;
  d["ok"] = r.ok;
  d["violation"] = std::string(violation_name(r.violation));
  d["rank"] = r.rank;
  d["step"] = r.step;
  d["block"] = r.block;
  d["expected"] = r.expected;
  d["found"] = r.found;
  d["message"] = r.message;
  d["max_steps"] = r.max_steps;
  d["messages"] = r.messages;
  d["block_transfers"] = r.block_transfers;
  d["ranges"] = r.ranges;
  d["passes"] = r.passes;
  d["symmetry"] = r.symmetry;
  d["symmetry_order"] = r.symmetry_order;
  d["checked_slots"] = r.checked_slots;
  return d;
}

// Python integers are unbounded: every integer argument arrives as 64 bits and is checked
// here, so a value beyond what the core holds is a ValueError naming the accepted range
// rather than a wrap-around inside C++.
constexpr long long kMaxRanks = 1LL << 24;  // what the fingerprint counts; see the README
constexpr std::size_t kMaxDims = 32;
// Ports of a schedule: the schedule reader's bound (core/schedule_io.cpp); more is no machine.
constexpr long long kMaxPorts = 1LL << 20;
constexpr int kMaxThreads = 256;
constexpr std::uint64_t kMinMemoryBudget = 1ULL << 20;
constexpr std::uint64_t kMaxVectorBytes = 1ULL << 50;
// Traffic and partitions hold one offset per block.
constexpr int kMaxPartitionBlocks = 1 << 26;

std::string join(const std::vector<int>& values) {
  std::string out;
  for (int v : values) out += (out.empty() ? "" : ", ") + std::to_string(v);
  return out;
}

std::vector<int> checked_dims(const std::vector<std::int64_t>& dims, const char* name) {
  if (dims.size() > kMaxDims)
    throw UnsupportedRequest(std::string(name) + " has " + std::to_string(dims.size()) +
                             " dimensions; accepted: at most " + std::to_string(kMaxDims));
  std::vector<int> out;
  long long product = 1;
  for (auto d : dims) {
    if (d < 1 || d > kMaxRanks)
      throw UnsupportedRequest(std::string(name) + " size " + std::to_string(d) +
                               " is out of range; accepted: 1.." + std::to_string(kMaxRanks));
    product *= d;
    if (product > kMaxRanks)
      throw UnsupportedRequest(std::string(name) + " holds more than " + std::to_string(kMaxRanks) +
                               " ranks; accepted: at most " + std::to_string(kMaxRanks));
    out.push_back(static_cast<int>(d));
  }
  return out;
}

SchedulePtr build(const std::string& algorithm, const std::string& collective, std::int64_t ranks,
                  const std::vector<std::int64_t>& dims, std::int64_t ports, std::int64_t root,
                  bool commutative, std::int64_t ranks_per_node) {
  ScheduleRequest request;
  request.collective = collective_from(collective);
  const AlgorithmInfo& algo = registry().get(algorithm);
  if (ranks < 0 || ranks > kMaxRanks)
    throw UnsupportedRequest("ranks = " + std::to_string(ranks) +
                             " is out of range; accepted: 2.." + std::to_string(kMaxRanks) +
                             ", or 0 to take it from dims");
  request.ranks = static_cast<int>(ranks);
  request.dims = checked_dims(dims, "dims");
  const int d = std::max<int>(1, static_cast<int>(request.dims.size()));
  if (ports < 0 || ports > std::numeric_limits<int>::max())
    throw UnsupportedRequest("ports = " + std::to_string(ports) +
                             " is out of range; accepted: 0 (the algorithm's default) or " +
                             join(algo.accepted_ports(d)));
  request.ports = static_cast<int>(ports);
  if (root < 0 || root > std::numeric_limits<int>::max()) {
    long long p = ranks;
    if (p == 0) {
      p = 1;
      for (int size : request.dims) p *= size;
    }
    throw UnsupportedRequest("root " + std::to_string(root) + " is out of range; accepted: 0.." +
                             std::to_string(p - 1));
  }
  request.root = static_cast<int>(root);
  request.commutative = commutative;
  if (ranks_per_node < 1 || ranks_per_node > kMaxRanks)
    throw UnsupportedRequest("ranks_per_node = " + std::to_string(ranks_per_node) +
                             " is out of range; accepted: 1.." + std::to_string(kMaxRanks));
  request.ranks_per_node = static_cast<int>(ranks_per_node);
  return registry().build(algorithm, request);
}

VerifyOptions verify_options(const Schedule& schedule, const std::string& mode, bool commutative,
                             std::uint64_t seed, const std::vector<std::int64_t>& adjacency_torus,
                             std::int64_t threads, std::uint64_t memory_budget) {
  VerifyOptions options;
  if (mode == "exact") {
    options.mode = VerifyMode::exact;
  } else if (mode == "fingerprint") {
    options.mode = VerifyMode::fingerprint;
  } else {
    throw UnsupportedRequest("unknown mode '" + mode + "'; accepted: exact, fingerprint");
  }
  options.commutative = commutative;
  options.seed = seed;
  options.adjacency_torus = checked_dims(adjacency_torus, "adjacency_torus");
  long long product = 1;
  for (int size : options.adjacency_torus) product *= size;
  if (!options.adjacency_torus.empty() && product != schedule.ranks())
    throw UnsupportedRequest("adjacency_torus holds " + std::to_string(product) +
                             " ranks but the schedule has " + std::to_string(schedule.ranks()) +
                             "; accepted: sizes whose product is the rank count, or []");
  if (threads < 0 || threads > kMaxThreads)
    throw UnsupportedRequest("threads = " + std::to_string(threads) +
                             " is out of range; accepted: 0 (every core) .. " +
                             std::to_string(kMaxThreads));
  options.threads = static_cast<int>(threads);
  if (memory_budget > 0 && memory_budget < kMinMemoryBudget)
    throw UnsupportedRequest("memory_budget = " + std::to_string(memory_budget) +
                             " bytes is too small; accepted: 0 (1 GiB) or at least " +
                             std::to_string(kMinMemoryBudget));
  if (memory_budget > 0) options.memory_budget = memory_budget;
  return options;
}

std::uint64_t physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0
             ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page)
             : std::uint64_t{8} << 30;
}

// A run whose state cannot fit in the machine would end in an allocation failure or the
// kernel's OOM killer half way; refuse it up front with the estimate (the CLI applies a
// tighter share and a time limit on top, see python/topocoll/limits.py).
void check_fits_in_memory(const VerifyEstimate& e, const std::string& mode) {
  const std::uint64_t available = physical_memory();
  if (e.memory_bytes <= available) return;
  const auto gib = [](std::uint64_t bytes) {
    return std::to_string(bytes >> 30) + "." + std::to_string(((bytes >> 20) & 1023) * 10 / 1024);
  };
  throw UnsupportedRequest("verifying in " + mode + " mode needs about " + gib(e.memory_bytes) +
                           " GiB (" + std::to_string(e.slot_states) +
                           " slot states), more than the " + gib(available) +
                           " GiB of this machine; use fingerprint mode or a smaller instance");
}

nb::dict run_verify(const Schedule& schedule, const std::string& mode, bool commutative,
                    std::uint64_t seed, const std::vector<std::int64_t>& adjacency_torus,
                    std::int64_t threads, std::uint64_t memory_budget) {
  const VerifyOptions options =
      verify_options(schedule, mode, commutative, seed, adjacency_torus, threads, memory_budget);
  VerifyReport report;
  {
    nb::gil_scoped_release release;
    check_fits_in_memory(estimate_verify(schedule, options), mode);
    report = verify(schedule, options);
  }
  return report_dict(report);
}

nb::dict run_estimate(const Schedule& schedule, const std::string& mode, bool commutative,
                      std::uint64_t memory_budget, std::optional<std::uint64_t> work_limit) {
  const VerifyOptions options =
      verify_options(schedule, mode, commutative, 0, {}, 0, memory_budget);
  VerifyEstimate e;
  {
    nb::gil_scoped_release release;
    e = estimate_verify(schedule, options, work_limit.value_or(UINT64_MAX));
  }
  nb::dict d;
  d["memory_bytes"] = e.memory_bytes;
  d["passes"] = e.passes;
  d["rank_steps"] = e.rank_steps;
  d["slot_states"] = e.slot_states;
  d["work"] = e.work;
  d["symmetry"] = e.symmetry;
  return d;
}

void check_partition_size(const Schedule& s) {
  if (s.info().blocks > kMaxPartitionBlocks)
    throw UnsupportedRequest("the schedule has " + std::to_string(s.info().blocks) +
                             " blocks; a partition holds at most " +
                             std::to_string(kMaxPartitionBlocks));
}

// Group ids may be any integers; only equality matters, so they are renumbered densely.
std::vector<int> dense_groups(const std::vector<std::int64_t>& group_of) {
  std::unordered_map<std::int64_t, int> ids;
  std::vector<int> out;
  out.reserve(group_of.size());
  for (auto g : group_of) out.push_back(ids.emplace(g, static_cast<int>(ids.size())).first->second);
  return out;
}

// Error messages quote what the caller passed; a control character in it (a newline in a
// collective name) must not split the one-line message the exit-code contract promises, and
// bytes that are not UTF-8 (from a file) must not turn the message into a decoding error.
std::string one_line(std::string_view text) { return topo::printable(text); }

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "topocoll schedule core: registry, schedules, verifier";
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const std::invalid_argument& e) {
      PyErr_SetString(PyExc_ValueError, one_line(e.what()).c_str());
    }
  });

  nb::class_<Schedule>(m, "Schedule")
      .def_prop_ro("info", [](const Schedule& s) { return info_dict(s.info()); })
      .def(
          "step_count",
          [](const Schedule& s, std::int64_t rank) {
            if (rank < 0 || rank >= s.ranks())
              throw nb::index_error(("rank " + std::to_string(rank) +
                                     " is out of range; accepted: 0.." +
                                     std::to_string(s.ranks() - 1))
                                        .c_str());
            return s.step_count(static_cast<int>(rank));
          },
          "rank"_a)
      .def(
          "to_json",
          [](const Schedule& s, std::int64_t indent) {
            if (indent < -1 || indent > 16)
              throw UnsupportedRequest("indent = " + std::to_string(indent) +
                                       " is out of range; accepted: -1 (compact) .. 16");
            return schedule_to_json(s, static_cast<int>(indent));
          },
          "indent"_a = -1)
      .def("to_text", [](const Schedule& s) { return schedule_to_text(s); });

  m.def("collectives", [] {
    std::vector<std::string> out;
    for (auto c : all_collectives()) out.emplace_back(collective_name(c));
    return out;
  });
  m.def("algorithms", [] {
    nb::list out;
    for (const auto& a : registry().all()) out.append(algorithm_dict(a));
    return out;
  });
  m.def("composition_forms", [] {
    nb::list out;
    for (const auto& f : registry().composition_forms()) out.append(form_dict(f));
    return out;
  });
  // Every FORM:INNER; with a collective and a node count, each entry also says whether the
  // registry accepts it there ("accepted") and, if not, why ("rejection").
  m.def(
      "compositions",
      [](const std::string& collective, std::int64_t nodes, std::int64_t ranks_per_node) {
        nb::list out;
        const bool judged = !collective.empty() && nodes > 0;
        if (judged && (nodes > kMaxRanks || ranks_per_node < 1 || ranks_per_node > kMaxRanks ||
                       nodes * ranks_per_node > kMaxRanks))
          throw UnsupportedRequest("nodes x ranks_per_node = " + std::to_string(nodes) + " x " +
                                   std::to_string(ranks_per_node) +
                                   " is out of range; accepted: at most " +
                                   std::to_string(kMaxRanks) + " ranks");
        std::optional<Collective> c;
        if (!collective.empty()) c = collective_from(collective);
        for (const auto& a : registry().compositions()) {
          if (c && !a.supports(*c)) continue;
          nb::dict d = composition_dict(a);
          if (judged) {
            ScheduleRequest request;
            request.collective = *c;
            request.ranks = static_cast<int>(nodes * ranks_per_node);
            request.ranks_per_node = static_cast<int>(ranks_per_node);
            normalize_shape(request);
            const auto why = Registry::rejection(a, request);
            d["accepted"] = !why.has_value();
            d["rejection"] = why ? *why : std::string();
          }
          out.append(d);
        }
        return out;
      },
      "collective"_a = "", "nodes"_a = 0, "ranks_per_node"_a = 2);
  m.def(
      "accepted_ports",
      [](const std::string& name, std::int64_t dimensions) {
        const AlgorithmInfo& algo = registry().get(name);
        if (dimensions < 1 || dimensions > static_cast<std::int64_t>(kMaxDims))
          throw UnsupportedRequest("dimensions = " + std::to_string(dimensions) +
                                   " is out of range; accepted: 1.." + std::to_string(kMaxDims));
        return algo.accepted_ports(static_cast<int>(dimensions));
      },
      "name"_a, "dimensions"_a = 1);
  m.def("build", &build, "algorithm"_a, "collective"_a, "ranks"_a = 0,
        "dims"_a = std::vector<std::int64_t>{}, "ports"_a = 0, "root"_a = 0, "commutative"_a = true,
        "ranks_per_node"_a = 1);
  m.def(
      "load_json", [](const std::string& text) -> SchedulePtr { return schedule_from_json(text); },
      "text"_a);
  m.attr("EXACT_SLOT_LIMIT") = kExactSlotLimit;
  m.attr("MAX_RANKS") = kMaxRanks;
  m.attr("MAX_DIMS") = kMaxDims;
  m.attr("MAX_PORTS") = kMaxPorts;
  m.def(
      "exact_mode_fits", [](const Schedule& s) { return exact_mode_fits(s.info()); }, "schedule"_a);
  m.def("verify", &run_verify, "schedule"_a, "mode"_a = "exact", "commutative"_a = true,
        "seed"_a = 0x5eed, "adjacency_torus"_a = std::vector<std::int64_t>{}, "threads"_a = 0,
        "memory_budget"_a = 0);
  m.def("estimate_verify", &run_estimate, "schedule"_a, "mode"_a = "exact", "commutative"_a = true,
        "memory_budget"_a = 0, "work_limit"_a = nb::none());
  m.def(
      "traffic",
      [](const Schedule& s, const std::vector<std::int64_t>& group_of, std::uint64_t vector_bytes) {
        if (vector_bytes > kMaxVectorBytes)
          throw UnsupportedRequest("vector_bytes = " + std::to_string(vector_bytes) +
                                   " is out of range; accepted: 0.." +
                                   std::to_string(kMaxVectorBytes) + " (1 PiB)");
        check_partition_size(s);
        const std::vector<int> groups = dense_groups(group_of);
        TrafficTotals t;
        {
          nb::gil_scoped_release release;
          t = measure_traffic(s, groups, vector_bytes);
        }
        nb::dict d;
        d["bytes"] = t.bytes;
        d["inter_group_bytes"] = t.inter_group_bytes;
        d["messages"] = t.messages;
        d["inter_group_messages"] = t.inter_group_messages;
        return d;
      },
      "schedule"_a, "group_of"_a, "vector_bytes"_a);
  m.def(
      "partition_sizes",
      [](const Schedule& s, std::uint64_t count) {
        check_partition_size(s);
        BlockPartition p(s.info(), count);
        std::vector<std::uint64_t> sizes;
        for (int b = 0; b < p.blocks(); ++b) sizes.push_back(p.size(static_cast<BlockIndex>(b)));
        return sizes;
      },
      "schedule"_a, "count"_a);
  bindings::bind_facts(m);
  bindings::bind_simulator(m);
  bindings::bind_innet(m);
  bindings::bind_interop(m);
}
