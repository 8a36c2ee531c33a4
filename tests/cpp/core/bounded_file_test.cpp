// The reader policy of every file the C++ side reads (core/bounded_file.hpp): regular files
// only, refused before anything is read (a FIFO never blocks the reader), the limit checked
// on what is read (st_size is 0 for devices), the file named in every error.
#include "core/bounded_file.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>

#include "core/registry.hpp"
#include "core/schedule_io.hpp"

namespace topocoll {
namespace {

namespace fs = std::filesystem;

class BoundedFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("bounded_file_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& content) const {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }

  fs::path dir_;
};

// The error of reading `path`, checked to be one line naming the file.
std::string error_of(const std::string& path, std::uint64_t limit = 1 << 20) {
  try {
    (void)read_bounded_file(path, "test file", limit);
  } catch (const UnsupportedRequest& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_NE(message.find("test file '" + path + "'"), std::string::npos) << message;
    return message;
  }
  ADD_FAILURE() << path << " was read";
  return {};
}

TEST_F(BoundedFile, ReadsARegularFileUpToTheLimit) {
  const std::string path = write("ok.txt", std::string(100, 'x'));
  EXPECT_EQ(read_bounded_file(path, "test file", 100), std::string(100, 'x'));
  EXPECT_EQ(read_bounded_file(write("empty.txt", ""), "test file", 0), "");
}

TEST_F(BoundedFile, RefusesAFileOverTheLimitNamingIt) {
  const std::string path = write("big.txt", std::string(101, 'x'));
  const std::string error = error_of(path, 100);
  EXPECT_NE(error.find("larger than the limit; accepted: at most 100 bytes"), std::string::npos)
      << error;
}

TEST_F(BoundedFile, RefusesAFifoWithoutBlocking) {
  const std::string path = (dir_ / "fifo").string();
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  auto reading = std::async(std::launch::async, [&] { return error_of(path); });
  if (reading.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    // A reader blocked in open(): a writer that opens and closes lets it return (and fail).
    const int writer = ::open(path.c_str(), O_WRONLY | O_NONBLOCK);
    if (writer >= 0) ::close(writer);
    ADD_FAILURE() << "reading a FIFO blocked";
  }
  EXPECT_NE(reading.get().find("is a FIFO; accepted: a regular file"), std::string::npos);
}

TEST_F(BoundedFile, RefusesDevicesWhatEverTheirSize) {
  // st_size is 0 for /dev/zero, which never ends: the old check trusted st_size.
  EXPECT_NE(error_of("/dev/zero").find("is a character device; accepted: a regular file"),
            std::string::npos);
}

TEST_F(BoundedFile, RefusesADirectoryAndAMissingFile) {
  EXPECT_NE(error_of(dir_.string()).find("is a directory; accepted: a regular file"),
            std::string::npos);
  EXPECT_NE(error_of((dir_ / "missing").string()).find("no such file"), std::string::npos);
  EXPECT_NE(error_of("").find("no file named"), std::string::npos);
}

TEST_F(BoundedFile, NamesTheFileInScheduleErrors) {
  const std::string empty = write("empty.json", " \n");
  try {
    (void)schedule_from_json_file(empty);
    ADD_FAILURE() << "an empty schedule file was read";
  } catch (const ScheduleFormatError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("schedule file '" + empty + "'"), std::string::npos) << message;
    EXPECT_NE(message.find("the text is empty"), std::string::npos) << message;
    EXPECT_EQ(message.find("json.exception"), std::string::npos) << message;
  }
  EXPECT_THROW((void)schedule_from_json_file("/dev/zero"), UnsupportedRequest);
}

TEST(DescribeBytes, StatesLimitsInTheirUnit) {
  EXPECT_EQ(describe_bytes(std::uint64_t{1} << 30), "1 GiB");
  EXPECT_EQ(describe_bytes(64 * 1024), "64 KiB");
  EXPECT_EQ(describe_bytes(1000), "1000 bytes");
  EXPECT_EQ(describe_bytes(1), "1 byte");
  EXPECT_EQ(describe_bytes(805308416), "768.0 MiB");
  EXPECT_EQ(describe_bytes(1536), "1.5 KiB");
}

}  // namespace
}  // namespace topocoll
