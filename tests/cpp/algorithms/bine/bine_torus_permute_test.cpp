// bine-bw-torus-permute: bine-bw-torus with the permute strategy of section 4.3.1 in place of
// the send strategy's exchange step (docs/efficiency.md, "Found defects").
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "core/verifier/verifier.hpp"
#include "support/sweep_sample.hpp"

namespace topocoll {
namespace {

const std::vector<Collective> kCollectives = {Collective::allreduce, Collective::reduce_scatter,
                                              Collective::allgather};

SchedulePtr build(const std::string& name, Collective c, const std::vector<int>& dims,
                  int ports = 0) {
  ScheduleRequest request;
  request.collective = c;
  request.dims = dims;
  request.ports = ports;
  return registry().build(name, request);
}

// The shapes and port counts bine-bw-torus is verified on (bine_test.cpp).
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

TEST(BineTorusPermuteSlow, ExactOnEvenToriForEveryPortCount) {
  for (const auto& dims : even_tori()) {
    int p = 1;
    for (int d : dims) p *= d;
    for (int ports : port_choices(dims))
      for (Collective c : kCollectives) {
        if (!sweep::in_sample(
                sweep::instance_name("bine-bw-torus-permute ", sweep::shape_text(dims),
                                     " ports=", ports, " ", collective_name(c)),
                p <= 16))
          continue;
        auto schedule = build("bine-bw-torus-permute", c, dims, ports);
        VerifyOptions options;
        options.mode = VerifyMode::exact;
        auto report = verify(*schedule, options);
        EXPECT_TRUE(report.ok) << sweep::shape_text(dims) << " ports=" << ports << " "
                               << collective_name(c) << ": " << report.message;
      }
  }
}

bool sends_in(const Step& step) {
  for (const Operation& op : step.ops)
    if (op.kind == OpKind::send) return true;
  return false;
}

// How many ranks send in the first step of `lane` in which any rank sends.
int ranks_sending_in_first_step(const Schedule& schedule, int lane) {
  std::vector<std::vector<Step>> steps;
  std::size_t first = SIZE_MAX;
  for (int r = 0; r < schedule.ranks(); ++r) {
    steps.push_back(schedule.lane_steps_of(r, lane));
    for (std::size_t k = 0; k < steps.back().size() && k < first; ++k)
      if (sends_in(steps.back()[k])) first = k;
  }
  int sending = 0;
  for (const auto& rank_steps : steps)
    sending += first < rank_steps.size() && sends_in(rank_steps[first]);
  return sending;
}

// The send strategy's allgather starts with its exchange step, in which a rank that already
// holds the block it stands for (rank 0 always, on 8x8 one more per lane) neither sends nor
// receives; in the permute variant every rank sends in its first step.
TEST(BineTorusPermute, AllgatherHasNoIdleRankInItsFirstStep) {
  const std::vector<int> dims = {8, 8};
  auto send = build("bine-bw-torus", Collective::allgather, dims);
  auto permute = build("bine-bw-torus-permute", Collective::allgather, dims);
  ASSERT_EQ(send->info().ports, 4);
  ASSERT_EQ(permute->info().ports, 4);
  for (int lane = 0; lane < 4; ++lane) {
    EXPECT_EQ(ranks_sending_in_first_step(*send, lane), 62) << "lane " << lane;
    EXPECT_EQ(ranks_sending_in_first_step(*permute, lane), 64) << "lane " << lane;
    // One step fewer: the exchange step is a local copy.
    int send_steps = 0, permute_steps = 0;
    for (const Step& step : send->lane_steps_of(1, lane))
      for (const Operation& op : step.ops) send_steps += op.kind == OpKind::send;
    for (const Step& step : permute->lane_steps_of(1, lane))
      for (const Operation& op : step.ops) permute_steps += op.kind == OpKind::send;
    EXPECT_EQ(send_steps, 7) << "lane " << lane;
    EXPECT_EQ(permute_steps, 6) << "lane " << lane;
  }
}

}  // namespace
}  // namespace topocoll
