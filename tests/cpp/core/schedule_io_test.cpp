// No schedule document crashes the loader or the verifier: malformed files are
// ScheduleFormatError, requests beyond a mode's limits are VerifyRequestError, and anything
// that loads verifies to a report. The fuzz loop at the end runs under the sanitizer build.
#include "core/schedule_io.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <random>

#include "core/registry.hpp"
#include "core/verifier/estimate.hpp"
#include "core/verifier/verifier.hpp"

namespace topocoll {
namespace {

using nlohmann::json;

json document(const std::string& algorithm, Collective collective, int ranks, int root = 0) {
  ScheduleRequest request;
  request.collective = collective;
  request.ranks = ranks;
  request.root = root;
  return json::parse(schedule_to_json(*registry().build(algorithm, request)));
}

VerifyReport verify_text(const std::string& text, VerifyMode mode, bool commutative = true) {
  auto schedule = schedule_from_json(text);
  VerifyOptions options;
  options.mode = mode;
  options.commutative = commutative;
  return verify(*schedule, options);
}

class Modes : public ::testing::TestWithParam<VerifyMode> {};

// Used to dereference a null operation while diagnosing the stall (SIGSEGV).
TEST_P(Modes, RankWithoutStepsIsAWrongScheduleNotACrash) {
  json doc = document("ring", Collective::allreduce, 5);
  doc["steps"][2] = json::array();
  const VerifyReport report = verify_text(doc.dump(), GetParam());
  ASSERT_FALSE(report.ok);
  EXPECT_EQ(report.violation, Violation::unmatched) << report.message;
}

TEST_P(Modes, NoRankWithStepsFailsThePostCondition) {
  json doc = document("ring", Collective::allgather, 4);
  for (auto& steps : doc["steps"]) steps = json::array();
  const VerifyReport report = verify_text(doc.dump(), GetParam());
  ASSERT_FALSE(report.ok);
  EXPECT_EQ(report.violation, Violation::wrong_result) << report.message;
}

INSTANTIATE_TEST_SUITE_P(Robustness, Modes,
                         ::testing::Values(VerifyMode::exact, VerifyMode::fingerprint),
                         [](const auto& info) {
                           return info.param == VerifyMode::exact ? "exact" : "fingerprint";
                         });

struct Malformed {
  const char* name;
  void (*mutate)(json&);
  const char* message;
};

// Errors in the file are input errors (exit 2), including those only the verifier used to
// notice (a block past the slots, overlapping ranges, a port beyond `ports`).
const Malformed kMalformed[] = {
    {"block past slots",
     [](json& d) {
       d["steps"][0][0][0]["blocks"] = {{5, 9}};
     },
     "accepted: 0..6"},
    {"overlapping ranges",
     [](json& d) {
       d["steps"][0][0][0]["blocks"] = {{0, 3}, {2, 4}};
     },
     "sorted and disjoint"},
    {"port beyond ports", [](json& d) { d["steps"][0][0][0]["port"] = 1; }, "'port' = 1"},
    {"peer is self", [](json& d) { d["steps"][0][0][0]["peer"] = 0; }, "the rank itself"},
    {"block beyond 32 bits",
     [](json& d) {
       d["steps"][0][0][0]["blocks"] = {{0, 1LL << 32}};
     },
     "out of range"},
    {"unsigned beyond 64-bit signed",
     [](json& d) { d["steps"][0][0][0]["peer"] = 18446744073709551615ULL; }, "out of range"},
    {"ranks beyond the format", [](json& d) { d["ranks"] = 1LL << 40; }, "'ranks'"},
    {"blocks beyond 32-bit slots", [](json& d) { d["blocks"] = 1LL << 31; }, "'blocks'"},
    {"slots below the user buffer", [](json& d) { d["slots"] = 2; }, "smaller than the user"},
    {"dims not the ranks",
     [](json& d) {
       d["dims"] = {2, 2};
     },
     "'dims' multiply to 4"},
    {"zero dimension", [](json& d) { d["dims"] = {0}; }, "'dims'"},
    {"algorithm not a string", [](json& d) { d["algorithm"] = 3; }, "'algorithm'"},
    {"copy moving blocks",
     [](json& d) {
       d["steps"][0][0].push_back({{"op", "copy"}, {"from", {{0, 1}}}, {"blocks", {{1, 2}}}});
     },
     "keeps_positions"},
    {"copy of other size",
     [](json& d) {
       d["keeps_positions"] = false;
       d["steps"][0][0].push_back({{"op", "copy"}, {"from", {{0, 2}}}, {"blocks", {{1, 2}}}});
     },
     "same number of blocks"},
    {"indivisible chunks",
     [](json& d) {
       d["collective"] = "allgather";
       d["blocks"] = 7;
     },
     "divisible"},
};

TEST(ScheduleFormat, MalformedDocumentsAreFormatErrors) {
  for (const auto& m : kMalformed) {
    json doc = document("ring", Collective::allreduce, 6);
    m.mutate(doc);
    try {
      (void)schedule_from_json(doc.dump());
      ADD_FAILURE() << m.name << ": loaded";
    } catch (const ScheduleFormatError& e) {
      EXPECT_NE(std::string(e.what()).find(m.message), std::string::npos)
          << m.name << ": " << e.what();
    }
  }
}

TEST(ScheduleFormat, DeepNestingIsAFormatError) {
  const std::string deep(100000, '[');
  EXPECT_THROW((void)schedule_from_json(deep), ScheduleFormatError);
  EXPECT_THROW((void)schedule_from_json(deep + std::string(100000, ']')), ScheduleFormatError);
}

TEST(VerifyRequests, AdjacencyTorusMustHoldTheRanks) {
  auto schedule = registry().build("ring", ScheduleRequest{.ranks = 6});
  for (std::vector<int> torus : {std::vector<int>{0}, {-2}, {2, 2}, {6, 0}}) {
    VerifyOptions options;
    options.adjacency_torus = torus;  // {0} used to divide by zero (SIGFPE)
    EXPECT_THROW((void)verify(*schedule, options), VerifyRequestError);
  }
  VerifyOptions options;
  options.adjacency_torus = {3, 2};
  EXPECT_NO_THROW((void)verify(*schedule, options));
}

TEST(VerifyRequests, ExactModeBeyondItsLimitIsARequestError) {
  auto schedule = registry().build("ring", ScheduleRequest{.ranks = 4100});
  EXPECT_THROW((void)verify(*schedule, VerifyOptions{}), VerifyRequestError);
}

TEST(VerifyEstimate, CountsStateWorkAndWindows) {
  auto schedule = registry().build("ring", ScheduleRequest{.ranks = 300});
  VerifyOptions options;
  options.mode = VerifyMode::fingerprint;
  options.translation_symmetry = false;  // every block (the reduced run checks one)
  const VerifyEstimate e = estimate_verify(*schedule, options);
  EXPECT_EQ(e.slot_states, 300u * 300u);
  EXPECT_EQ(e.rank_steps, 300u * 2u * 299u);
  EXPECT_EQ(e.passes, 1u);
  EXPECT_EQ(e.work, 4 * e.rank_steps + 3 * e.slot_states);
  // In one pass: the state and half of it in message buffers, 300 x 450 x 8 bytes.
  EXPECT_EQ(e.memory_bytes, 300u * 450u * 8u + 300u * 512u);
  // In windows a rank's buffer may hold a whole window: 2 x 8 bytes x 300 ranks = 4800 bytes
  // per slot of a window, so 50 slots a window and 6 windows.
  options.memory_budget = 4800 * 50;
  const VerifyEstimate windows = estimate_verify(*schedule, options);
  EXPECT_EQ(windows.passes, 6u);
  EXPECT_EQ(windows.memory_bytes, 300u * 50u * 16u + 300u * 512u);
  const VerifyReport report = verify(*schedule, options);
  EXPECT_TRUE(report.ok) << report.message;
  EXPECT_EQ(static_cast<std::uint64_t>(report.passes), windows.passes);
}

// A run whose symmetry proof alone would be days of work is estimated without searching for
// the symmetry (the search walks whole lanes of sampled ranks: seconds for a ring of 10^6
// ranks, minutes under the sanitizers); a smaller one is still searched.
TEST(VerifyEstimate, HugeRunsAreNotSearchedForASymmetry) {
  VerifyOptions options;
  options.mode = VerifyMode::fingerprint;
  auto huge = registry().build("ring", ScheduleRequest{.ranks = 1'000'000});
  const VerifyEstimate e = estimate_verify(*huge, options);
  EXPECT_EQ(e.rank_steps, 1'000'000ull * 2 * 999'999);
  EXPECT_NE(e.symmetry.find("not searched"), std::string::npos) << e.symmetry;
  EXPECT_GE(e.work, 4 * e.rank_steps);
  auto small = registry().build("ring", ScheduleRequest{.ranks = 300});
  const VerifyEstimate searched = estimate_verify(*small, options);
  EXPECT_EQ(searched.symmetry.find("not searched"), std::string::npos) << searched.symmetry;
  EXPECT_NE(searched.symmetry.find("translation"), std::string::npos) << searched.symmetry;
}

// Below that, the caller's limit decides: when neither a symmetry (at least its proof and one
// pass) nor a full run could fit in it, the estimate refuses without the search; when a full
// run fits, it still searches, since the symmetric run may cost more.
TEST(VerifyEstimate, RunsBeyondTheCallersLimitAreNotSearched) {
  VerifyOptions options;
  options.mode = VerifyMode::fingerprint;
  VerifyOptions every_block = options;
  every_block.translation_symmetry = false;
  auto ring = registry().build("ring", ScheduleRequest{.ranks = 20'000});
  const std::uint64_t rank_steps = 20'000ull * 2 * 19'999;
  const std::uint64_t full_run = estimate_verify(*ring, every_block).work;
  // The symmetric run's least work: its proof (8 per rank-step) and one pass (4).
  const std::uint64_t least = std::min(full_run, 12 * rank_steps);
  const VerifyEstimate refused = estimate_verify(*ring, options, least - 1);
  EXPECT_EQ(refused.rank_steps, rank_steps);
  EXPECT_NE(refused.symmetry.find("not searched"), std::string::npos) << refused.symmetry;
  EXPECT_EQ(refused.work, full_run);
  const VerifyEstimate searched = estimate_verify(*ring, options, least);
  EXPECT_NE(searched.symmetry.find("translation symmetry on a sample"), std::string::npos)
      << searched.symmetry;
  const VerifyEstimate unlimited = estimate_verify(*ring, options);
  EXPECT_EQ(unlimited.symmetry, searched.symmetry);
  EXPECT_EQ(unlimited.work, searched.work);
}

// Deterministic fuzzing: boundary values in random fields of valid documents. Whatever loads
// must verify to a report in both modes; whatever does not load must say why.
TEST(ScheduleFormat, FuzzedDocumentsLoadOrFailCleanly) {
  const std::vector<json> seeds = {document("ring", Collective::allreduce, 4),
                                   document("binomial-halving", Collective::bcast, 5, 2),
                                   document("pairwise", Collective::alltoall, 4),
                                   document("ring", Collective::allgather, 3)};
  // Mostly small integers, so that many documents still load and reach the verifier.
  const std::vector<json> values = {0,
                                    1,
                                    2,
                                    3,
                                    4,
                                    5,
                                    0,
                                    1,
                                    2,
                                    3,
                                    -1,
                                    7,
                                    8,
                                    255,
                                    65536,
                                    1LL << 24,
                                    1LL << 31,
                                    1LL << 32,
                                    -(1LL << 31),
                                    json(),
                                    "copy",
                                    "reduce",
                                    json::array(),
                                    json::object(),
                                    json::array({0, 1}),
                                    1.5,
                                    true};
  std::mt19937 random(12345);
  int loaded = 0;
  for (int iteration = 0; iteration < 3000; ++iteration) {
    json doc = seeds[random() % seeds.size()];
    const json flat = doc.flatten();
    for (int k = 0; k < 1 + static_cast<int>(random() % 2); ++k) {
      auto it = flat.begin();
      std::advance(it, random() % flat.size());
      doc[json::json_pointer(it.key())] = values[random() % values.size()];
    }
    std::unique_ptr<ExplicitSchedule> schedule;
    try {
      schedule = schedule_from_json(doc.dump());
    } catch (const ScheduleFormatError&) {
      continue;
    }
    ++loaded;
    for (auto mode : {VerifyMode::exact, VerifyMode::fingerprint}) {
      VerifyOptions options;
      options.mode = mode;
      options.commutative = random() % 2 == 0;
      // What the CLI refuses by the estimate (a header with 2^24 blocks) stays out here too.
      if (estimate_verify(*schedule, options).memory_bytes > (64u << 20)) continue;
      try {
        const VerifyReport report = verify(*schedule, options);
        EXPECT_TRUE(report.ok || !report.message.empty());
      } catch (const VerifyRequestError&) {
      }
    }
  }
  EXPECT_GT(loaded, 100);  // the loop reaches the verifier, not only the loader
}

}  // namespace
}  // namespace topocoll
