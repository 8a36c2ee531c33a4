// The one reading of byte counts (runtime/byte_size.hpp) that TOPOCOLL_MAX_MESSAGE_BYTES and
// topocoll-bench use, on the spellings topocoll.units.parse_bytes documents and accepts.
#include "runtime/byte_size.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

using topocoll::mpi::parse_byte_size;

TEST(ByteSize, ReadsEveryUnitAsThePythonToolsDo) {
  const std::vector<std::pair<std::string, std::uint64_t>> cases = {
      {"0", 0},
      {"4096", 4096},
      {"32B", 32},
      {"32b", 32},
      {"4K", 4096},
      {"4k", 4096},
      {"4KiB", 4096},
      {"4kib", 4096},
      {"4KB", 4000},
      {"128M", 134217728},
      {"128MiB", 134217728},
      {"1MB", 1000000},
      {"1G", 1073741824},
      {"1GB", 1000000000},
      {"2T", 2199023255552},
      {"1TB", 1000000000000},
      {"1.5KiB", 1536},
      {".5K", 512},
      {"0.5KiB", 512},
      {" 64 KiB ", 65536},
      {"1024TiB", 1125899906842624},  // 1 PiB, the largest
  };
  for (const auto& [text, bytes] : cases) {
    const auto parsed = parse_byte_size(text);
    ASSERT_TRUE(parsed.has_value()) << text;
    EXPECT_EQ(*parsed, bytes) << text;
  }
}

TEST(ByteSize, RejectsWhatIsNotAWholeByteCount) {
  for (const std::string text :
       {"",      " ",     "K",   "KiB",     "4096Q",   "4 Q",
        "-4",    "+4",    "4.",  ".",       "1.2.3",   "0.3B",
        "1.5",   "4KiBB", "4iB", "4 K i B", "1025TiB", "99999999999999999999",
        "4,096", "0x10"})
    EXPECT_FALSE(parse_byte_size(text).has_value()) << "'" << text << "'";
}
