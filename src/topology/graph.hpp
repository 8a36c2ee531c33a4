#pragma once
// A network read from a JSON file (graph:FILE):
//   {"nodes": [{"name": "h0", "host": true}, {"name": "s0"}, ...],
//    "links": [{"from": "h0", "to": "s0", "bandwidth": "400Gbps", "latency": "100ns",
//               "bidirectional": true}, ...]}
// Hosts get ids 0..H-1 in file order, switches follow. A link's bandwidth and latency default
// to the network parameters; the per-hop latency is added to every link's latency.
// "bidirectional" (default true) makes the entry a cable: one link per direction.
#include <string>

#include "topology/topology.hpp"

namespace topocoll::topo {

class GraphTopology : public Topology {
 public:
  // Throws UnsupportedRequest for an unreadable or invalid file.
  GraphTopology(std::string spec, const NetworkParams& params, const std::string& path);
};

}  // namespace topocoll::topo
