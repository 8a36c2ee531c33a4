#pragma once
// Parsing helpers shared by the topology spec parsers: every error is an UnsupportedRequest
// that quotes the spec, names the problem and lists the accepted forms.
#include <string>
#include <string_view>
#include <vector>

namespace topocoll::topo {

// Most hosts and directed links a topology may have (memory stays in the hundreds of MB).
inline constexpr long long max_hosts = 1LL << 20;
inline constexpr long long max_links = 1LL << 24;

// `prefix` followed by a number ("h12"), and `text` in single quotes. They append instead of
// writing "literal" + std::string, on which GCC 12 raises a false -Wrestrict warning.
[[nodiscard]] std::string numbered(std::string_view prefix, long long index);
[[nodiscard]] std::string quoted(std::string_view text);

// One line listing every accepted spec form, for error messages.
[[nodiscard]] std::string topology_spec_forms();

// Throws UnsupportedRequest "topology 'SPEC': PROBLEM; accepted: FORMS".
[[noreturn]] void spec_error(std::string_view spec, const std::string& problem);

[[nodiscard]] std::vector<std::string_view> split(std::string_view text, char separator);

// A decimal integer in [low, high]; `what` names it in the error.
[[nodiscard]] int parse_int(std::string_view spec, std::string_view text, std::string_view what,
                            long long low, long long high);

// "AxBx..." with every size in [low, high].
[[nodiscard]] std::vector<int> parse_dims(std::string_view spec, std::string_view text,
                                          long long low, long long high);

// Throws when hosts or links exceed max_hosts / max_links (counts computed before building).
void check_size(std::string_view spec, long long hosts, long long links);

}  // namespace topocoll::topo
