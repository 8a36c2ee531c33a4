#pragma once
// Rates and times with units, as DESIGN.md "Conventions" writes them: "400Gbps", "100ns",
// "1.5us". Throw UnsupportedRequest naming the accepted units.
#include <string_view>

namespace topocoll::topo {

// bps, Kbps, Mbps, Gbps, Tbps (bits, decimal prefixes) or B/s, KB/s, MB/s, GB/s, TB/s;
// returns bytes per second (> 0).
[[nodiscard]] double parse_rate(std::string_view text);
// s, ms, us, ns, ps; returns seconds (>= 0).
[[nodiscard]] double parse_time(std::string_view text);

}  // namespace topocoll::topo
