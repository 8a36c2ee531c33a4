#include <gtest/gtest.h>

#include "core/registry.hpp"
#include "core/verifier/verifier.hpp"

namespace topocoll {
namespace {

VerifyReport check(Collective c, int p, int ports, VerifyMode mode) {
  ScheduleRequest request;
  request.collective = c;
  request.ranks = p;
  request.ports = ports;
  auto schedule = registry().build("ring", request);
  VerifyOptions options;
  options.mode = mode;
  return verify(*schedule, options);
}

TEST(RingSchedule, VerifiesForEveryCollectivePortsAndSize) {
  for (Collective c : {Collective::allreduce, Collective::reduce_scatter, Collective::allgather})
    for (int ports : {1, 2})
      for (int p = 2; p <= 24; ++p)
        for (VerifyMode mode : {VerifyMode::exact, VerifyMode::fingerprint}) {
          auto report = check(c, p, ports, mode);
          EXPECT_TRUE(report.ok) << collective_name(c) << " P=" << p << " ports=" << ports << ": "
                                 << report.message;
        }
}

}  // namespace
}  // namespace topocoll
