#include "rules.hpp"

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/registry.hpp"

namespace topocoll::mpi {
namespace {

using nlohmann::json;

constexpr std::uint64_t small_message_bytes = 64 * 1024;

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

// A key twice in one JSON object: the parser would keep the last silently, so the file would
// not mean what it says. Found while parsing (the parsed document has lost it); names the
// object: the document, rule N, or the key that holds it.
class DuplicateKeys {
 public:
  bool operator()(int /*depth*/, json::parse_event_t event, const json& parsed) {
    switch (event) {
      case json::parse_event_t::key:
        key_ = parsed.get<std::string>();
        if (!objects_.empty() && !objects_.back().keys.insert(key_).second && found_.empty())
          found_ = objects_.back().name + ": key '" + key_ +
                   "' appears twice; accepted: each key once per object";
        break;
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        objects_.push_back({name_of_next(), {}, 0, event == json::parse_event_t::array_start});
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        objects_.pop_back();
        count_element();
        break;
      case json::parse_event_t::value: count_element(); break;
    }
    return true;
  }
  [[nodiscard]] const std::string& found() const { return found_; }

 private:
  struct Open {
    std::string name;
    std::set<std::string> keys;
    std::size_t elements = 0;  // arrays: elements so far
    bool array = false;
  };
  std::string name_of_next() const {
    if (objects_.empty()) return "the document";
    const Open& parent = objects_.back();
    if (!parent.array) return "'" + key_ + "'";
    if (parent.name == "'rules'" && objects_.size() == 2)
      return "rule " + std::to_string(parent.elements);
    return parent.name + " element " + std::to_string(parent.elements);
  }
  void count_element() {
    if (!objects_.empty() && objects_.back().array) ++objects_.back().elements;
  }
  std::vector<Open> objects_;
  std::string key_;
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
  if (rule.algorithm != "mpi" && !registry().find(rule.algorithm))
    throw std::invalid_argument(where + ": unknown algorithm '" + rule.algorithm +
                                "'; accepted: mpi, " + registry().names());
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
    DuplicateKeys duplicates;
    const json doc = json::parse(text, std::ref(duplicates));
    if (!duplicates.found().empty()) throw std::invalid_argument(where + ": " + duplicates.found());
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
  }
  return set;
}

std::shared_ptr<const RuleSet> load_rules(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const RuleSet>> cache;
  std::lock_guard lock(mutex);
  if (auto it = cache.find(path); it != cache.end()) return it->second;
  std::ifstream in(path);
  std::shared_ptr<const RuleSet> set;
  if (!in) {
    auto failed = std::make_shared<RuleSet>();
    failed->error = "TOPOCOLL_RULES=" + path + ": cannot open the file";
    set = failed;
  } else {
    std::stringstream text;
    text << in.rdbuf();
    set = std::make_shared<RuleSet>(parse_rules(text.str(), "TOPOCOLL_RULES=" + path));
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
