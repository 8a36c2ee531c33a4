#pragma once
// Test support shared by the Trivance and Bruck suites (trivance.txt sections 2.4, 4, 5): the
// same checks over the same rings and tori for two families of ternary patterns.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "core/verifier/verifier.hpp"

namespace topocoll::ternary_test {

struct Case {
  std::string algorithm;
  Collective collective;
};

inline SchedulePtr build(const Case& c, std::vector<int> dims) {
  ScheduleRequest request;
  request.collective = c.collective;
  request.dims = std::move(dims);
  return registry().build(c.algorithm, request);
}

inline std::string shape(const std::vector<int>& dims) {
  std::string out;
  for (int size : dims) out += (out.empty() ? "" : "x") + std::to_string(size);
  return out;
}

inline void expect_verifies(const Case& c, const std::vector<int>& dims, VerifyMode mode) {
  const auto start = std::chrono::steady_clock::now();
  auto schedule = build(c, dims);
  VerifyOptions options;
  options.mode = mode;
  const VerifyReport report = verify(*schedule, options);
  EXPECT_TRUE(report.ok) << c.algorithm << " " << collective_name(c.collective) << " on "
                         << shape(dims) << ": " << report.message;
  if (mode == VerifyMode::fingerprint) {
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    std::cout << "  " << c.algorithm << " " << collective_name(c.collective) << " on "
              << shape(dims) << ": " << took.count() << " s\n";
  }
}

// Every pair of sizes 2..8, the shapes of the issue and 3^k shapes (section 5).
inline std::vector<std::vector<int>> test_tori() {
  std::vector<std::vector<int>> tori;
  for (int a = 2; a <= 8; ++a)
    for (int b = 2; b <= 8; ++b) tori.push_back({a, b});
  for (auto t : {std::vector<int>{4, 6},
                 {6, 6},
                 {2, 8, 2},
                 {4, 6, 4},
                 {10, 10},
                 {3, 9},
                 {9, 9},
                 {3, 3},
                 {9, 3},
                 {3, 3, 3},
                 {9, 9, 3},
                 {3, 1, 5},
                 {1, 7}})
    tori.push_back(t);
  return tori;
}

inline int max_steps(const Schedule& schedule) {
  int most = 0;
  for (int r = 0; r < schedule.ranks(); ++r) most = std::max(most, schedule.step_count(r));
  return most;
}

// Whole-vector tori: each dimension runs its ring schedule's steps back to back in lane 0, so
// the steps add up over the dimensions.
inline void expect_whole_vector_tori(const Case& latency,
                                     const std::vector<std::vector<int>>& shapes) {
  for (const std::vector<int>& dims : shapes) {
    expect_verifies(latency, dims, VerifyMode::exact);
    int steps = 0;
    for (int size : dims) steps += max_steps(*build(latency, {size}));
    EXPECT_EQ(max_steps(*build(latency, dims)), steps) << shape(dims);
  }
  auto seven = build(latency, {7, 7});  // lane 0: both steps of dimension 0 first
  for (int step = 0; step < 4; ++step) {
    Step st;
    seven->build_step(0, step, st);
    for (const Operation& op : st.ops)
      if (op.kind != OpKind::copy && op.port < 2) EXPECT_EQ(op.peer < 7, step < 2) << step;
  }
}

// cases: latency allreduce, bandwidth allreduce, reduce-scatter, allgather.
inline void expect_large_fingerprints(const std::vector<Case>& cases) {
  for (const Case& c : cases) expect_verifies(c, {4096}, VerifyMode::fingerprint);
  for (const Case& c : {cases[0], cases[1]}) expect_verifies(c, {64, 64}, VerifyMode::fingerprint);
}

inline void expect_huge_fingerprints(const std::vector<Case>& cases) {
  for (const Case& c : {cases[2], cases[3]}) expect_verifies(c, {64, 64}, VerifyMode::fingerprint);
  for (const Case& c : cases) {
    expect_verifies(c, {16384}, VerifyMode::fingerprint);
    expect_verifies(c, {128, 128}, VerifyMode::fingerprint);
  }
}

}  // namespace topocoll::ternary_test
