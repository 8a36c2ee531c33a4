// Machine files under hostile edits (docs/interchange.md, "Reader policy and limits"): from the
// shipped machines and a file `topocoll calibrate` wrote, deterministic mutations either read
// into a machine whose values are usable, or are refused with one line; nothing else escapes.
// Runs under the sanitizers with the rest of the suite (make test-asan).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "topology/machine_file.hpp"
#include "topology/node_spec.hpp"

namespace topocoll::topo {
namespace {

const std::string kRoot = std::string(TOPOCOLL_TEST_DATA) + "/../..";

std::string contents(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> seeds() {
  std::vector<std::string> out;
  for (const char* path :
       {"/python/topocoll/machines/swing-sst.json", "/python/topocoll/machines/fugaku.json",
        "/python/topocoll/machines/cm200.json", "/docs/validation/m8.json"})
    out.push_back(contents(kRoot + path));
  return out;
}

// One edit: a byte, a cut, a value's text, a line twice (a duplicate key), a line gone, a key's
// letter.
std::string mutated(const std::string& text, std::mt19937_64& random) {
  std::string out = text;
  const auto at = [&](std::size_t size) {
    return static_cast<std::size_t>(random() % std::max<std::size_t>(size, 1));
  };
  static const char* const kValues[] = {"0",    "-1",      "1e308",    "1e-320",        "nan",
                                        "\"\"", "\"0ns\"", "\"-5us\"", "\"1e400GBps\"", "\"none\"",
                                        "[]",   "{}",      "null",     "true",          "\"64KiB\"",
                                        "1024"};
  switch (random() % 6) {
    case 0: out[at(out.size())] = static_cast<char>(random() % 256); break;
    case 1: out.resize(at(out.size())); break;
    case 2: {
      const std::size_t key = out.find("\"value\": ", at(out.size()));
      if (key == std::string::npos) break;
      const std::size_t begin = key + 9;
      const std::size_t end = out.find_first_of(",}", begin);
      if (end == std::string::npos) break;
      out.replace(begin, end - begin, kValues[random() % std::size(kValues)]);
      break;
    }
    case 3: {
      const std::size_t line = out.find('\n', at(out.size()));
      const std::size_t next = line == std::string::npos ? line : out.find('\n', line + 1);
      if (next != std::string::npos) out.insert(line, out.substr(line, next - line));
      break;
    }
    case 4: {
      const std::size_t line = out.find('\n', at(out.size()));
      const std::size_t next = line == std::string::npos ? line : out.find('\n', line + 1);
      if (next != std::string::npos) out.erase(line, next - line);
      break;
    }
    default: {
      const std::size_t colon = out.find("\":", at(out.size()));
      if (colon != std::string::npos && colon > 0)
        out[colon - 1] = static_cast<char>('a' + random() % 26);
      break;
    }
  }
  return out;
}

void expect_usable(const Machine& machine) {
  const NetworkParams& p = machine.params;
  EXPECT_TRUE(std::isfinite(p.bandwidth_bytes_per_s) && p.bandwidth_bytes_per_s > 0);
  for (double cost : {p.link_latency_s, p.hop_latency_s, p.alpha_s, p.host.send_overhead_s,
                      p.host.recv_overhead_s, p.host.gap_s, p.host.copy_s_per_byte})
    EXPECT_TRUE(std::isfinite(cost) && cost >= 0) << cost;
  if (machine.nodes) EXPECT_NO_THROW(check_node_spec(*machine.nodes));
}

TEST(MachineFileFuzz, MutatedFilesReadOrAreRefusedInOneLine) {
  std::mt19937_64 random(20261128);
  int read = 0, refused = 0;
  for (const std::string& seed : seeds()) {
    ASSERT_FALSE(seed.empty());
    expect_usable(parse_machine(seed, "seed"));  // the seeds themselves are valid
    for (int i = 0; i < 500; ++i) {
      std::string text = seed;
      const int rounds = 1 + static_cast<int>(random() % 3);
      for (int k = 0; k < rounds; ++k) text = mutated(text, random);
      try {
        expect_usable(parse_machine(text, "fuzzed.json"));
        ++read;
      } catch (const UnsupportedRequest& e) {
        ++refused;
        const std::string message = e.what();
        EXPECT_EQ(message.find('\n'), std::string::npos) << message;
        EXPECT_NE(message.find("fuzzed.json"), std::string::npos) << message;
      }
    }
  }
  EXPECT_GT(read, 0);
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace topocoll::topo
