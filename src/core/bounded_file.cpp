#include "core/bounded_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>

#include "core/registry.hpp"
#include "core/text.hpp"

namespace topocoll {
namespace {

[[noreturn]] void file_error(std::string_view what, const std::string& path,
                             const std::string& problem) {
  throw UnsupportedRequest(std::string(what) + " '" + printable(path) + "': " + problem);
}

// Closes the descriptor on every path out, exceptions included.
struct Descriptor {
  int fd = -1;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

std::string kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

std::string describe_bytes(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024) return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
  // Limits are exact powers of two ("256 MiB"); estimates get one decimal ("768.2 MiB").
  std::size_t unit = 0;
  std::uint64_t whole = bytes / 1024;
  while (unit + 1 < std::size(kUnits) && whole >= 1024) {
    whole /= 1024;
    ++unit;
  }
  const std::uint64_t scale = std::uint64_t{1} << (10 * (unit + 1));
  if (bytes % scale == 0) return std::to_string(bytes / scale) + " " + kUnits[unit];
  const auto tenths = static_cast<std::uint64_t>(static_cast<double>(bytes) * 10 / scale + 0.5);
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " " + kUnits[unit];
}

std::string read_bounded_file(const std::string& path, std::string_view what,
                              std::uint64_t max_bytes) {
  if (path.empty()) file_error(what, path, "no file named");
  if (path.find('\0') != std::string::npos) file_error(what, path, "a path cannot hold a NUL");
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
  Descriptor file{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (file.fd < 0) {
    const int error = errno;
    if (error == ENOENT) file_error(what, path, "no such file; accepted: an existing regular file");
    file_error(what, path, std::string("cannot open (") + std::strerror(error) + ")");
  }
  struct stat status {};
  if (::fstat(file.fd, &status) != 0)
    file_error(what, path, std::string("cannot inspect (") + std::strerror(errno) + ")");
  if (S_ISDIR(status.st_mode)) file_error(what, path, "is a directory; accepted: a regular file");
  if (!S_ISREG(status.st_mode))
    file_error(what, path, "is " + kind_of(status.st_mode) + "; accepted: a regular file");
  const int flags = ::fcntl(file.fd, F_GETFL);
  if (flags >= 0) (void)::fcntl(file.fd, F_SETFL, flags & ~O_NONBLOCK);
  const std::string limit =
      "accepted: at most " + describe_bytes(max_bytes) + " (" + std::to_string(max_bytes) + ")";
  // st_size only sizes the first allocation; the limit is checked on what is read.
  const auto hint = static_cast<std::uint64_t>(std::max<off_t>(status.st_size, 0));
  std::string text;
  text.reserve(static_cast<std::size_t>(std::min(hint, max_bytes) + 1));
  char buffer[1 << 16];
  while (true) {
    // One byte past the limit is enough to know the file is too large.
    const std::uint64_t room = std::min<std::uint64_t>(sizeof buffer - 1, max_bytes - text.size());
    const auto want = static_cast<std::size_t>(room + 1);
    const ssize_t got = ::read(file.fd, buffer, want);
    if (got < 0) {
      if (errno == EINTR) continue;
      file_error(what, path, std::string("read failed (") + std::strerror(errno) + ")");
    }
    if (got == 0) break;
    text.append(buffer, static_cast<std::size_t>(got));
    if (text.size() > max_bytes) file_error(what, path, "larger than the limit; " + limit);
  }
  return text;
}

}  // namespace topocoll
