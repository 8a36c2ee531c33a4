#pragma once
// Reading a file the user named (a graph file, a mapping file) as text, with every way it can
// be unusable turned into one UnsupportedRequest line that names the file: missing, not a
// regular file (a directory), unreadable, too large for what it describes, or not UTF-8.
#include <cstdint>
#include <string>
#include <string_view>

namespace topocoll::topo {

// The whole content of `path`. `what` names the file's role in messages ("graph file").
[[nodiscard]] std::string read_input_file(const std::string& path, std::string_view what,
                                          std::uint64_t max_bytes);

// Whether `text` is well-formed UTF-8 (no overlong forms, surrogates or code points past
// U+10FFFF); the offset of the first bad byte in `bad_at` when not.
[[nodiscard]] bool is_utf8(std::string_view text, std::size_t* bad_at = nullptr);

// `text` with every byte that is not part of a well-formed UTF-8 sequence, and every control
// character, written as \xNN (\n, \t, \r as such): safe to quote in a one-line message.
[[nodiscard]] std::string printable(std::string_view text);

}  // namespace topocoll::topo
