#include "topology/fattree.hpp"

#include <utility>

#include "topology/spec_parse.hpp"

namespace topocoll::topo {

long long FatTreeShape::host_count() const {
  return static_cast<long long>(pods) * leaves * hosts_per_leaf;
}

long long FatTreeShape::link_count() const {
  const long long leaf_count = static_cast<long long>(pods) * leaves;
  long long cables = host_count() + leaf_count * aggs;
  if (levels == 3) cables += static_cast<long long>(pods) * aggs * cores_per_agg;
  return 2 * cables;
}

FatTreeTopology::FatTreeTopology(std::string spec, const NetworkParams& params,
                                 const FatTreeShape& shape)
    : Topology(std::move(spec), params), shape_(shape) {
  const int hosts = static_cast<int>(shape.host_count());
  const int leaves = shape.pods * shape.leaves;
  const int aggs = shape.levels == 3 ? shape.pods * shape.aggs : 0;
  const int tops = shape.levels == 3 ? shape.aggs * shape.cores_per_agg : shape.aggs;
  reserve(hosts + leaves + aggs + tops, shape.link_count());
  for (int h = 0; h < hosts; ++h) add_node(true);
  const int first_leaf = node_count();
  for (int l = 0; l < leaves; ++l) add_node(false);
  const int first_agg = node_count();
  for (int a = 0; a < aggs; ++a) add_node(false);
  const int first_top = node_count();
  for (int t = 0; t < tops; ++t) add_node(false);

  const double bandwidth = params.bandwidth_bytes_per_s;
  const double latency = params.link_latency_s + params.hop_latency_s;
  const auto name = [](const char* kind, int index) { return numbered(kind, index); };
  for (int h = 0; h < hosts; ++h) {
    host_cable_.push_back(add_cable(h, first_leaf + leaf_of(h), bandwidth * params.nic_ports,
                                    latency, name("h", h), name("leaf", leaf_of(h))));
  }
  const char* upper = shape.levels == 3 ? "agg" : "spine";
  for (int l = 0; l < leaves; ++l) {
    for (int a = 0; a < shape.aggs; ++a) {
      // 3 levels: the a-th aggregation switch of the leaf's pod; 2 levels: spine a.
      const int index = shape.levels == 3 ? pod_of_leaf(l) * shape.aggs + a : a;
      const int node = (shape.levels == 3 ? first_agg : first_top) + index;
      leaf_cable_.push_back(
          add_cable(first_leaf + l, node, bandwidth, latency, name("leaf", l), name(upper, index)));
    }
  }
  if (shape.levels != 3) return;
  for (int pod = 0; pod < shape.pods; ++pod) {
    for (int a = 0; a < shape.aggs; ++a) {
      for (int c = 0; c < shape.cores_per_agg; ++c) {
        const int core = a * shape.cores_per_agg + c;
        agg_cable_.push_back(add_cable(first_agg + pod * shape.aggs + a, first_top + core,
                                       bandwidth, latency, name("agg", pod * shape.aggs + a),
                                       name("core", core)));
      }
    }
  }
}

}  // namespace topocoll::topo
