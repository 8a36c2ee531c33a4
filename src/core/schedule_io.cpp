#include "core/schedule_io.hpp"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/bounded_file.hpp"
#include "core/text.hpp"

namespace topocoll {
namespace {

using nlohmann::json;

constexpr const char* kFormat = "topocoll-schedule";
// Version 1 lists one lane of steps per rank ("steps"); version 2 lists lanes ("lanes") whose
// steps may wait for steps of other lanes ("after"). Both are read; a schedule is written in
// version 1 when every rank has one lane.
constexpr int kVersionOneLane = 1;
constexpr int kVersionLanes = 2;
// Limits of the format: P as the fingerprint counts it, B such that the slots of an alltoall
// (2B) and every block index stay within 32-bit integers.
constexpr long long kMaxRanks = 1LL << 24;
constexpr long long kMaxBlocks = 1LL << 30;
constexpr long long kMaxPorts = 1LL << 20;

json ranges_to_json(const BlockSet& set) {
  json out = json::array();
  for (const auto& r : set.ranges()) out.push_back({r.begin, r.end});
  return out;
}

json op_to_json(const Operation& op) {
  json j;
  j["op"] = op_kind_name(op.kind);
  if (op.kind != OpKind::copy) {
    j["peer"] = op.peer;
    j["port"] = op.port;
  } else {
    j["from"] = ranges_to_json(op.source);
    if (op.after_receives()) j["reads"] = copy_timing_name(op.timing);
  }
  j["blocks"] = ranges_to_json(op.blocks);
  if (op.kind != OpKind::send) {
    j["combine"] = combine_name(op.combine);
    if (op.combine == Combine::reduce) j["order"] = operand_order_name(op.order);
  }
  return j;
}

// Parsing: every error names where it happened.
struct Where {
  std::string text;
  [[noreturn]] void fail(const std::string& problem) const {
    throw ScheduleFormatError("schedule JSON" + (text.empty() ? "" : " " + text) + ": " + problem);
  }
};

const json& field(const json& obj, const char* name, const Where& where) {
  if (!obj.is_object()) where.fail("expected an object");
  auto it = obj.find(name);
  if (it == obj.end()) where.fail(std::string("missing field '") + name + "'");
  return *it;
}

long long integer(const json& value, const char* name, const Where& where, long long lo,
                  long long hi) {
  if (!value.is_number_integer()) where.fail(std::string("'") + name + "' must be an integer");
  if (value.is_number_unsigned()) {
    const auto u = value.get<unsigned long long>();
    if (u > static_cast<unsigned long long>(hi))
      where.fail(std::string("'") + name + "' = " + std::to_string(u) +
                 " is out of range; accepted: " + std::to_string(lo) + ".." + std::to_string(hi));
  }
  const auto v = value.get<long long>();
  if (v < lo || v > hi) {
    where.fail(std::string("'") + name + "' = " + std::to_string(v) +
               " is out of range; accepted: " + std::to_string(lo) + ".." + std::to_string(hi));
  }
  return v;
}

long long optional_integer(const json& obj, const char* name, long long fallback,
                           const Where& where, long long lo, long long hi) {
  auto it = obj.find(name);
  return it == obj.end() ? fallback : integer(*it, name, where, lo, hi);
}

// A block set: sorted, disjoint half-open ranges inside the rank's slots.
BlockSet ranges_from_json(const json& value, const char* name, BlockIndex slots,
                          const Where& where) {
  const std::string what = std::string("'") + name + "'";
  if (!value.is_array()) where.fail(what + " must be a list of [begin, end] pairs");
  BlockSet set;
  long long previous_end = 0;
  for (const auto& pair : value) {
    if (!pair.is_array() || pair.size() != 2)
      where.fail(what + " must be a list of [begin, end] pairs");
    const auto begin = integer(pair[0], name, where, 0, slots);
    const auto end = integer(pair[1], name, where, 0, slots);
    if (end <= begin) where.fail(what + " has an empty or reversed range");
    if (begin < previous_end)
      where.fail(what + " ranges must be sorted and disjoint; [" + std::to_string(begin) + ", " +
                 std::to_string(end) + ") overlaps or precedes the range before it");
    previous_end = end;
    set.add(static_cast<BlockIndex>(begin), static_cast<BlockIndex>(end));
  }
  return set;
}

template <class Enum, std::size_t N>
Enum choice(const json& obj, const char* name, Enum fallback,
            const std::pair<std::string_view, Enum> (&options)[N], const Where& where) {
  auto it = obj.find(name);
  if (it == obj.end()) return fallback;
  std::string accepted;
  for (const auto& [text, value] : options) {
    if (it->is_string() && it->get<std::string>() == text) return value;
    accepted += (accepted.empty() ? "" : ", ") + std::string(text);
  }
  where.fail(std::string("'") + name + "' must be one of: " + accepted);
}

Operation op_from_json(const json& j, const ScheduleInfo& info, int rank, const Where& where) {
  static const std::pair<std::string_view, OpKind> kinds[] = {
      {"send", OpKind::send}, {"recv", OpKind::recv}, {"copy", OpKind::copy}};
  static const std::pair<std::string_view, Combine> combines[] = {{"copy", Combine::copy},
                                                                  {"reduce", Combine::reduce}};
  static const std::pair<std::string_view, OperandOrder> orders[] = {
      {"received-first", OperandOrder::received_first}, {"local-first", OperandOrder::local_first}};
  if (!j.is_object()) where.fail("an operation must be an object");
  if (!j.contains("op")) where.fail("missing field 'op' (send, recv or copy)");
  const auto slots = static_cast<BlockIndex>(info.total_slots());
  Operation op;
  op.kind = choice(j, "op", OpKind::send, kinds, where);
  op.blocks = ranges_from_json(field(j, "blocks", where), "blocks", slots, where);
  if (op.kind == OpKind::copy) {
    op.source = ranges_from_json(field(j, "from", where), "from", slots, where);
    static const std::pair<std::string_view, CopyTiming> timings[] = {
        {"step-start", CopyTiming::step_start}, {"after-receives", CopyTiming::after_receives}};
    op.timing = choice(j, "reads", CopyTiming::step_start, timings, where);
    if (op.source.block_count() != op.blocks.block_count())
      where.fail("'from' and 'blocks' of a copy must hold the same number of blocks");
    if (info.keeps_positions && !(op.source == op.blocks))
      where.fail(
          "a copy that moves blocks ('from' differs from 'blocks') needs "
          "\"keeps_positions\": false");
  } else {
    op.peer = static_cast<int>(integer(field(j, "peer", where), "peer", where, 0, info.ranks - 1));
    if (op.peer == rank)
      where.fail("'peer' = " + std::to_string(rank) +
                 " is the rank itself; a rank moves its own data with a copy");
    op.port = static_cast<int>(optional_integer(j, "port", 0, where, 0, info.ports - 1));
  }
  if (op.kind != OpKind::send) {
    op.combine = choice(j, "combine", Combine::copy, combines, where);
    op.order = choice(j, "order", OperandOrder::received_first, orders, where);
  }
  return op;
}

ScheduleInfo info_from_json(const json& doc) {
  const Where top{""};
  if (!doc.is_object()) top.fail("the document must be an object");
  auto format = doc.find("format");
  if (format == doc.end() || *format != kFormat)
    top.fail(std::string("'format' must be \"") + kFormat + "\"");
  const long long version = integer(field(doc, "version", top), "version", top, 0, 1 << 20);
  if (version != kVersionOneLane && version != kVersionLanes)
    top.fail("unsupported 'version' " + std::to_string(version) + "; accepted: " +
             std::to_string(kVersionOneLane) + " (one lane per rank, 'steps') or " +
             std::to_string(kVersionLanes) + " (lanes, 'lanes')");
  ScheduleInfo info;
  const auto& name = field(doc, "collective", top);
  auto collective = name.is_string() ? parse_collective(name.get<std::string>()) : std::nullopt;
  if (!collective) top.fail("'collective' must be one of: " + collective_names_list());
  info.collective = *collective;
  if (auto it = doc.find("algorithm"); it != doc.end()) {
    if (!it->is_string()) top.fail("'algorithm' must be a string (a label)");
    info.algorithm = it->get<std::string>();
  }
  info.ranks = static_cast<int>(integer(field(doc, "ranks", top), "ranks", top, 1, kMaxRanks));
  info.blocks = static_cast<int>(integer(field(doc, "blocks", top), "blocks", top, 1, kMaxBlocks));
  if (is_chunked_per_rank(info.collective) && info.blocks % info.ranks != 0) {
    top.fail("a " + std::string(collective_name(info.collective)) +
             " schedule needs 'blocks' divisible by 'ranks' (got " + std::to_string(info.blocks) +
             " blocks for " + std::to_string(info.ranks) + " ranks)");
  }
  info.slots =
      static_cast<int>(optional_integer(doc, "slots", 0, top, 0, std::numeric_limits<int>::max()));
  if (info.slots != 0 && info.slots < info.user_slots())
    top.fail("'slots' = " + std::to_string(info.slots) + " is smaller than the user buffer; " +
             "accepted: 0 (the user buffer) or " + std::to_string(info.user_slots()) + " and up");
  info.ports = static_cast<int>(optional_integer(doc, "ports", 1, top, 1, kMaxPorts));
  info.root = static_cast<int>(optional_integer(doc, "root", 0, top, 0, info.ranks - 1));
  if (auto it = doc.find("dims"); it != doc.end()) {
    if (!it->is_array()) top.fail("'dims' must be a list of sizes");
    long long product = 1;
    for (const auto& d : *it) {
      info.dims.push_back(static_cast<int>(integer(d, "dims", top, 1, kMaxRanks)));
      product = std::min(product * info.dims.back(), kMaxRanks + 1);
    }
    if (!info.dims.empty() && product != info.ranks)
      top.fail("'dims' multiply to " + std::to_string(product) + ", not to 'ranks' = " +
               std::to_string(info.ranks) + "; accepted: sizes whose product is the rank count");
  }
  if (auto it = doc.find("keeps_positions"); it != doc.end()) {
    if (!it->is_boolean()) top.fail("'keeps_positions' must be true or false");
    info.keeps_positions = it->get<bool>();
  }
  if (auto it = doc.find("placement"); it != doc.end()) {
    if (!it->is_array()) top.fail("'placement' must be a list of nodes, one per rank");
    for (const auto& node : *it)
      info.placement.push_back(static_cast<int>(integer(node, "placement", top, 0, 1 << 24)));
    if (auto problem = placement_problem(info)) top.fail(*problem);
  }
  info.ranks_per_node =
      static_cast<int>(optional_integer(doc, "ranks_per_node", 0, top, 0, info.ranks));
  if (info.ranks_per_node > 1 && info.ranks % info.ranks_per_node != 0)
    top.fail("'ranks_per_node' = " + std::to_string(info.ranks_per_node) +
             " does not divide 'ranks' = " + std::to_string(info.ranks) +
             "; accepted: 0 or 1 (flat) or a divisor of 'ranks'");
  return info;
}

json step_to_json(const Step& s, bool with_dependencies) {
  json ops = json::array();
  for (const Operation& op : s.ops) ops.push_back(op_to_json(op));
  if (!with_dependencies || s.after.empty()) return ops;
  json after = json::array();
  for (const Dependency& d : s.after) after.push_back({d.lane, d.step});
  return {{"ops", std::move(ops)}, {"after", std::move(after)}};
}

json lane_to_json(const std::vector<Step>& steps, bool with_dependencies) {
  json out = json::array();
  for (const Step& s : steps) out.push_back(step_to_json(s, with_dependencies));
  return out;
}

// A step: a list of operations, or (version 2) {"ops": [...], "after": [[lane, step], ...]}.
Step step_from_json(const json& value, const ScheduleInfo& info, int rank, bool lanes,
                    const Where& at_step) {
  Step step;
  const json* ops = &value;
  if (lanes && value.is_object()) {
    for (const auto& [key, unused] : value.items())
      if (key != "ops" && key != "after")
        at_step.fail("unknown field '" + key + "' of a step; accepted: ops, after");
    ops = &field(value, "ops", at_step);
    if (auto it = value.find("after"); it != value.end()) {
      if (!it->is_array()) at_step.fail("'after' must be a list of [lane, step] pairs");
      for (const auto& pair : *it) {
        if (!pair.is_array() || pair.size() != 2)
          at_step.fail("'after' must be a list of [lane, step] pairs");
        step.after.push_back({static_cast<int>(integer(pair[0], "after", at_step, 0, kMaxPorts)),
                              static_cast<int>(integer(pair[1], "after", at_step, 0, 1 << 30))});
      }
    }
  }
  if (!ops->is_array())
    at_step.fail(lanes ? "a step must be a list of operations or {\"ops\": [...], \"after\": "
                         "[[lane, step], ...]}"
                       : "a step must be a list of operations");
  for (std::size_t i = 0; i < ops->size(); ++i) {
    const Where at_op{at_step.text + " op " + std::to_string(i)};
    step.ops.push_back(op_from_json((*ops)[i], info, rank, at_op));
  }
  return step;
}

std::vector<Step> steps_from_json(const json& steps, const ScheduleInfo& info, int rank, bool lanes,
                                  const std::string& where) {
  if (!steps.is_array()) Where{where}.fail("steps must be a list");
  std::vector<Step> out;
  for (std::size_t k = 0; k < steps.size(); ++k)
    out.push_back(
        step_from_json(steps[k], info, rank, lanes, Where{where + " step " + std::to_string(k)}));
  return out;
}

}  // namespace

std::string schedule_to_json(const Schedule& schedule, int indent) {
  const ScheduleInfo& info = schedule.info();
  const bool lanes = schedule.has_lanes();
  json doc;
  doc["format"] = kFormat;
  doc["version"] = lanes ? kVersionLanes : kVersionOneLane;
  doc["collective"] = collective_name(info.collective);
  doc["algorithm"] = info.algorithm;
  doc["ranks"] = info.ranks;
  doc["blocks"] = info.blocks;
  doc["slots"] = info.total_slots();
  doc["ports"] = info.ports;
  doc["root"] = info.root;
  doc["dims"] = info.dims;
  doc["keeps_positions"] = info.keeps_positions;
  if (!info.placement.empty()) doc["placement"] = info.placement;
  if (info.ranks_per_node > 1) doc["ranks_per_node"] = info.ranks_per_node;
  json ranks = json::array();
  for (int r = 0; r < info.ranks; ++r) {
    if (!lanes) {
      ranks.push_back(lane_to_json(schedule.lane_steps_of(r, 0), false));
      continue;
    }
    json rank_lanes = json::array();
    for (int l = 0; l < schedule.lane_count(r); ++l)
      rank_lanes.push_back(lane_to_json(schedule.lane_steps_of(r, l), true));
    ranks.push_back(std::move(rank_lanes));
  }
  doc[lanes ? "lanes" : "steps"] = std::move(ranks);
  return doc.dump(indent);
}

std::unique_ptr<ExplicitSchedule> schedule_from_json(const std::string& text) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw ScheduleFormatError(
        "schedule JSON is not valid JSON: the text is empty; accepted: a topocoll-schedule "
        "document (docs/schedule-format.md)");
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    // The library's message without its "[json.exception.parse_error.N] " tag.
    std::string what = e.what();
    if (const auto tag = what.find("] "); what.starts_with("[json.") && tag != std::string::npos)
      what.erase(0, tag + 2);
    throw ScheduleFormatError("schedule JSON is not valid JSON: " + what);
  }
  ScheduleInfo info = info_from_json(doc);
  const Where top{""};
  const bool lanes = doc["version"] == kVersionLanes;
  const char* key = lanes ? "lanes" : "steps";
  if (doc.contains(lanes ? "steps" : "lanes"))
    top.fail(std::string("version ") + (lanes ? "2 lists 'lanes', not 'steps'"
                                              : "1 lists 'steps', not 'lanes' (use version 2)"));
  const json& ranks = field(doc, key, top);
  if (!ranks.is_array() || static_cast<int>(ranks.size()) != info.ranks)
    top.fail(std::string("'") + key + "' must hold one list of " + (lanes ? "lanes" : "steps") +
             " per rank (" + std::to_string(info.ranks) + ")");
  std::vector<ExplicitSchedule::Lanes> rank_lanes(static_cast<std::size_t>(info.ranks));
  for (int r = 0; r < info.ranks; ++r) {
    const std::string where = "rank " + std::to_string(r);
    if (!lanes) {
      rank_lanes[r].push_back(steps_from_json(ranks[r], info, r, false, where));
      continue;
    }
    if (!ranks[r].is_array() || ranks[r].empty())
      Where{where}.fail("'lanes' must list at least one lane (a list of steps) per rank");
    for (std::size_t l = 0; l < ranks[r].size(); ++l)
      rank_lanes[r].push_back(
          steps_from_json(ranks[r][l], info, r, true, where + " lane " + std::to_string(l)));
  }
  return std::make_unique<ExplicitSchedule>(std::move(info), std::move(rank_lanes));
}

std::unique_ptr<ExplicitSchedule> schedule_from_json_file(const std::string& path) {
  const std::string text = read_bounded_file(path, "schedule file", kMaxScheduleFileBytes);
  try {
    return schedule_from_json(text);
  } catch (const ScheduleFormatError& e) {
    throw ScheduleFormatError("schedule file '" + printable(path) + "': " + e.what());
  }
}

std::string schedule_to_text(const Schedule& schedule) {
  const ScheduleInfo& info = schedule.info();
  std::ostringstream os;
  os << "# " << collective_name(info.collective) << " " << info.algorithm << ": " << info.ranks
     << " ranks, " << info.blocks << " blocks, " << info.total_slots() << " slots, " << info.ports
     << " port(s)";
  if (is_rooted(info.collective)) os << ", root " << info.root;
  os << '\n';
  for (int r = 0; r < info.ranks; ++r) {
    const int lanes = schedule.lane_count(r);
    for (int l = 0; l < lanes; ++l) {
      const auto steps = schedule.lane_steps_of(r, l);
      for (std::size_t k = 0; k < steps.size(); ++k) {
        os << "rank " << r;
        if (lanes > 1) os << " lane " << l;
        os << " step " << k << ':';
        if (steps[k].ops.empty()) os << " (idle)";
        for (std::size_t i = 0; i < steps[k].ops.size(); ++i)
          os << (i ? " | " : " ") << steps[k].ops[i].to_string();
        for (std::size_t i = 0; i < steps[k].after.size(); ++i)
          os << (i ? ", " : " (after ") << "lane " << steps[k].after[i].lane << " step "
             << steps[k].after[i].step << (i + 1 == steps[k].after.size() ? ")" : "");
        os << '\n';
      }
    }
  }
  return os.str();
}

}  // namespace topocoll
