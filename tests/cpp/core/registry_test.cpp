#include "core/registry.hpp"

#include <gtest/gtest.h>

#include <set>

namespace topocoll {
namespace {

const char* const kPapers[] = {"swing-nsdi24.txt", "bine-trees-sc25.txt", "trivance.txt",
                               "cm200-all-to-all-tr0293.txt", "canary-fgcs24.txt"};

TEST(Registry, EveryEntryIsComplete) {
  std::set<std::string> names;
  for (const auto& a : registry().all()) {
    EXPECT_TRUE(names.insert(a.name).second) << "duplicate name " << a.name;
    EXPECT_FALSE(a.family.empty()) << a.name;
    EXPECT_FALSE(a.summary.empty()) << a.name;
    EXPECT_FALSE(a.collectives.empty()) << a.name;
    EXPECT_TRUE(a.build) << a.name;
    bool cites_paper = false;
    for (const char* paper : kPapers) cites_paper |= a.paper.find(paper) != std::string::npos;
    EXPECT_TRUE(cites_paper) << a.name << " cites '" << a.paper << "'";
    const auto ports = a.accepted_ports(1);
    EXPECT_FALSE(ports.empty()) << a.name;
    EXPECT_GE(a.requirements.min_ranks, 1) << a.name;
  }
}

TEST(Registry, EveryDefaultPortCountIsAccepted) {
  for (const auto& a : registry().all()) {
    for (int d = 1; d <= 4; ++d) {
      if (d > 1 && a.requirements.dims == DimsRule::ring_only) continue;
      const auto ports = a.accepted_ports(d);
      EXPECT_NE(std::find(ports.begin(), ports.end(), a.default_ports(d)), ports.end())
          << a.name << " D=" << d;
    }
  }
}

TEST(Registry, UnknownNamesListTheAcceptedOnes) {
  try {
    (void)registry().get("no-such-algorithm");
    FAIL() << "expected UnsupportedRequest";
  } catch (const UnsupportedRequest& e) {
    EXPECT_NE(std::string(e.what()).find("accepted: "), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("ring"), std::string::npos);
  }
}

AlgorithmInfo fake(RankRule rule) {
  AlgorithmInfo a;
  a.name = "fake";
  a.collectives = {Collective::allreduce, Collective::bcast};
  a.requirements.ranks = rule;
  return a;
}

ScheduleRequest request(int ranks, Collective c = Collective::allreduce) {
  ScheduleRequest r;
  r.collective = c;
  r.ranks = ranks;
  r.dims = {ranks};
  return r;
}

TEST(Registry, RankRulesNameTheAcceptedValues) {
  EXPECT_FALSE(Registry::rejection(fake(RankRule::even), request(6)));
  EXPECT_NE(Registry::rejection(fake(RankRule::even), request(7))->find("accepted: 2, 4, 6"),
            std::string::npos);
  EXPECT_FALSE(Registry::rejection(fake(RankRule::power_of_two), request(64)));
  EXPECT_NE(Registry::rejection(fake(RankRule::power_of_two), request(48))->find("power-of-two"),
            std::string::npos);
  EXPECT_FALSE(Registry::rejection(fake(RankRule::power_of_three), request(81)));
  EXPECT_TRUE(Registry::rejection(fake(RankRule::power_of_three), request(54)));
  EXPECT_NE(Registry::rejection(fake(RankRule::any), request(1))->find("at least 2"),
            std::string::npos);
}

TEST(Registry, RootsAndCollectivesAreChecked) {
  auto r = request(8, Collective::bcast);
  r.root = 8;
  EXPECT_NE(Registry::rejection(fake(RankRule::any), r)->find("accepted: 0..7"), std::string::npos);
  EXPECT_NE(Registry::rejection(fake(RankRule::any), request(8, Collective::alltoall))
                ->find("does not implement alltoall"),
            std::string::npos);
}

TEST(Registry, ShapesMustAgreeWithRanks) {
  ScheduleRequest r;
  r.ranks = 8;
  r.dims = {3, 3};
  EXPECT_THROW(normalize_shape(r), UnsupportedRequest);
  r.ranks = 0;
  normalize_shape(r);
  EXPECT_EQ(r.ranks, 9);
  r.dims = {0, 4};
  EXPECT_THROW(normalize_shape(r), UnsupportedRequest);
}

}  // namespace
}  // namespace topocoll
