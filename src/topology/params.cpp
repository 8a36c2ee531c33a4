#include "topology/params.hpp"

#include "core/registry.hpp"

namespace topocoll::topo {

NetworkParams preset_params(std::string_view name) {
  NetworkParams params;
  if (name == "swing") {
    // swing-nsdi24.txt section 5: "400Gb/s links with 100ns latency and 300ns of per-hop
    // packet processing latency".
    params.bandwidth_bytes_per_s = 400e9 / 8;
    params.link_latency_s = 100e-9;
    params.hop_latency_s = 300e-9;
    return params;
  }
  if (name == "trivance") {
    // trivance.txt section 6: 800 Gb/s, 100 ns link latency, 100 ns per-hop processing, and a
    // per-step latency alpha = 1.5 us.
    params.bandwidth_bytes_per_s = 800e9 / 8;
    params.link_latency_s = 100e-9;
    params.hop_latency_s = 100e-9;
    params.alpha_s = 1.5e-6;
    return params;
  }
  if (name == "canary") {
    // canary-fgcs24.txt section 5.2: hosts and switches with 100 Gb/s interfaces. The paper
    // gives no latencies; these are the swing preset's.
    params.bandwidth_bytes_per_s = 100e9 / 8;
    params.link_latency_s = 100e-9;
    params.hop_latency_s = 300e-9;
    return params;
  }
  throw UnsupportedRequest("unknown parameter preset '" + std::string(name) +
                           "'; accepted: " + preset_names());
}

std::string preset_names() { return "swing, trivance, canary"; }

}  // namespace topocoll::topo
