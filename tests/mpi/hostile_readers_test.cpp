// The runtime's readers under hostile files (no MPI run needed): the rules file's reader
// refuses deep nesting in bounded memory and never throws, every file goes through the
// reader policy (a FIFO, /dev/zero, a directory are refused with the file named), a rule may
// name a file: schedule, and a file: schedule whose verification would exceed
// TOPOCOLL_MAX_VERIFY_BYTES is refused from its estimate. A fuzz loop of mutated rules files
// only ever yields rules or one error line.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "runtime/config.hpp"
#include "runtime/rules.hpp"
#include "runtime/schedule_file.hpp"

namespace topocoll::mpi {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir(const std::string& name) {
  const fs::path dir =
      fs::path(::testing::TempDir()) / ("hostile_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string write(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

TEST(HostileRules, DeepNestingIsRefusedInBoundedMemory) {
  // 400 KB of nested arrays: the old duplicate-key tracker named each level after its
  // parent (memory quadratic in the depth) and ended every rank with std::bad_alloc.
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  const RuleSet set = parse_rules("{\"version\": 1, \"rules\": " + deep + "}", "deep.json");
  EXPECT_TRUE(set.rules.empty());
  EXPECT_EQ(set.error,
            "deep.json: nested deeper than 16 levels; accepted: a rules document (docs/mpi.md, "
            "\"Automatic selection\")");
  EXPECT_NE(parse_rules(deep, "deep.json").error.find("nested deeper"), std::string::npos);
  // Objects too, and what tune writes (four levels) still reads.
  std::string objects;
  for (int i = 0; i < 50000; ++i) objects += "{\"a\":";
  objects += "1" + std::string(50000, '}');
  EXPECT_NE(parse_rules(objects, "o").error.find("nested deeper"), std::string::npos);
}

TEST(HostileRules, DuplicateKeysAreStillNamedByTheirObject) {
  EXPECT_EQ(parse_rules(R"({"version": 1, "rules": [{"collective": "allreduce",
      "algorithm": "ring"}, {"collective": "allreduce", "algorithm": "ring", "algorithm": "x"}]})",
                        "r.json")
                .error,
            "r.json: rule 1: key 'algorithm' appears twice; accepted: each key once per object");
  EXPECT_EQ(
      parse_rules(R"({"version": 1, "rules": [], "source": {"l": [[{"k": 1, "k": 2}]]}})", "r.json")
          .error,
      "r.json: 'l' element 0 element 0: key 'k' appears twice; accepted: each key once "
      "per object");
}

TEST(HostileRules, EveryFileGoesThroughTheReaderPolicy) {
  const fs::path dir = temp_dir("rules_files");
  const std::string fifo = (dir / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::pair<std::string, std::string> cases[] = {
      {"/dev/zero",
       "TOPOCOLL_RULES file '/dev/zero': is a character device; accepted: a regular "
       "file"},
      {fifo, "TOPOCOLL_RULES file '" + fifo + "': is a FIFO; accepted: a regular file"},
      {dir.string(),
       "TOPOCOLL_RULES file '" + dir.string() + "': is a directory; accepted: a regular file"},
      {write(dir / "big.json", std::string((1 << 20) + 1, ' ')),
       "': larger than the limit; accepted: at most 1 MiB (1048576)"},
  };
  for (const auto& [path, message] : cases) {
    const auto set = load_rules(path);
    EXPECT_TRUE(set->rules.empty()) << path;
    EXPECT_NE(set->error.find(message), std::string::npos) << set->error;
  }
  fs::remove_all(dir);
}

TEST(HostileRules, ARuleMayNameAFileSchedule) {
  const auto set = parse_rules(R"({"version": 1, "rules": [{"collective": "allreduce",
      "algorithm": "file:/some/where.xml"}]})",
                               "r.json");
  EXPECT_EQ(set.error, "");
  ASSERT_EQ(set.rules.size(), 1u);
  EXPECT_EQ(set.rules[0].algorithm, "file:/some/where.xml");
  EXPECT_NE(parse_rules(R"({"version": 1, "rules": [{"collective": "allreduce",
      "algorithm": "nosuch"}]})",
                        "r.json")
                .error.find("accepted: mpi, file:PATH, "),
            std::string::npos);
}

ScheduleRequest allreduce(int ranks) {
  ScheduleRequest request;
  request.collective = Collective::allreduce;
  request.ranks = ranks;
  return request;
}

TEST(HostileScheduleFiles, FilesGoThroughTheReaderPolicy) {
  const fs::path dir = temp_dir("schedule_files");
  const std::string fifo = (dir / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::pair<std::string, std::string> cases[] = {
      {"file:" + fifo, "is a FIFO; accepted: a regular file"},
      {"file:/dev/zero", "is a character device; accepted: a regular file"},
      {"file:" + dir.string(), "is a directory; accepted: a regular file"},
      {"file:" + write(dir / "empty.json", ""), "the text is empty"},
  };
  for (const auto& [algorithm, message] : cases) {
    const auto why = file_rejection(algorithm, allreduce(4), kDefaultMaxVerifyBytes);
    ASSERT_TRUE(why.has_value()) << algorithm;
    EXPECT_NE(why->find(message), std::string::npos) << *why;
    EXPECT_EQ(why->find("not valid JSON ("), std::string::npos) << *why;
    EXPECT_EQ(file_schedule(algorithm), nullptr);
  }
  fs::remove_all(dir);
}

std::string huge_xml(int ranks) {
  std::string xml =
      "<algo name=\"huge\" proto=\"Simple\" nchannels=\"1\" nchunksperloop=\"16777216\" "
      "ngpus=\"" +
      std::to_string(ranks) + "\" coll=\"allreduce\" inplace=\"1\">\n";
  for (int r = 0; r < ranks; ++r)
    xml += "<gpu id=\"" + std::to_string(r) +
           "\" i_chunks=\"16777216\" o_chunks=\"0\" s_chunks=\"0\"/>\n";
  return xml + "</algo>\n";
}

TEST(HostileScheduleFiles, VerificationBeyondTheBoundIsRefusedFromItsEstimate) {
  // 1 KB declaring 2^24 chunks: the verifier would hold about 800 MB per rank.
  const fs::path dir = temp_dir("huge");
  const std::string algorithm = "file:" + write(dir / "huge.xml", huge_xml(4));
  const auto why = file_rejection(algorithm, allreduce(4), kDefaultMaxVerifyBytes);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("verifying it needs about "), std::string::npos) << *why;
  EXPECT_NE(why->find("accepted: at most 256 MiB (TOPOCOLL_MAX_VERIFY_BYTES)"), std::string::npos)
      << *why;
  // A small correct file is verified and serves the call (msccl-tools' ring on 8 ranks).
  const std::string ring =
      std::string("file:") + TOPOCOLL_TEST_DATA + "/msccl/allreduce_ring_8_1.xml";
  EXPECT_EQ(file_rejection(ring, allreduce(8), kDefaultMaxVerifyBytes), std::nullopt);
  EXPECT_NE(file_schedule(ring), nullptr);
  // ... unless the bound is below its estimate.
  const auto tight = file_rejection(ring, allreduce(8), 1024);
  ASSERT_TRUE(tight.has_value());
  EXPECT_NE(tight->find("accepted: at most 1 KiB (TOPOCOLL_MAX_VERIFY_BYTES)"), std::string::npos)
      << *tight;
  fs::remove_all(dir);
}

// Deterministic mutations of a rules file tune would write: parse_rules never throws and
// gives either rules or one line naming the file.
TEST(HostileRules, FuzzedRulesFilesParseOrAreRefused) {
  const std::string seed = R"({"version": 1, "rules": [
    {"collective": "allreduce", "min_ranks": 4, "max_ranks": 4, "min_bytes": 0,
     "max_bytes": 65535, "algorithm": "ring"},
    {"collective": "reduce-scatter", "min_ranks": 2, "max_ranks": 64, "min_bytes": 65536,
     "max_bytes": 9223372036854775807, "algorithm": "recdoub-bw"},
    {"collective": "bcast", "algorithm": "mpi"}],
    "source": {"topology": "torus:2x2", "best": {"8": "ring", "16": "ring"}}})";
  static const char* const kTokens[] = {"[",       "]",
                                        "{",       "}",
                                        ",",       ":",
                                        "\"",      "-1",
                                        "1e999",   "18446744073709551616",
                                        "null",    "true",
                                        "\\u0000", "\"rules\"",
                                        "\xff",    "[[[[[[[[[[[[[[[[[[[["};
  std::mt19937_64 random(7);
  int accepted = 0, refused = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string text = seed;
    const int rounds = 1 + static_cast<int>(random() % 4);
    for (int k = 0; k < rounds; ++k) {
      const std::size_t at = random() % (text.size() + 1);
      switch (random() % 4) {
        case 0: text.insert(at, kTokens[random() % std::size(kTokens)]); break;
        case 1: text.erase(at, random() % 8); break;
        case 2:
          if (at < text.size()) text[at] = static_cast<char>(random() % 256);
          break;
        default: text.resize(at); break;
      }
    }
    RuleSet set;
    ASSERT_NO_THROW(set = parse_rules(text, "fuzz.json")) << text;
    if (set.error.empty()) {
      ++accepted;
    } else {
      ++refused;
      EXPECT_TRUE(set.rules.empty());
      EXPECT_EQ(set.error.rfind("fuzz.json: ", 0), 0u) << set.error;
    }
  }
  EXPECT_GT(accepted, 0);
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace topocoll::mpi
