#include "topology/node_spec.hpp"

#include "core/registry.hpp"
#include "topology/input_file.hpp"
#include "topology/parameter_ranges.hpp"

namespace topocoll::topo {

Fabric parse_fabric(std::string_view name) {
  if (name == "shared-memory") return Fabric::shared_memory;
  if (name == "gpu-mesh") return Fabric::gpu_mesh;
  if (name == "switch") return Fabric::node_switch;
  throw UnsupportedRequest("node fabric '" + printable(name) +
                           "' is unknown; accepted: shared-memory, gpu-mesh, switch");
}

std::string_view fabric_name(Fabric fabric) {
  switch (fabric) {
    case Fabric::shared_memory: return "shared-memory";
    case Fabric::gpu_mesh: return "gpu-mesh";
    case Fabric::node_switch: return "switch";
  }
  return "shared-memory";
}

void check_node_spec(const NodeSpec& spec) {
  if (spec.ranks_per_node < 1 || spec.ranks_per_node > kMaxRanksPerNode)
    throw UnsupportedRequest("ranks per node " + std::to_string(spec.ranks_per_node) +
                             " is out of range; accepted: 1..1024");
  if (spec.nics < 1 || spec.nics > kMaxNicsPerNode)
    throw UnsupportedRequest("NICs per node " + std::to_string(spec.nics) +
                             " is out of range; accepted: 1..64");
  // Unset rates are 0; set ones are link bandwidths.
  for (const auto& [value, what] : {std::pair{spec.fabric_bandwidth, "fabric bandwidth"},
                                    std::pair{spec.memory_bandwidth, "memory bandwidth"},
                                    std::pair{spec.nic_bandwidth, "NIC bandwidth"}})
    if (value != 0) check_parameter("bandwidth", value, what);
  if (spec.memory_bandwidth != 0 && spec.fabric != Fabric::shared_memory)
    throw UnsupportedRequest("a memory bandwidth applies to the shared-memory fabric only, not " +
                             std::string(fabric_name(spec.fabric)) +
                             "; accepted: fabric shared-memory, or no memory bandwidth");
  if (spec.fabric_latency) check_parameter("latency", *spec.fabric_latency, "fabric latency");
  const std::string_view m = spec.mapping;
  if (m != "block" && m != "cyclic" && !(m.starts_with("file:") && m.size() > 5))
    throw UnsupportedRequest("node mapping '" + printable(m) +
                             "' is unknown; accepted: block, cyclic, file:PATH");
}

}  // namespace topocoll::topo
