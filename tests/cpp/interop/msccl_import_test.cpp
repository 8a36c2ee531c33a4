// MSCCL XML import: the samples written by msccl-tools verify, and mutated copies are rejected
// with the violation named (docs/interchange.md, "MSCCL XML in").
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "core/schedule_io.hpp"
#include "core/verifier/verifier.hpp"
#include "interop/msccl_xml.hpp"

namespace topocoll {
namespace {

std::string sample(const std::string& name) {
  std::ifstream in(std::string(TOPOCOLL_TEST_DATA) + "/msccl/" + name);
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_FALSE(s.str().empty()) << name;
  return s.str();
}

VerifyReport verify_xml(const std::string& text) {
  const MscclImport imported = import_msccl_xml(text);
  return verify(*imported.schedule);
}

// Replaces the first match of `pattern` (after `skip` earlier matches) by `with`.
std::string mutate(const std::string& text, const std::string& pattern, const std::string& with,
                   int skip = 0) {
  const std::regex re(pattern);
  auto it = std::sregex_iterator(text.begin(), text.end(), re);
  for (int i = 0; i < skip; ++i) ++it;
  EXPECT_NE(it, std::sregex_iterator()) << pattern;
  const auto pos = static_cast<std::size_t>(it->position());
  return text.substr(0, pos) + with + text.substr(pos + static_cast<std::size_t>(it->length()));
}

const char* const kSamples[] = {"allreduce_ring_8_1.xml", "allgather_recursive_doubling_8_1.xml",
                                "alltoall_allpairs_8_1.xml"};

TEST(InteropMscclImport, SamplesVerify) {
  for (const char* name : kSamples) {
    const MscclImport imported = import_msccl_xml(sample(name));
    EXPECT_EQ(imported.schedule->ranks(), 8) << name;
    EXPECT_TRUE(imported.schedule->has_lanes()) << name;
    const VerifyReport r = verify(*imported.schedule);
    EXPECT_TRUE(r.ok) << name << ": " << r.message;
  }
}

TEST(InteropMscclImport, SampleShapes) {
  const MscclImport ring = import_msccl_xml(sample("allreduce_ring_8_1.xml"));
  EXPECT_EQ(ring.schedule->info().collective, Collective::allreduce);
  EXPECT_EQ(ring.schedule->info().blocks, 8);
  // One threadblock plus its receive lane per gpu.
  EXPECT_EQ(ring.schedule->lane_count(0), 2);
  const MscclImport a2a = import_msccl_xml(sample("alltoall_allpairs_8_1.xml"));
  EXPECT_EQ(a2a.schedule->info().collective, Collective::alltoall);
  EXPECT_EQ(a2a.schedule->info().blocks, 8);
  bool ranks_note = false;
  for (const std::string& n : a2a.notes)
    ranks_note |= n.find("exactly 8 ranks") != std::string::npos;
  EXPECT_TRUE(ranks_note);
}

TEST(InteropMscclImport, DroppedReceiveIsUnmatched) {
  for (const char* name : kSamples) {
    // The receive becomes a no-op (its step number stays, so dependencies on it still resolve).
    const std::string text = mutate(sample(name), R"re(type="r")re", "type=\"nop\"");
    const VerifyReport r = verify_xml(text);
    EXPECT_FALSE(r.ok) << name;
    // The send waits for ever, or (where another threadblock forwards the chunk) is read
    // before anything arrived.
    EXPECT_TRUE(r.violation == Violation::unmatched || r.violation == Violation::read_undefined)
        << name << ": " << r.message;
  }
}

// gpu 0's first two sending threadblocks swap their peers (or the only one sends elsewhere).
std::string change_peer(const std::string& text) {
  const std::size_t end = text.find("<gpu id=\"1\"");
  const std::regex re(R"re(<tb id="\d+" send="(\d+)")re");
  std::vector<std::pair<std::size_t, std::string>> peers;  // position of the value, value
  for (auto it = std::sregex_iterator(text.begin(), text.begin() + static_cast<long>(end), re);
       it != std::sregex_iterator(); ++it)
    peers.emplace_back(static_cast<std::size_t>(it->position(1)), (*it)[1].str());
  EXPECT_FALSE(peers.empty());
  std::string out = text;
  if (peers.size() == 1) {
    out.replace(peers[0].first, peers[0].second.size(), peers[0].second == "3" ? "4" : "3");
    return out;
  }
  // Replace the later one first so the earlier position stays valid.
  out.replace(peers[1].first, peers[1].second.size(), peers[0].second);
  out.replace(peers[0].first, peers[0].second.size(), peers[1].second);
  return out;
}

TEST(InteropMscclImport, ChangedPeerIsRejected) {
  for (const char* name : kSamples) {
    const VerifyReport r = verify_xml(change_peer(sample(name)));
    EXPECT_FALSE(r.ok) << name;
    EXPECT_TRUE(r.violation == Violation::unmatched || r.violation == Violation::wrong_result ||
                r.violation == Violation::block_mismatch)
        << name << ": " << r.message;
  }
}

TEST(InteropMscclImport, OutOfRangeOffsetIsNamed) {
  for (const char* name : kSamples) {
    const std::regex re(R"re((type="s" srcbuf="[io]" srcoff=")\d+)re");
    const std::string text =
        std::regex_replace(sample(name), re, "$018", std::regex_constants::format_first_only);
    ASSERT_NE(text, sample(name));
    try {
      (void)import_msccl_xml(text);
      ADD_FAILURE() << name << ": accepted an offset past the buffer";
    } catch (const ScheduleFormatError& e) {
      EXPECT_NE(std::string(e.what()).find("source offset 8 with cnt"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("out of range"), std::string::npos) << e.what();
    }
  }
}

TEST(InteropMscclImport, MalformedInputsAreFormatErrors) {
  const std::string ring = sample("allreduce_ring_8_1.xml");
  const std::string bad[] = {
      "",
      "<algo",
      ring.substr(0, ring.size() / 2),
      mutate(ring, R"re(ngpus="8")re", "ngpus=\"eight\""),
      mutate(ring, R"re(ngpus="8")re", "ngpus=\"99999999999999999999999\""),
      mutate(ring, R"re(cnt="1")re", "cnt=\"-5\""),
      mutate(ring, R"re(cnt="1")re", "cnt=\"1e9\""),
      mutate(ring, R"re(type="rrs")re", "type=\"xyz\""),
      mutate(ring, R"re(coll="allreduce")re", "coll=\"bcast\""),
      mutate(ring, R"re(depid="-1" deps="-1")re", "depid=\"5\" deps=\"0\""),
      mutate(ring, R"re(send="1")re", "send=\"0\""),
      "<algo ngpus=\"2\" coll=\"allreduce\"><gpu id=\"0\" i_chunks=\"1\"/><gpu id=\"0\" "
      "i_chunks=\"1\"/></algo>",
      "<algo ngpus=\"1\" coll=\"allreduce\"><gpu id=\"0\" i_chunks=\"1\"><tb id=\"0\"><foo/>"
      "</tb></gpu></algo>",
      "<algo ngpus=\"2\" coll=\"allgather\"><gpu id=\"0\" o_chunks=\"3\"/><gpu id=\"1\" "
      "o_chunks=\"3\"/></algo>",
  };
  for (const std::string& text : bad) {
    EXPECT_THROW((void)import_msccl_xml(text), ScheduleFormatError) << text.substr(0, 200);
  }
}

}  // namespace
}  // namespace topocoll
