#include "topology/parameter_ranges.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "core/registry.hpp"

namespace topocoll::topo {
namespace {

std::string error_of(std::string_view name, double value) {
  try {
    (void)check_parameter(name, value);
  } catch (const UnsupportedRequest& error) {
    return error.what();
  }
  return "";
}

TEST(ParameterRanges, EveryEntryIsFiniteAndOrdered) {
  ASSERT_FALSE(parameter_ranges().empty());
  for (const ParameterRange& r : parameter_ranges()) {
    SCOPED_TRACE(std::string(r.name));
    EXPECT_TRUE(std::isfinite(r.low) && std::isfinite(r.high));
    EXPECT_LE(r.low, r.high);
    EXPECT_EQ(r.option.substr(0, 2), "--");
    EXPECT_FALSE(r.accepted.empty());
    EXPECT_FALSE(r.why.empty());
    EXPECT_EQ(check_parameter(r.name, r.low), r.low);
    EXPECT_EQ(check_parameter(r.name, r.high), r.high);
  }
}

TEST(ParameterRanges, NonFiniteDenormalAndOutOfRangeValuesAreRefused) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double denormal = std::numeric_limits<double>::denorm_min();
  EXPECT_EQ(error_of("bandwidth", inf),
            "--bandwidth inf B/s is out of range; accepted: 1Mbps to 1Pbps");
  EXPECT_NE(error_of("bandwidth", nan).find("out of range"), std::string::npos);
  EXPECT_NE(error_of("bandwidth", denormal).find("out of range"), std::string::npos);
  EXPECT_NE(error_of("latency", -1e-9).find("accepted: 0s to 1s"), std::string::npos);
  EXPECT_NE(error_of("reduce_cost", 1e-3).find("accepted: 0s to 1us per byte"), std::string::npos);
  EXPECT_NE(error_of("size", 0).find("accepted: 1B to 1TiB"), std::string::npos);
  EXPECT_EQ(error_of("nic_ports", 2.5), "--nic-ports 2.5 is not a whole number; accepted: 1..64");
  EXPECT_EQ(error_of("mtu", denormal).find("--mtu"), 0u);
  // A latency of a denormal second is in range: it is a (tiny) non-negative time.
  EXPECT_EQ(error_of("latency", denormal), "");
  EXPECT_THROW((void)check_parameter("speed", 1), UnsupportedRequest);
}

TEST(ParameterRanges, MakeTopologyChecksTheNetworkParameters) {
  NetworkParams params;
  params.bandwidth_bytes_per_s = std::numeric_limits<double>::denorm_min();
  EXPECT_THROW((void)make_topology("ring:4", params), UnsupportedRequest);
  params = NetworkParams{};
  params.alpha_s = std::numeric_limits<double>::infinity();
  EXPECT_THROW((void)make_topology("ring:4", params), UnsupportedRequest);
  params = NetworkParams{};
  params.nic_ports = 65;
  EXPECT_THROW((void)make_topology("fattree:2:2:2:2", params), UnsupportedRequest);
  EXPECT_NO_THROW((void)make_topology("ring:4", NetworkParams{}));
}

}  // namespace
}  // namespace topocoll::topo
