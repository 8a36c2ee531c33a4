#pragma once
// Command-line flags of topocoll-bench, named as in nccl-tests (-b/-e/-f/-n/-w/-d/-o/-r/-c) so
// that existing scripts and habits carry over.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace topocoll::bench {

// A flag the user gave that is invalid: the message is one line naming the accepted values.
class BadFlag : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct Options {
  std::uint64_t min_bytes = 8;
  std::uint64_t max_bytes = 64ull << 20;
  std::uint64_t factor = 2;
  int iterations = 20;
  int warmup = 5;
  std::string datatype = "float";
  std::string op = "sum";
  int root = 0;
  bool check = true;
  std::string collective = "allreduce";
  std::vector<std::string> algorithms = {"auto"};
  bool json = false;
  bool interleave = false;  // iteration i of every algorithm before iteration i+1 of any
  bool help = false;
};

// Throws BadFlag.
[[nodiscard]] Options parse_options(const std::vector<std::string>& args);

// "8", "4K" (KiB, as in nccl-tests), "4KiB", "4KB" (10^3), "1M", "2G", "32B", "1.5MiB"
// (runtime/byte_size.hpp); at least 1 byte and at most 1 TiB. Throws BadFlag.
[[nodiscard]] std::uint64_t parse_size(const std::string& text, const std::string& flag);

[[nodiscard]] std::string usage();

}  // namespace topocoll::bench
