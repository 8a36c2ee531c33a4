// The MPI runtime's copies outside the schedule (sim/call_copies.hpp): the bytes per collective
// as src/mpi/runtime/reductions.cpp and data_movement.cpp copy them, and their time in the
// engine, computed by hand.
#include "sim/call_copies.hpp"

#include <gtest/gtest.h>

#include "core/registry.hpp"
#include "sim/simulate.hpp"
#include "support/sim_test_support.hpp"

namespace topocoll::sim {
namespace {

using testing::build;
using testing::config;
using testing::HandPair;
using testing::linear;
using testing::one_send;
using testing::quiet;

constexpr double kBw = 1e9;
constexpr double kLat = 500e-9;
constexpr double kTol = 1e-15;

CallCopyRank rank_of(bool root, bool writes) { return {root, writes, 8000, 1000}; }

std::pair<std::uint64_t, std::uint64_t> copies(Collective c, CallCopyRank r, bool in_place) {
  const CallCopyBytes b = call_copy_bytes(c, r, in_place);
  return {b.before, b.after};
}

using Bytes = std::pair<std::uint64_t, std::uint64_t>;

TEST(CallCopyBytes, OutOfPlaceCallsCopyTheirInputOrTheirOwnBlock) {
  const auto rank = rank_of(false, false);
  EXPECT_EQ(copies(Collective::allreduce, rank, false), Bytes(8000, 0));
  EXPECT_EQ(copies(Collective::allgather, rank, false), Bytes(1000, 0));
  EXPECT_EQ(copies(Collective::reduce_scatter, rank, false), Bytes(8000, 1000));
  EXPECT_EQ(copies(Collective::gather, rank, false), Bytes(1000, 0));
  EXPECT_EQ(copies(Collective::scatter, rank, false), Bytes(0, 1000));
  EXPECT_EQ(copies(Collective::bcast, rank, false), Bytes(0, 0));
  EXPECT_EQ(copies(Collective::alltoall, rank, false), Bytes(0, 0));
}

TEST(CallCopyBytes, InPlaceCallsCopyOnlyWhatTheRuntimeMust) {
  EXPECT_EQ(copies(Collective::allreduce, rank_of(false, true), true), Bytes(0, 0));
  EXPECT_EQ(copies(Collective::allgather, rank_of(false, true), true), Bytes(0, 0));
  // The schedule writes the whole vector; the call defines only the chunk: a work vector.
  EXPECT_EQ(copies(Collective::reduce_scatter, rank_of(false, false), true), Bytes(8000, 1000));
  EXPECT_EQ(copies(Collective::gather, rank_of(true, false), true), Bytes(0, 0));
  EXPECT_EQ(copies(Collective::gather, rank_of(false, false), true), Bytes(1000, 0));
  EXPECT_EQ(copies(Collective::scatter, rank_of(true, false), true), Bytes(0, 0));
  EXPECT_EQ(copies(Collective::alltoall, rank_of(false, false), true), Bytes(8000, 0));
}

TEST(CallCopyBytes, RootedCollectivesCopyWhereTheScheduleWritesTheUserBlocks) {
  EXPECT_EQ(copies(Collective::reduce, rank_of(true, false), false), Bytes(8000, 0));
  EXPECT_EQ(copies(Collective::reduce, rank_of(false, false), false), Bytes(0, 0));
  EXPECT_EQ(copies(Collective::reduce, rank_of(false, true), false), Bytes(8000, 0));
  EXPECT_EQ(copies(Collective::scatter, rank_of(true, true), false), Bytes(8000, 1000));
  EXPECT_EQ(copies(Collective::alltoall, rank_of(false, true), false), Bytes(8000, 0));
}

// A binomial reduce to rank 0 of 4 (distances doubling): rank 1 receives rank 3's vector and
// reduces into its own, ranks 2 and 3 only send.
TEST(WritesUserBlocks, OnlyTheInnerRanksOfABinomialReduceWrite) {
  const auto s = build("binomial-doubling", Collective::reduce, 4);
  EXPECT_TRUE(writes_user_blocks(*s, 0));
  EXPECT_TRUE(writes_user_blocks(*s, 1));
  EXPECT_FALSE(writes_user_blocks(*s, 2));
  EXPECT_FALSE(writes_user_blocks(*s, 3));
}

class CallCopies : public ::testing::TestWithParam<Model> {};

// One allreduce message of 3000 B: out of place, both ranks first copy the 3000 B input at
// 1 ns per byte; the send leaves after the copy.
TEST_P(CallCopies, AnOutOfPlaceAllreduceStartsAfterItsInputCopy) {
  topo::NetworkParams p = quiet();
  p.host.copy_s_per_byte = 1e-9;
  HandPair pair(p, kBw, kLat, kLat);
  SimConfig c = config(GetParam(), 3000);
  c.in_place = false;
  const auto all = BlockSet::range(0, 1);
  const auto r = simulate(one_send(all, 1, Combine::copy), pair.net, pair.router, linear(2), c);
  const double copy = 3000 * 1e-9;
  EXPECT_NEAR(r.rank_finish_s[0], copy + kLat + 3000 / kBw, kTol);
  EXPECT_NEAR(r.rank_finish_s[1], copy + kLat + 3000 / kBw, kTol);
  c.in_place = true;
  const auto in_place =
      simulate(one_send(all, 1, Combine::copy), pair.net, pair.router, linear(2), c);
  EXPECT_NEAR(in_place.rank_finish_s[1], kLat + 3000 / kBw, kTol);
}

// A 2-rank reduce-scatter of 8000 B per rank (the MPI count: a 16000 B vector) copies the
// vector into a work vector before and its 8000 B chunk out after: 24000 B at the copy rate on
// each rank, in place or not.
TEST_P(CallCopies, AReduceScatterPaysItsWorkVectorAndItsChunk) {
  const auto s = build("ring", Collective::reduce_scatter, 2);
  topo::NetworkParams p = quiet();
  HandPair free_copies(p, kBw, kLat, kLat);
  p.host.copy_s_per_byte = 1e-9;
  HandPair costly(p, kBw, kLat, kLat);
  SimConfig c = config(GetParam(), 8000);
  c.in_place = false;
  const auto base = simulate(*s, free_copies.net, free_copies.router, linear(2), c);
  for (const bool in_place : {false, true}) {
    c.in_place = in_place;
    const auto r = simulate(*s, costly.net, costly.router, linear(2), c);
    for (int rank = 0; rank < 2; ++rank)
      EXPECT_NEAR(r.rank_finish_s[rank], base.rank_finish_s[rank] + 24000 * 1e-9, 1e-12);
  }
}

// No copy rate, no copies: a call out of place costs what it costs in place.
TEST_P(CallCopies, WithoutACopyRateTheCallsCopiesAreFree) {
  const auto s = build("ring", Collective::allreduce, 4);
  const auto net = testing::make_network("torus:4", 4, "minimal");
  SimConfig c = config(GetParam(), 1 << 20);
  c.in_place = false;
  const double out = simulate(*s, *net.topology, *net.router, net.mapping, c).time_s;
  c.in_place = true;
  EXPECT_EQ(out, simulate(*s, *net.topology, *net.router, net.mapping, c).time_s);
}

INSTANTIATE_TEST_SUITE_P(Models, CallCopies,
                         ::testing::Values(Model::analytic, Model::flow, Model::packet));

}  // namespace
}  // namespace topocoll::sim
