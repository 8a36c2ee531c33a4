#pragma once
// Reading a file the user named (a graph file, a mapping file) as text: the core's reader
// policy (core/bounded_file.hpp: regular files only, the limit checked while reading, the
// file named in every error), and UTF-8 text only.
#include <cstdint>
#include <string>
#include <string_view>

#include "core/text.hpp"

namespace topocoll::topo {

// The whole content of `path`. `what` names the file's role in messages ("graph file").
[[nodiscard]] std::string read_input_file(const std::string& path, std::string_view what,
                                          std::uint64_t max_bytes);

using topocoll::is_utf8;
using topocoll::printable;

}  // namespace topocoll::topo
