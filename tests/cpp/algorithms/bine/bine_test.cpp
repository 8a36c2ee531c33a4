#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "algorithms/bine/bine_butterfly.hpp"
#include "algorithms/common/negabinary.hpp"
#include "core/registry.hpp"
#include "core/verifier/verifier.hpp"
#include "support/sweep_sample.hpp"

namespace topocoll {
namespace {

namespace nb = negabinary;
using algorithms::bine::AllgatherOrder;
using algorithms::bine::BineGrid;
using algorithms::bine::BineRing;

const std::vector<Collective> kCollectives = {Collective::allreduce, Collective::reduce_scatter,
                                              Collective::allgather};
const std::vector<std::string> kBandwidth = {"bine-bw", "bine-bw-block", "bine-bw-permute",
                                             "bine-bw-send", "bine-bw-two"};

std::string shape(const std::vector<int>& dims) {
  std::string out;
  for (int d : dims) out += (out.empty() ? "" : "x") + std::to_string(d);
  return out;
}

VerifyReport check(const std::string& name, Collective c, int p, VerifyMode mode,
                   std::vector<int> dims = {}, int ports = 0) {
  ScheduleRequest request;
  request.collective = c;
  request.ranks = p;
  request.dims = std::move(dims);
  request.ports = ports;
  auto schedule = registry().build(name, request);
  VerifyOptions options;
  options.mode = mode;
  return verify(*schedule, options);
}

// ---- negabinary helpers -------------------------------------------------------------------

TEST(BineNegabinary, EncodeDecodeRoundTripAndPaperExamples) {
  for (std::int64_t x = -5000; x <= 5000; ++x) EXPECT_EQ(nb::decode(nb::encode(x)), x);
  EXPECT_EQ(nb::encode(2), 0b110U);  // section 2.3.1
  EXPECT_EQ(nb::encode(-1), 0b11U);
  EXPECT_EQ(nb::encode(-2), 0b10U);
  EXPECT_EQ(nb::max_value(6), 21);  // 010101
  EXPECT_EQ(nb::max_value(3), 5);   // the rightmost rank of an 8-node tree
  EXPECT_EQ(nb::rank_to_nb(6, 8), 0b010U);
  EXPECT_EQ(nb::rank_to_nb(2, 8), 0b110U);
  for (int k = 0; k < 40; ++k) {
    std::int64_t sum = 0, power = 1;
    for (int i = 0; i <= k; ++i, power *= -2) sum += power;
    EXPECT_EQ(nb::rho(k), sum) << k;
  }
}

TEST(BineNegabinary, FitsMatchesTheRangeOfEveryWidth) {
  for (int w = 1; w <= 12; ++w)
    for (std::int64_t x = -3000; x <= 3000; ++x)
      EXPECT_EQ(nb::fits(x, w), x >= nb::min_value(w) && x <= nb::max_value(w)) << w << " " << x;
}

TEST(BineNegabinary, PaperFigureSixAndEightValues) {
  // v(2) = 011 and v(5) = 111 on 8 ranks (section 3.2.2); rank 0 sends blocks 1, 2, 5, 6 first,
  // which the permutation puts at positions 4..7 (section 4.3.1, Fig. 8).
  EXPECT_EQ(nb::bine_v(2, 8), 0b011U);
  EXPECT_EQ(nb::bine_v(5, 8), 0b111U);
  std::set<std::uint64_t> positions;
  for (int b : {1, 2, 5, 6}) positions.insert(nb::bine_nu(b, 8));
  EXPECT_EQ(positions, (std::set<std::uint64_t>{4, 5, 6, 7}));
  EXPECT_EQ(nb::bine_nu(1, 8), 4U);  // "rank 1 would send its block to rank 4"
}

// ---- trees ---------------------------------------------------------------------------------

TEST(BineTrees, PrunedTreeReachesEveryRankOnceForEveryEvenSize) {
  for (int d = 2; d <= 4096; d += 2) {
    for (auto order : {AllgatherOrder::distance_halving, AllgatherOrder::distance_doubling}) {
      BineRing ring(d, order);  // throws if a rank is never reached
      std::vector<int> count(static_cast<std::size_t>(ring.steps() + 1), 0);
      for (int x = 0; x < d; ++x) ++count[static_cast<std::size_t>(ring.arrival(x) + 1)];
      // Never more than a doubling per step (each holder has one peer).
      int holders = 1;
      for (int i = 0; i < ring.steps(); ++i) {
        EXPECT_LE(count[static_cast<std::size_t>(i + 1)], holders) << d;
        holders += count[static_cast<std::size_t>(i + 1)];
      }
      EXPECT_EQ(holders, d);
    }
  }
}

TEST(BineTrees, PowerOfTwoTreesMatchTheNegabinaryClosedForms) {
  for (int p = 2; p <= 1024; p *= 2) {
    BineRing ring(p, AllgatherOrder::distance_halving);
    const BineGrid grid({p}, AllgatherOrder::distance_halving, 0, false);
    const int s = ring.steps();
    for (int r = 0; r < p; ++r) {
      // Appendix A: the bits of v are the steps of the distance-doubling path.
      EXPECT_EQ(ring.scatter_path(r), nb::bine_v(r, p)) << p << " " << r;
      EXPECT_EQ(static_cast<std::uint64_t>(grid.sigma(r)), nb::bine_nu(r, p)) << p << " " << r;
      // Section 2.3.2: a distance-halving tree reaches r at step s - u.
      if (r != 0) {
        const int u = nb::equal_low_digits(nb::rank_to_nb(r, p), s);
        EXPECT_EQ(ring.arrival(r), s - u) << p << " " << r;
      }
    }
  }
}

// The allgather sets are exactly the pruned trees: brute force over every root.
TEST(BineTrees, ReachedSetsMatchTheTreesOfEveryRoot) {
  for (int d = 2; d <= 70; d += 2) {
    for (auto order : {AllgatherOrder::distance_halving, AllgatherOrder::distance_doubling}) {
      BineRing ring(d, order);
      for (int x = 0; x < d; ++x) {
        std::vector<int> seen(static_cast<std::size_t>(d), 0);
        for (int i = 0; i < ring.steps(); ++i) {
          std::vector<int> got;
          ring.reached_at(x, i, got);
          std::vector<int> want;
          for (int b = 0; b < d; ++b)
            if (ring.arrival(ring.relative(b, x)) == i) want.push_back(b);
          EXPECT_EQ(got, want) << d << " x=" << x << " i=" << i;
          for (int b : got) ++seen[static_cast<std::size_t>(b)];
        }
        for (int b = 0; b < d; ++b) EXPECT_EQ(seen[static_cast<std::size_t>(b)], b == x ? 0 : 1);
      }
    }
  }
}

TEST(BineTrees, SigmaSetsAreAlignedRangesOnPowerOfTwoTori) {
  for (const std::vector<int>& dims :
       std::vector<std::vector<int>>{{16}, {4, 4}, {2, 8}, {8, 2, 4}, {32}}) {
    for (int start = 0; start < static_cast<int>(dims.size()); ++start) {
      for (bool mirrored : {false, true}) {
        const BineGrid grid(dims, AllgatherOrder::distance_halving, start, mirrored);
        for (int r = 0; r < grid.ranks(); ++r) {
          for (int t = 0; t < grid.steps(); ++t) {
            BlockSet fast, natural;
            grid.received_sigma(r, t, fast);
            grid.received(r, t, natural);
            std::vector<BlockIndex> slow;
            for (BlockIndex b : natural.to_vector())
              slow.push_back(static_cast<BlockIndex>(grid.sigma(grid.inner(static_cast<int>(b)))));
            std::sort(slow.begin(), slow.end());
            EXPECT_EQ(fast.to_vector(), slow) << shape(dims) << " r=" << r << " t=" << t;
            EXPECT_EQ(fast.range_count(), 1U);
          }
        }
      }
    }
  }
}

// ---- schedules -----------------------------------------------------------------------------

TEST(BineBandwidth, TwoTransmissionsSendAtMostTwoRanges) {
  for (int p = 2; p <= 130; p += 2) {
    ScheduleRequest request;
    request.ranks = p;
    request.collective = Collective::allgather;
    auto schedule = registry().build("bine-bw-two", request);
    for (int r = 0; r < p; ++r)
      for (const Step& step : schedule->steps_of(r))
        for (const Operation& op : step.ops) {
          // Circular ranges: at most a piece at the end and one at the start of the vector.
          if (op.kind == OpKind::send) {
            EXPECT_LE(op.blocks.range_count(), 2U) << p << " rank " << r;
            if (op.blocks.range_count() == 2) {
              EXPECT_EQ(op.blocks.ranges().front().begin, 0U);
              EXPECT_EQ(op.blocks.ranges().back().end, static_cast<BlockIndex>(p));
            }
          }
        }
  }
}

TEST(BineBandwidth, SendAndPermuteAreContiguousAtPowersOfTwo) {
  for (int p = 2; p <= 256; p *= 2)
    for (const std::string name : {"bine-bw", "bine-bw-permute"}) {
      ScheduleRequest request;
      request.ranks = p;
      request.collective = Collective::allreduce;
      auto schedule = registry().build(name, request);
      for (int r = 0; r < p; ++r)
        for (const Step& step : schedule->steps_of(r))
          for (const Operation& op : step.ops)
            if (op.kind == OpKind::send) EXPECT_EQ(op.blocks.range_count(), 1U) << name << p;
    }
}

TEST(BineBandwidthSlow, ExactForEveryEvenSizeStrategyAndCollective) {
  for (const auto& name : kBandwidth)
    for (Collective c : kCollectives)
      for (int p = 2; p <= 130; p += 2) {
        if (!sweep::in_sample(sweep::instance_name(name, " ", collective_name(c), " P=", p),
                              p <= 16))
          continue;
        auto report = check(name, c, p, VerifyMode::exact);
        EXPECT_TRUE(report.ok) << name << " " << collective_name(c) << " P=" << p << ": "
                               << report.message;
      }
}

TEST(BineBandwidthSlow, ExactForOddSizesThroughTheFold) {
  for (const auto& name : kBandwidth)
    for (Collective c : kCollectives)
      for (int p = 3; p <= 129; p += 2) {
        if (!sweep::in_sample(sweep::instance_name(name, " ", collective_name(c), " P=", p),
                              p <= 16))
          continue;
        auto report = check(name, c, p, VerifyMode::exact);
        EXPECT_TRUE(report.ok) << name << " " << collective_name(c) << " P=" << p << ": "
                               << report.message;
      }
}

}  // namespace
}  // namespace topocoll

namespace topocoll {
namespace {

std::vector<std::vector<int>> even_tori() {
  std::vector<std::vector<int>> out;
  for (int a : {2, 4, 6, 8})
    for (int b : {2, 4, 6, 8}) out.push_back({a, b});
  for (const std::vector<int>& d :
       std::vector<std::vector<int>>{{4, 6}, {6, 6}, {2, 8, 2}, {4, 6, 4}, {10, 10}, {16}, {30}})
    out.push_back(d);
  return out;
}

std::vector<int> port_choices(const std::vector<int>& dims) {
  const int d = static_cast<int>(dims.size());
  return d == 1 ? std::vector<int>{1, 2} : std::vector<int>{1, d, 2 * d};
}

TEST(BineTorusSlow, BandwidthExactOnEvenToriForEveryPortCount) {
  for (const auto& dims : even_tori()) {
    int p = 1;
    for (int d : dims) p *= d;
    for (int ports : port_choices(dims))
      for (Collective c : kCollectives) {
        if (!sweep::in_sample(sweep::instance_name("bine-bw-torus ", sweep::shape_text(dims),
                                                   " ports=", ports, " ", collective_name(c)),
                              p <= 16))
          continue;
        auto report = check("bine-bw-torus", c, p, VerifyMode::exact, dims, ports);
        EXPECT_TRUE(report.ok) << shape(dims) << " ports=" << ports << " " << collective_name(c)
                               << ": " << report.message;
      }
  }
}

// Appendix D.1: every peer differs from the rank in one coordinate only.
TEST(BineTorus, PeersMoveAlongOneDimension) {
  const std::vector<int> dims = {4, 6, 4};
  ScheduleRequest request;
  request.collective = Collective::allreduce;
  request.dims = dims;
  auto schedule = registry().build("bine-bw-torus", request);
  EXPECT_EQ(schedule->info().ports, 6);
  for (int r = 0; r < schedule->ranks(); ++r)
    for (const Step& step : schedule->steps_of(r))
      for (const Operation& op : step.ops) {
        if (op.kind == OpKind::copy) continue;
        int differing = 0;
        for (int a = r, b = op.peer, j = 0; j < 3; ++j, a /= dims[j - 1], b /= dims[j - 1])
          differing += a % dims[j] != b % dims[j];
        EXPECT_EQ(differing, 1) << r << " -> " << op.peer;
      }
}

TEST(BineTorus, RejectsOddDimensionsWithTheReason) {
  ScheduleRequest request;
  request.collective = Collective::allreduce;
  request.dims = {3, 9};
  for (const std::string name : {"bine-bw-torus", "bine-lat-torus"}) {
    try {
      (void)registry().build(name, request);
      ADD_FAILURE() << name << " accepted 3x9";
    } catch (const UnsupportedRequest& e) {
      EXPECT_NE(std::string(e.what()).find("even"), std::string::npos) << e.what();
    }
  }
}

TEST(BineLargeSlow, FingerprintAt4096And16384) {
  TOPOCOLL_SKIP_UNLESS_SAMPLED();
  for (int p : {4096, 16384}) {
    auto report = check("bine-bw", Collective::allreduce, p, VerifyMode::fingerprint);
    EXPECT_TRUE(report.ok) << p << ": " << report.message;
  }
  for (const auto& name : kBandwidth) {
    auto report = check(name, Collective::reduce_scatter, 4096, VerifyMode::fingerprint);
    EXPECT_TRUE(report.ok) << name << ": " << report.message;
  }
}

}  // namespace
}  // namespace topocoll

namespace topocoll {
namespace {

TEST(BineLatency, ExactForEveryEvenAndOddSize) {
  for (int p = 2; p <= 130; ++p) {
    auto report = check("bine-lat", Collective::allreduce, p, VerifyMode::exact);
    EXPECT_TRUE(report.ok) << "P=" << p << ": " << report.message;
  }
}

// Powers of two: the plain butterfly, one block exchanged and reduced at each of log2 P steps.
TEST(BineLatency, PowerOfTwoIsThePlainButterfly) {
  for (int p = 2; p <= 1024; p *= 2) {
    ScheduleRequest request;
    request.ranks = p;
    request.collective = Collective::allreduce;
    auto schedule = registry().build("bine-lat", request);
    EXPECT_EQ(schedule->info().total_slots(), 1);
    EXPECT_TRUE(schedule->info().keeps_positions);
    for (int r = 0; r < p; r += 7) {
      const auto steps = schedule->steps_of(r);
      ASSERT_EQ(static_cast<int>(steps.size()), nb::digits_for(p));
      for (std::size_t s = 0; s < steps.size(); ++s) {
        ASSERT_EQ(steps[s].ops.size(), 2U);
        EXPECT_EQ(steps[s].ops[0].peer,
                  static_cast<int>(nb::butterfly_peer(r, static_cast<int>(s), p)));
      }
    }
  }
}

// Other even sizes: still ceil(log2 P) exchanges, a few partial sums in scratch slots.
TEST(BineLatency, EvenSizesUseLogStepsOfCommunication) {
  for (int p = 6; p <= 130; p += 2) {
    ScheduleRequest request;
    request.ranks = p;
    request.collective = Collective::allreduce;
    auto schedule = registry().build("bine-lat", request);
    int exchanges = 0;
    for (const Step& step : schedule->steps_of(0)) {
      int sends = 0;
      for (const Operation& op : step.ops) sends += op.kind == OpKind::send;
      exchanges += sends;
      for (const Operation& op : step.ops)
        if (op.kind == OpKind::send) EXPECT_LE(op.blocks.block_count(), 2U) << p;
    }
    EXPECT_EQ(exchanges, nb::digits_for(p)) << p;
    EXPECT_LE(schedule->info().total_slots(), 4) << p;
  }
}

TEST(BineTorus, LatencyExactOnEvenToriForEveryPortCount) {
  for (const auto& dims : even_tori()) {
    int p = 1;
    for (int d : dims) p *= d;
    for (int ports : port_choices(dims)) {
      auto report =
          check("bine-lat-torus", Collective::allreduce, p, VerifyMode::exact, dims, ports);
      EXPECT_TRUE(report.ok) << shape(dims) << " ports=" << ports << ": " << report.message;
    }
  }
}

TEST(BineLargeSlow, LatencyFingerprint) {
  TOPOCOLL_SKIP_UNLESS_SAMPLED();
  for (int p : {4096, 16384, 4094, 6000}) {
    auto report = check("bine-lat", Collective::allreduce, p, VerifyMode::fingerprint);
    EXPECT_TRUE(report.ok) << p << ": " << report.message;
  }
  auto report =
      check("bine-lat-torus", Collective::allreduce, 4096, VerifyMode::fingerprint, {64, 64});
  EXPECT_TRUE(report.ok) << report.message;
}

}  // namespace
}  // namespace topocoll
