#pragma once
// The rotating sample of the exhaustive sweeps (tests/README.md, "Slow and exhaustive tests").
//
// A sweep names each of its instances (for example "swing-bw allreduce P=97 ports=2") and asks
// in_sample() whether to run it. Without TOPOCOLL_TEST_SAMPLE every instance runs (`make
// test-exhaustive`, or the test binary run by hand). With TOPOCOLL_TEST_SAMPLE=N:KEY (`make
// test` sets N=8 and KEY=the commit's hash) an instance runs when the hash of KEY and its name
// is 0 mod N: a deterministic eighth of each sweep per commit, a different eighth at the next
// commit, so that every instance is covered over successive commits. The small instances that
// cover each shape class (every family on even, odd, power-of-two and power-of-three sizes,
// square and rectangular tori) are passed with always=true and run at every commit.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace topocoll::sweep {

struct SampleSetting {
  std::uint64_t share = 1;  // run 1 instance in `share`
  std::string key;
};

inline SampleSetting sample_setting() {
  SampleSetting setting;
  const char* text = std::getenv("TOPOCOLL_TEST_SAMPLE");
  if (text == nullptr || *text == '\0') return setting;
  const std::string value(text);
  const std::size_t colon = value.find(':');
  const unsigned long long share = std::strtoull(value.substr(0, colon).c_str(), nullptr, 10);
  setting.share = share == 0 ? 1 : share;
  if (colon != std::string::npos) setting.key = value.substr(colon + 1);
  return setting;
}

// FNV-1a over the key and the instance's name: stable across compilers and platforms, unlike
// std::hash, so that one TOPOCOLL_TEST_SAMPLE picks the same instances everywhere.
inline std::uint64_t sample_hash(std::string_view key, std::string_view name) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::string_view part : {key, std::string_view("\n"), name})
    for (const char c : part) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

// The rank count of a torus, and its name ("4x6"), for instance names and the always-run rule.
inline int product_of(const std::vector<int>& dims) {
  int p = 1;
  for (int side : dims) p *= side;
  return p;
}

inline std::string shape_text(const std::vector<int>& dims) {
  std::string out;
  for (int side : dims) out += (out.empty() ? "" : "x") + std::to_string(side);
  return out;
}

// An instance's name from its parameters, separated by spaces: instance_name("ring", "P=", 7).
template <typename... Parts>
std::string instance_name(const Parts&... parts) {
  std::ostringstream out;
  ((out << parts), ...);
  return out.str();
}

// MurmurHash3's 64-bit finalizer: each bit of the result depends on every bit of `h`.
inline std::uint64_t mixed(std::uint64_t h) {
  h = (h ^ (h >> 33)) * 0xff51afd7ed558ccdull;
  h = (h ^ (h >> 33)) * 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 33);
}

// Whether the sample `setting` runs the instance `name`. FNV-1a takes the last character in
// through one multiplication, so two names that differ in one digit ('0' and '8': bit 3) have
// hashes that differ by 8 times the FNV prime, and both their low and their high bits mod 8
// agree: without the finalizer such names were picked together at nearly every commit.
inline bool picks(const SampleSetting& setting, std::string_view name) {
  if (setting.share <= 1) return true;
  return mixed(sample_hash(setting.key, name)) % setting.share == 0;
}

inline bool in_sample(std::string_view name, bool always = false) {
  static const SampleSetting setting = sample_setting();
  return always || picks(setting, name);
}

// A test that is one large instance (a fingerprint run at P = 4096, say): skipped, and reported
// as skipped, unless the sample picks it by its full name.
inline bool current_test_in_sample() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return in_sample(std::string(info->test_suite_name()) + "." + info->name());
}

}  // namespace topocoll::sweep

#define TOPOCOLL_SKIP_UNLESS_SAMPLED()                                                       \
  do {                                                                                       \
    if (!::topocoll::sweep::current_test_in_sample())                                        \
      GTEST_SKIP() << "not in this commit's sample (TOPOCOLL_TEST_SAMPLE, tests/README.md)"; \
  } while (false)
