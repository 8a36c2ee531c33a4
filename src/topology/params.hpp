#pragma once
// Named network parameter presets for the papers' simulation settings.
#include <string>
#include <string_view>

#include "topology/topology.hpp"

namespace topocoll::topo {

// "swing":    400 Gb/s, 100 ns link latency, 300 ns per hop (swing-nsdi24.txt section 5).
// "trivance": 800 Gb/s, 100 ns link latency, 100 ns per hop, alpha 1.5 us per step
//             (trivance.txt section 6).
// "canary":   100 Gb/s (canary-fgcs24.txt section 5.2), the swing preset's latencies.
// Throws UnsupportedRequest naming the accepted presets.
[[nodiscard]] NetworkParams preset_params(std::string_view name);
// "swing, trivance, canary"
[[nodiscard]] std::string preset_names();

}  // namespace topocoll::topo
