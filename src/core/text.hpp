#pragma once
// Text the user gave, made safe to quote in a one-line message.
#include <cstddef>
#include <string>
#include <string_view>

namespace topocoll {

// Whether `text` is well-formed UTF-8 (no overlong forms, surrogates or code points past
// U+10FFFF); the offset of the first bad byte in `bad_at` when not.
[[nodiscard]] bool is_utf8(std::string_view text, std::size_t* bad_at = nullptr);

// `text` with every byte that is not part of a well-formed UTF-8 sequence, and every control
// character, written as \xNN (\n, \t, \r as such): safe to quote in a one-line message.
[[nodiscard]] std::string printable(std::string_view text);

}  // namespace topocoll
