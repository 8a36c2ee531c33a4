#include "rules.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>

#include "core/bounded_file.hpp"
#include "core/registry.hpp"
#include "core/text.hpp"
#include "schedule_file.hpp"

namespace topocoll::mpi {
namespace {

using nlohmann::json;

constexpr std::uint64_t small_message_bytes = 64 * 1024;
// What `topocoll tune` writes is a few KiB; a file of this size would hold thousands of rules.
constexpr std::uint64_t kMaxRulesFileBytes = std::uint64_t{1} << 20;

// Built-in table: latency-optimal algorithms below 64 KiB, bandwidth-optimal ones above,
// each with a ring/tree baseline behind it for rank counts the first choice rejects.
struct DefaultEntry {
  MpiCollective collective;
  std::vector<std::string> small;
  std::vector<std::string> large;
};

const std::vector<DefaultEntry>& default_table() {
  static const std::vector<DefaultEntry> table = {
      {MpiCollective::allreduce, {"swing-lat", "recdoub-lat", "ring"}, {"swing-bw", "ring"}},
      {MpiCollective::reduce_scatter_block, {"swing-bw", "ring"}, {"swing-bw", "ring"}},
      {MpiCollective::reduce_scatter, {"swing-bw", "ring"}, {"swing-bw", "ring"}},
      {MpiCollective::allgather, {"swing-bw", "ring"}, {"swing-bw", "ring"}},
      {MpiCollective::bcast,
       {"binomial-doubling", "rotated-binomial"},
       {"binomial-large", "binomial-doubling"}},
      {MpiCollective::reduce,
       {"binomial-halving", "rotated-binomial"},
       {"binomial-large", "binomial-halving"}},
      {MpiCollective::gather, {"binomial", "rotated-binomial"}, {"binomial", "rotated-binomial"}},
      {MpiCollective::scatter, {"binomial", "rotated-binomial"}, {"binomial", "rotated-binomial"}},
      {MpiCollective::alltoall, {"bruck", "bine", "pairwise"}, {"pairwise"}},
  };
  return table;
}

std::optional<MpiCollective> parse_rule_collective(const std::string& name) {
  for (int i = 0; i <= static_cast<int>(MpiCollective::alltoall); ++i) {
    const auto c = static_cast<MpiCollective>(i);
    if (name == mpi_collective_name(c)) return c;
  }
  if (name == "reduce-scatter") return MpiCollective::reduce_scatter_block;
  return std::nullopt;
}

// ", hier:INNER, leader:INNER (INNER: ...)": the composition forms, after the flat names.
std::string composition_names() {
  std::string out;
  for (const CompositionForm& form : registry().composition_forms())
    out += ", " + form.name + ":INNER";
  return out.empty() ? out : out + " (INNER: one of the algorithms before)";
}

std::string accepted_collectives() {
  std::string out;
  for (int i = 0; i <= static_cast<int>(MpiCollective::alltoall); ++i) {
    if (!out.empty()) out += ", ";
    out += mpi_collective_name(static_cast<MpiCollective>(i));
  }
  return out + ", reduce-scatter";
}

template <typename T>
T read_bound(const json& rule, const char* key, T fallback, const std::string& where) {
  const auto it = rule.find(key);
  if (it == rule.end()) return fallback;
  if (!it->is_number_integer() || it->get<long long>() < 0)
    throw std::invalid_argument(where + ": '" + key + "' must be a non-negative integer");
  return it->get<T>();
}

constexpr const char* rule_keys[] = {"collective", "algorithm", "min_ranks",
                                     "max_ranks",  "min_bytes", "max_bytes"};
constexpr const char* document_keys[] = {"version", "rules", "source"};

template <std::size_t N>
void refuse_unknown_keys(const json& object, const char* const (&accepted)[N],
                         const std::string& where) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(std::begin(accepted), std::end(accepted), key) != std::end(accepted)) continue;
    std::string names;
    for (const char* name : accepted) names += std::string(names.empty() ? "" : ", ") + name;
    throw std::invalid_argument(where + ": unknown key '" + key + "'; accepted: " + names);
  }
}

template <typename T>
void refuse_empty_range(T low, T high, const char* min_key, const char* max_key,
                        const std::string& where) {
  if (low <= high) return;
  throw std::invalid_argument(where + ": '" + min_key + "' (" + std::to_string(low) +
                              ") is larger than '" + max_key + "' (" + std::to_string(high) +
                              "); accepted: " + min_key + " <= " + max_key + " (both inclusive)");
}

// The reader's checks, made while parsing (the parsed document has lost duplicates, and a
// deep document must be refused before a tree of it is built): a key twice in one object
// (the parser would keep the last silently, so the file would not mean what it says), and
// nesting deeper than any rules file has. Memory is the open containers' keys, nothing per
// level beyond its own; the name of an object ("the document", "rule N", "'key'") is built
// only for the message.
class RulesChecks : public nlohmann::json_sax<json> {
 public:
  // A rules document nests four levels ("source": {"best": {...}}); the margin is for
  // "source", which tune may grow.
  static constexpr std::size_t kMaxDepth = 16;

  [[nodiscard]] const std::string& found() const { return found_; }

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(false); }
  bool start_array(std::size_t) override { return open(true); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& name) override {
    Open& object = open_.back();
    if (!object.keys.insert(name).second) {
      found_ = name_of(open_.size() - 1) + ": key '" + name +
               "' appears twice; accepted: each key once per object";
      return false;
    }
    object.key = name;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    std::string what = e.what();
    // The library's message without its "[json.exception.parse_error.N] " tag.
    if (const auto tag = what.find("] "); what.starts_with("[json.") && tag != std::string::npos)
      what.erase(0, tag + 2);
    found_ = "not valid JSON (" + what + ")";
    return false;
  }

 private:
  struct Open {
    bool array = false;
    std::size_t elements = 0;    // arrays: elements so far
    std::string key;             // objects: the key of the value being read
    std::set<std::string> keys;  // objects: the keys so far
  };

  bool value() {
    if (!open_.empty() && open_.back().array) ++open_.back().elements;
    return true;
  }
  bool open(bool array) {
    if (open_.size() >= kMaxDepth) {
      found_ = "nested deeper than " + std::to_string(kMaxDepth) +
               " levels; accepted: a rules document (docs/mpi.md, \"Automatic selection\")";
      return false;
    }
    open_.push_back({array, 0, {}, {}});
    return true;
  }
  bool close() {
    open_.pop_back();
    return value();
  }
  // The name of the container open at `level`, from its parents.
  std::string name_of(std::size_t level) const {
    if (level == 0) return "the document";
    const Open& parent = open_[level - 1];
    if (!parent.array) return "'" + parent.key + "'";
    const std::size_t index = parent.elements;  // this container is the next element
    if (level == 2 && !open_[0].array && open_[0].key == "rules")
      return "rule " + std::to_string(index);
    return name_of(level - 1) + " element " + std::to_string(index);
  }

  std::vector<Open> open_;
  std::string found_;
};

Rule parse_rule(const json& item, const std::string& where) {
  if (!item.is_object()) throw std::invalid_argument(where + ": a rule must be an object");
  refuse_unknown_keys(item, rule_keys, where);
  Rule rule;
  const auto collective = item.find("collective");
  if (collective == item.end() || !collective->is_string() ||
      !parse_rule_collective(collective->get<std::string>()))
    throw std::invalid_argument(where + ": 'collective' must be one of " + accepted_collectives());
  rule.collective = collective->get<std::string>();
  const auto algorithm = item.find("algorithm");
  if (algorithm == item.end() || !algorithm->is_string())
    throw std::invalid_argument(where + ": 'algorithm' must be a string");
  rule.algorithm = algorithm->get<std::string>();
  // A file: schedule is read and verified when a call first matches the rule (schedule_file.hpp).
  if (rule.algorithm != "mpi" && !names_file(rule.algorithm) && !registry().find(rule.algorithm))
    throw std::invalid_argument(where + ": unknown algorithm '" + rule.algorithm +
                                "'; accepted: mpi, file:PATH, " + registry().names() +
                                composition_names());
  rule.min_ranks = read_bound<std::int64_t>(item, "min_ranks", 0, where);
  rule.max_ranks = read_bound<std::int64_t>(item, "max_ranks", INT64_MAX, where);
  rule.min_bytes = read_bound<std::uint64_t>(item, "min_bytes", 0, where);
  rule.max_bytes = read_bound<std::uint64_t>(item, "max_bytes", UINT64_MAX, where);
  refuse_empty_range(rule.min_ranks, rule.max_ranks, "min_ranks", "max_ranks", where);
  refuse_empty_range(rule.min_bytes, rule.max_bytes, "min_bytes", "max_bytes", where);
  return rule;
}

}  // namespace

bool Rule::matches(MpiCollective c, int ranks, std::uint64_t bytes) const {
  const auto mine = parse_rule_collective(collective);
  const bool same =
      mine == c || (collective == "reduce-scatter" && (c == MpiCollective::reduce_scatter ||
                                                       c == MpiCollective::reduce_scatter_block));
  return same && ranks >= min_ranks && ranks <= max_ranks && bytes >= min_bytes &&
         bytes <= max_bytes;
}

RuleSet parse_rules(const std::string& text, const std::string& where) {
  RuleSet set;
  try {
    RulesChecks checks;
    if (!json::sax_parse(text, &checks) || !checks.found().empty())
      throw std::invalid_argument(where + ": " +
                                  (checks.found().empty() ? "not valid JSON" : checks.found()));
    const json doc = json::parse(text);
    if (!doc.is_object()) throw std::invalid_argument(where + ": the document must be an object");
    refuse_unknown_keys(doc, document_keys, where);
    const auto version = doc.find("version");
    if (version == doc.end() || !version->is_number_integer() || version->get<int>() != 1)
      throw std::invalid_argument(where + ": 'version' must be 1");
    const auto rules = doc.find("rules");
    if (rules == doc.end() || !rules->is_array())
      throw std::invalid_argument(where + ": 'rules' must be a list");
    for (std::size_t i = 0; i < rules->size(); ++i)
      set.rules.push_back(parse_rule((*rules)[i], where + ": rule " + std::to_string(i)));
  } catch (const json::exception& e) {
    set.rules.clear();
    set.error = where + ": not valid JSON (" + e.what() + ")";
  } catch (const std::invalid_argument& e) {
    set.rules.clear();
    set.error = e.what();
  } catch (const std::exception& e) {  // out of memory, or what else the library may throw
    set.rules.clear();
    set.error = where + ": cannot be read (" + e.what() + ")";
  }
  return set;
}

std::shared_ptr<const RuleSet> load_rules(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const RuleSet>> cache;
  std::lock_guard lock(mutex);
  if (auto it = cache.find(path); it != cache.end()) return it->second;
  auto set = std::make_shared<RuleSet>();
  // Every failure is the file's reason line: the library must never end the program.
  try {
    *set = parse_rules(read_bounded_file(path, "TOPOCOLL_RULES file", kMaxRulesFileBytes),
                       "TOPOCOLL_RULES=" + printable(path));
  } catch (const std::exception& e) {
    set->rules.clear();
    set->error = e.what();
  }
  cache.emplace(path, set);
  return set;
}

std::vector<std::string> default_candidates(MpiCollective c, int /*ranks*/, std::uint64_t bytes) {
  for (const auto& entry : default_table())
    if (entry.collective == c) return bytes < small_message_bytes ? entry.small : entry.large;
  return {};
}

std::vector<std::string> default_table_names() {
  std::vector<std::string> names;
  for (const auto& entry : default_table()) {
    names.insert(names.end(), entry.small.begin(), entry.small.end());
    names.insert(names.end(), entry.large.begin(), entry.large.end());
  }
  return names;
}

}  // namespace topocoll::mpi
