#pragma once
// Rates and times with units, as docs/design.md, "7.1 Units" writes them: "400Gbps", "100ns",
// "1.5us". The grammar is the one of the Python front end (topocoll.units): a plain decimal
// number (no sign, no exponent), optional spaces around it, then the unit. Errors are
// UnsupportedRequest naming the accepted units.
#include <string_view>

namespace topocoll::topo {

// Prefix "", k, K, M, G, T (decimal) and unit bps or bit/s (bits) or Bps or B/s (bytes);
// returns bytes per second (> 0).
[[nodiscard]] double parse_rate(std::string_view text);
// ns, us, µs, ms, s; returns seconds.
[[nodiscard]] double parse_time(std::string_view text);

}  // namespace topocoll::topo
