// Python bindings of the schedule core (nanobind). The Python package wraps these in a CLI.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include "analysis/traffic.hpp"
#include "bindings/bindings.hpp"
#include "core/partition.hpp"
#include "core/registry.hpp"
#include "core/schedule_io.hpp"
#include "core/verifier/verifier.hpp"

namespace nb = nanobind;
using namespace nb::literals;
using namespace topocoll;

namespace {

Collective collective_from(const std::string& name) {
  if (auto c = parse_collective(name)) return *c;
  throw UnsupportedRequest("unknown collective '" + name +
                           "'; accepted: " + collective_names_list());
}

std::string rank_rule_name(RankRule rule) {
  switch (rule) {
    case RankRule::any: return "any";
    case RankRule::even: return "even";
    case RankRule::power_of_two: return "power-of-two";
    case RankRule::power_of_three: return "power-of-three";
  }
  return "?";
}

nb::dict algorithm_dict(const AlgorithmInfo& a) {
  nb::dict d;
  d["name"] = a.name;
  d["family"] = a.family;
  d["variant"] = a.variant;
  d["paper"] = a.paper;
  d["summary"] = a.summary;
  nb::list collectives;
  for (auto c : a.collectives) collectives.append(std::string(collective_name(c)));
  d["collectives"] = collectives;
  nb::dict req;
  req["min_ranks"] = a.requirements.min_ranks;
  req["ranks"] = rank_rule_name(a.requirements.ranks);
  req["torus"] = a.requirements.dims == DimsRule::any_torus;
  req["ports_1d"] = a.accepted_ports(1);
  req["default_ports_1d"] = a.default_ports(1);
  req["commutative_op"] = a.requirements.commutative_op;
  d["requirements"] = req;
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
  return d;
}

SchedulePtr build(const std::string& algorithm, const std::string& collective, int ranks,
                  std::vector<int> dims, int ports, int root, bool commutative) {
  ScheduleRequest request;
  request.collective = collective_from(collective);
  request.ranks = ranks;
  request.dims = std::move(dims);
  request.ports = ports;
  request.root = root;
  request.commutative = commutative;
  return registry().build(algorithm, request);
}

nb::dict run_verify(const Schedule& schedule, const std::string& mode, bool commutative,
                    std::uint64_t seed, std::vector<int> adjacency_torus, int threads,
                    std::uint64_t memory_budget) {
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
  options.adjacency_torus = std::move(adjacency_torus);
  options.threads = threads;
  if (memory_budget > 0) options.memory_budget = memory_budget;
  VerifyReport report;
  {
    nb::gil_scoped_release release;
    report = verify(schedule, options);
  }
  return report_dict(report);
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "topocoll schedule core: registry, schedules, verifier";
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const std::invalid_argument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  nb::class_<Schedule>(m, "Schedule")
      .def_prop_ro("info", [](const Schedule& s) { return info_dict(s.info()); })
      .def("step_count", &Schedule::step_count, "rank"_a)
      .def(
          "to_json", [](const Schedule& s, int indent) { return schedule_to_json(s, indent); },
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
  m.def("accepted_ports", [](const std::string& name, int dimensions) {
    return registry().get(name).accepted_ports(dimensions);
  });
  m.def("build", &build, "algorithm"_a, "collective"_a, "ranks"_a = 0,
        "dims"_a = std::vector<int>{}, "ports"_a = 0, "root"_a = 0, "commutative"_a = true);
  m.def(
      "load_json", [](const std::string& text) -> SchedulePtr { return schedule_from_json(text); },
      "text"_a);
  m.attr("EXACT_SLOT_LIMIT") = kExactSlotLimit;
  m.def(
      "exact_mode_fits", [](const Schedule& s) { return exact_mode_fits(s.info()); }, "schedule"_a);
  m.def("verify", &run_verify, "schedule"_a, "mode"_a = "exact", "commutative"_a = true,
        "seed"_a = 0x5eed, "adjacency_torus"_a = std::vector<int>{}, "threads"_a = 0,
        "memory_budget"_a = 0);
  m.def(
      "traffic",
      [](const Schedule& s, const std::vector<int>& group_of, std::uint64_t vector_bytes) {
        TrafficTotals t;
        {
          nb::gil_scoped_release release;
          t = measure_traffic(s, group_of, vector_bytes);
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
        BlockPartition p(s.info(), count);
        std::vector<std::uint64_t> sizes;
        for (int b = 0; b < p.blocks(); ++b) sizes.push_back(p.size(static_cast<BlockIndex>(b)));
        return sizes;
      },
      "schedule"_a, "count"_a);
  bindings::bind_simulator(m);
  bindings::bind_innet(m);
}
