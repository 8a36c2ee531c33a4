// The eager threshold of a ping-pong curve (src/mpi/runtime/eager_knee.hpp) on curves made by
// hand: a handshake of 1.5 us above 4000 B, a fast-box step of 0.3 us above 256 B, 0.1 ns/B.
#include "runtime/eager_knee.hpp"

#include <gtest/gtest.h>

namespace topocoll::mpi {
namespace {

double curve(std::uint64_t bytes) {
  return 1e-6 + 1e-10 * static_cast<double>(bytes) + (bytes > 256 ? 0.3e-6 : 0) +
         (bytes > 4000 ? 1.5e-6 : 0);
}

TEST(EagerKnee, TheLargestRelativeJumpOfTheGridThenBisectionToTheByteRange) {
  std::vector<std::uint64_t> sizes{0};
  for (std::uint64_t b = 1; b <= (std::uint64_t{1} << 20); b *= 2) sizes.push_back(b);
  std::vector<double> t;
  for (std::uint64_t b : sizes) t.push_back(curve(b));
  const EagerKnee knee = eager_knee(sizes, t, t, 1e-10);
  ASSERT_TRUE(knee.bytes && knee.next);
  EXPECT_EQ(*knee.bytes, 2048u);  // the grid's last eager size, not the fast boxes' 256
  EXPECT_EQ(*knee.next, 4096u);
  EXPECT_NEAR(knee.handshake_s, 1.5e-6, 1e-12);
  int probes = 0;
  const std::uint64_t refined =
      refine_eager_knee(2048, curve(2048), 4096, curve(4096), 1e-10, 16, [&](std::uint64_t b) {
        ++probes;
        return curve(b);
      });
  EXPECT_GT(refined, 4000u - 16);
  EXPECT_LE(refined, 4000u);
  EXPECT_EQ(probes, 7);  // 2048 B halved down to 16 B
}

TEST(EagerKnee, NoJumpNoThreshold) {
  const std::vector<std::uint64_t> sizes{0, 1024, 2048, 4096};
  std::vector<double> t;
  for (std::uint64_t b : sizes) t.push_back(1e-6 + 1e-10 * static_cast<double>(b));
  const EagerKnee knee = eager_knee(sizes, t, t, 1e-10);
  EXPECT_FALSE(knee.bytes);
  EXPECT_FALSE(knee.next);
}

TEST(EagerKnee, BisectionStopsAtTheResolutionAndKeepsItsEnds) {
  const auto step_at = [](std::uint64_t edge) {
    return [edge](std::uint64_t b) { return b > edge ? 3e-6 : 1e-6; };
  };
  EXPECT_EQ(refine_eager_knee(2048, 1e-6, 4096, 3e-6, 0, 16, step_at(5000)), 4096u - 16);
  EXPECT_EQ(refine_eager_knee(2048, 1e-6, 4096, 3e-6, 0, 16, step_at(100)), 2048u);
  EXPECT_EQ(refine_eager_knee(2048, 1e-6, 2064, 3e-6, 0, 16, step_at(100)), 2048u);  // no probe
}

}  // namespace
}  // namespace topocoll::mpi
