// MSCCL XML under hostile input (docs/interchange.md, "MSCCL XML"): unknown attributes are
// refused (a misspelt one would silently drop what it says), the export refuses what the
// format cannot carry (control characters in the name, a non-commutative reduction) and work
// beyond its limits with the estimate named, and a fuzz loop of mutated msccl-tools files
// only ever imports or refuses with one line.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "core/registry.hpp"
#include "core/schedule_io.hpp"
#include "core/verifier/estimate.hpp"
#include "core/verifier/verifier.hpp"
#include "interop/msccl_xml.hpp"

namespace topocoll {
namespace {

const char* const kSamples[] = {"allreduce_ring_8_1.xml", "allgather_recursive_doubling_8_1.xml",
                                "alltoall_allpairs_8_1.xml"};

std::string sample(const std::string& name) {
  std::ifstream in(std::string(TOPOCOLL_TEST_DATA) + "/msccl/" + name);
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_FALSE(s.str().empty()) << name;
  return s.str();
}

std::string import_error(const std::string& text) {
  try {
    (void)import_msccl_xml(text);
  } catch (const ScheduleFormatError& e) {
    return e.what();
  }
  return "imported";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(MscclHostile, SamplesOfMscclToolsStillImport) {
  for (const char* name : kSamples) EXPECT_EQ(import_error(sample(name)), "imported") << name;
}

TEST(MscclHostile, UnknownAttributesAreRefusedNamingTheAcceptedOnes) {
  const std::string ring = sample("allreduce_ring_8_1.xml");
  EXPECT_EQ(import_error(replaced(ring, "proto=", "maxbytes=\"64\" proto=")),
            "MSCCL XML line 1: <algo> has an unknown attribute 'maxbytes'; accepted: name, proto, "
            "coll, ngpus, nchannels, nchunksperloop, inplace, minBytes, maxBytes");
  EXPECT_NE(import_error(replaced(ring, " cnt=", " cnnt="))
                .find("<step> has an unknown attribute 'cnnt'; accepted: s, type, srcbuf, srcoff, "
                      "dstbuf, dstoff, cnt, depid, deps, hasdep"),
            std::string::npos);
  EXPECT_NE(import_error(replaced(ring, "<tb id=", "<tb colour=\"red\" id="))
                .find("<tb> has an unknown attribute 'colour'"),
            std::string::npos);
  EXPECT_NE(import_error(replaced(ring, "<gpu id=", "<gpu x=\"1\" id="))
                .find("<gpu> has an unknown attribute 'x'"),
            std::string::npos);
  // The byte range the attribute was meant to state is read when spelt right.
  EXPECT_EQ(import_error(replaced(ring, "proto=", "maxBytes=\"64\" proto=")), "imported");
}

std::unique_ptr<Schedule> ring(int ranks) {
  return registry().build("ring",
                          ScheduleRequest{.collective = Collective::allreduce, .ranks = ranks});
}

TEST(MscclHostile, ExportRefusesNamesXmlCannotCarry) {
  const auto schedule = ring(4);
  for (const std::string name :
       {std::string("a\x01z"), std::string("tab\there"), std::string("nl\nx"),
        std::string("del\x7f"), std::string("\xff")}) {
    MscclExportOptions options;
    options.name = name;
    try {
      (void)schedule_to_msccl_xml(*schedule, options);
      ADD_FAILURE() << "exported name " << name;
    } catch (const ScheduleFormatError& e) {
      EXPECT_NE(std::string(e.what()).find("accepted: printable UTF-8 text"), std::string::npos)
          << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  }
  // What XML escapes round-trips through the importer.
  MscclExportOptions options;
  options.name = "a<b>&\"c\" \xc3\xa9";
  const MscclImport back = import_msccl_xml(schedule_to_msccl_xml(*schedule, options));
  EXPECT_EQ(back.schedule->info().algorithm, options.name);
}

TEST(MscclHostile, ExportRefusesANonCommutativeReduction) {
  MscclExportOptions options;
  options.commutative = false;
  try {
    (void)schedule_to_msccl_xml(*ring(4), options);
    ADD_FAILURE() << "exported a non-commutative allreduce";
  } catch (const ScheduleFormatError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot state the order of a reduction's operands"),
              std::string::npos)
        << e.what();
  }
  // No reduction, no operand order: allgather exports.
  const auto allgather =
      registry().build("ring", ScheduleRequest{.collective = Collective::allgather, .ranks = 4});
  EXPECT_FALSE(schedule_to_msccl_xml(*allgather, options).empty());
}

std::uint64_t count(const std::string& text, const std::string& what) {
  std::uint64_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(MscclHostile, ExportEstimateCountsTheStepsItWrites) {
  for (const char* algorithm : {"ring", "recdoub-bw", "swing-bw"}) {
    const auto schedule = registry().build(
        algorithm, ScheduleRequest{.collective = Collective::allreduce, .ranks = 16});
    const MscclExportEstimate e = estimate_msccl_export(*schedule);
    const std::uint64_t written = count(schedule_to_msccl_xml(*schedule), "<step ");
    // Dependencies add nop steps; copies and run splits may be fewer than counted.
    EXPECT_GE(e.xml_steps * 2, written) << algorithm;
    EXPECT_LE(e.xml_steps, written * 2) << algorithm;
    EXPECT_GT(e.memory_bytes, e.output_bytes) << algorithm;
  }
}

TEST(MscclHostile, ExportBeyondTheLimitsIsRefusedWithTheEstimate) {
  MscclExportEstimate e;
  e.rank_steps = 4'000'000;
  e.xml_steps = 8'000'000;
  e.output_bytes = 960'000'000;
  e.memory_bytes = 4'000'000'000;
  e.seconds = 1200;
  try {
    refuse_beyond_limits(e);
    ADD_FAILURE() << "accepted 20 minutes";
  } catch (const ScheduleFormatError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("4000000 rank-steps, 8000000 XML steps"), std::string::npos) << message;
    EXPECT_NE(message.find("about 20 min; accepted: at most 10 min"), std::string::npos) << message;
  }
  e.seconds = 10;
  e.memory_bytes = 1000;
  EXPECT_NO_THROW(refuse_beyond_limits(e));
}

// Deterministic mutations of msccl-tools' files: every one imports or is refused with one
// line; whatever imports verifies without crashing (or is refused as too large).
std::string mutated(const std::string& text, std::mt19937_64& random) {
  std::string out = text;
  const auto at = [&](std::size_t size) {
    return static_cast<std::size_t>(random() % std::max<std::size_t>(size, 1));
  };
  static const char* const kNumbers[] = {"0",
                                         "-1",
                                         "1",
                                         "7",
                                         "8",
                                         "64",
                                         "2147483647",
                                         "9223372036854775808",
                                         "-9223372036854775809",
                                         "16777216",
                                         "x",
                                         "",
                                         "1e3",
                                         "0x10"};
  switch (random() % 6) {
    case 0: out[at(out.size())] = static_cast<char>(random() % 256); break;
    case 1: out.resize(at(out.size())); break;
    case 2: {  // a number replaced
      const std::size_t quote = out.find("=\"", at(out.size()));
      if (quote == std::string::npos) break;
      const std::size_t end = out.find('"', quote + 2);
      if (end == std::string::npos) break;
      out.replace(quote + 2, end - quote - 2, kNumbers[random() % std::size(kNumbers)]);
      break;
    }
    case 3: {  // a line duplicated
      const std::size_t line = out.find('\n', at(out.size()));
      if (line == std::string::npos) break;
      const std::size_t next = out.find('\n', line + 1);
      if (next == std::string::npos) break;
      out.insert(line, out.substr(line, next - line));
      break;
    }
    case 4: {  // a line removed
      const std::size_t line = out.find('\n', at(out.size()));
      const std::size_t next = line == std::string::npos ? line : out.find('\n', line + 1);
      if (next != std::string::npos) out.erase(line, next - line);
      break;
    }
    default: {  // an attribute name misspelt
      const std::size_t eq = out.find('=', at(out.size()));
      if (eq != std::string::npos && eq > 0) out[eq - 1] = static_cast<char>('a' + random() % 26);
      break;
    }
  }
  return out;
}

TEST(MscclHostile, FuzzedFilesImportOrAreRefused) {
  std::mt19937_64 random(20240601);
  int imported = 0, refused = 0;
  for (const char* name : kSamples) {
    const std::string seed = sample(name);
    for (int i = 0; i < 400; ++i) {
      std::string text = seed;
      const int rounds = 1 + static_cast<int>(random() % 3);
      for (int k = 0; k < rounds; ++k) text = mutated(text, random);
      try {
        const MscclImport result = import_msccl_xml(text);
        ++imported;
        VerifyOptions options;
        options.mode = VerifyMode::fingerprint;
        options.threads = 1;
        if (estimate_verify(*result.schedule, options).memory_bytes > (64u << 20)) continue;
        try {
          (void)verify(*result.schedule, options);
        } catch (const VerifyRequestError&) {
        }
      } catch (const ScheduleFormatError& e) {
        ++refused;
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
      }
    }
  }
  EXPECT_GT(imported, 0);
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace topocoll
