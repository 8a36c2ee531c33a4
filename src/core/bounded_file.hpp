#pragma once
// The one reader policy for every file the C++ side reads (schedule files, MSCCL XML, graph
// and mapping files, the MPI runtime's rules file and file: schedules):
// - regular files only: a FIFO, a device (/dev/zero), a socket or a directory is refused
//   before anything is read, and opening never blocks (O_NONBLOCK until fstat says regular);
// - a size limit checked while reading: at most limit + 1 bytes are read, whatever st_size
//   says (it is 0 for devices and may change while the file is read);
// - the file named in every error, in one line (UnsupportedRequest: exit 2 in the CLI).
#include <cstdint>
#include <string>
#include <string_view>

namespace topocoll {

// The whole content of `path`. `what` names the file's role in messages ("schedule file");
// `max_bytes` is the largest content accepted.
[[nodiscard]] std::string read_bounded_file(const std::string& path, std::string_view what,
                                            std::uint64_t max_bytes);

// "1 GiB", "64 KiB", "12 bytes": a byte count as limits are stated in messages.
[[nodiscard]] std::string describe_bytes(std::uint64_t bytes);

}  // namespace topocoll
