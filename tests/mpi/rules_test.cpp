// The rules file of `auto` (runtime/rules.cpp): a file that does not say one clear thing is
// refused with one line naming the problem and the accepted values: unknown keys (a typo such
// as "max_byte" would otherwise leave the range open), an empty range (min above max), a key
// given twice (JSON parsers keep the last silently).
#include "runtime/rules.hpp"

#include <gtest/gtest.h>

#include <string>

using topocoll::mpi::parse_rules;

namespace {

std::string rule(const std::string& fields) {
  return R"({"version": 1, "rules": [{"collective": "allreduce", "algorithm": "ring"},
    {"collective": "allreduce", "algorithm": "ring")" +
         fields + "}]}";
}

// The error of `text`, checked to be one line naming the file.
std::string error_of(const std::string& text) {
  const auto set = parse_rules(text, "rules.json");
  EXPECT_TRUE(set.rules.empty()) << text;
  EXPECT_EQ(set.error.find('\n'), std::string::npos) << set.error;
  EXPECT_EQ(set.error.rfind("rules.json: ", 0), 0u) << set.error;
  return set.error;
}

}  // namespace

TEST(RulesFile, AcceptsWhatTuneWrites) {
  const auto set = parse_rules(
      R"({"version": 1, "rules": [{"collective": "allreduce", "min_ranks": 4, "max_ranks": 4,
          "min_bytes": 0, "max_bytes": 65535, "algorithm": "ring"},
          {"collective": "allreduce", "min_ranks": 4, "max_ranks": 4, "min_bytes": 65536,
          "max_bytes": 9223372036854775807, "algorithm": "recdoub-bw"}],
          "source": {"topology": "torus:2x2", "best": {"8": "ring", "16": "ring"}}})",
      "rules.json");
  EXPECT_EQ(set.error, "");
  ASSERT_EQ(set.rules.size(), 2u);
  EXPECT_EQ(set.rules[1].min_bytes, 65536u);
  // A single-value range is not empty.
  EXPECT_EQ(parse_rules(rule(R"(, "min_bytes": 8, "max_bytes": 8)"), "r").error, "");
}

TEST(RulesFile, RefusesUnknownKeys) {
  EXPECT_EQ(error_of(rule(R"(, "max_byte": 100)")),
            "rules.json: rule 1: unknown key 'max_byte'; accepted: collective, algorithm, "
            "min_ranks, max_ranks, min_bytes, max_bytes");
  EXPECT_EQ(error_of(R"({"version": 1, "rules": [], "rule": []})"),
            "rules.json: unknown key 'rule'; accepted: version, rules, source");
}

TEST(RulesFile, RefusesEmptyRanges) {
  EXPECT_EQ(error_of(rule(R"(, "min_bytes": 100, "max_bytes": 99)")),
            "rules.json: rule 1: 'min_bytes' (100) is larger than 'max_bytes' (99); accepted: "
            "min_bytes <= max_bytes (both inclusive)");
  EXPECT_EQ(error_of(rule(R"(, "min_ranks": 8, "max_ranks": 4)")),
            "rules.json: rule 1: 'min_ranks' (8) is larger than 'max_ranks' (4); accepted: "
            "min_ranks <= max_ranks (both inclusive)");
}

TEST(RulesFile, RefusesKeysGivenTwice) {
  EXPECT_EQ(error_of(rule(R"(, "max_bytes": 10, "max_bytes": 20)")),
            "rules.json: rule 1: key 'max_bytes' appears twice; accepted: each key once per "
            "object");
  EXPECT_EQ(error_of(R"({"version": 1, "rules": [], "version": 1})"),
            "rules.json: the document: key 'version' appears twice; accepted: each key once "
            "per object");
  EXPECT_EQ(error_of(R"({"version": 1, "rules": [], "source": {"best": {"8": "a", "8": "b"}}})"),
            "rules.json: 'best': key '8' appears twice; accepted: each key once per object");
  // The same key in two different objects is fine.
  EXPECT_EQ(parse_rules(rule(R"(, "max_bytes": 10)"), "r").error, "");
}
