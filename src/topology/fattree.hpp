#pragma once
// Fat trees (folded Clos) of two or three switch levels.
//  2 levels: LEAVES leaf switches with HOSTS_PER_LEAF hosts each; every leaf has one cable to
//            each of SPINES spine switches (oversubscription HOSTS_PER_LEAF : SPINES).
//  3 levels: PODS pods of LEAVES_PER_POD leaves (HOSTS_PER_LEAF hosts each) and AGGS_PER_POD
//            aggregation switches, every leaf of a pod cabled to every aggregation switch of
//            the pod; the core is AGGS_PER_POD planes of CORES_PER_AGG switches, and the a-th
//            aggregation switch of every pod is cabled to every core switch of plane a.
// A host's cable to its leaf has nic_ports x the link bandwidth (its NIC ports bundled).
// Node ids: hosts, then leaves, then aggregation switches (3 levels), then spines/cores.
#include <string>
#include <vector>

#include "topology/topology.hpp"

namespace topocoll::topo {

struct FatTreeShape {
  int levels = 2;
  int pods = 1;    // 2 levels: 1
  int leaves = 0;  // per pod
  int hosts_per_leaf = 0;
  int aggs = 0;           // per pod (3 levels); 2 levels: the spines
  int cores_per_agg = 0;  // 3 levels only

  [[nodiscard]] long long host_count() const;
  [[nodiscard]] long long link_count() const;
};

class FatTreeTopology : public Topology {
 public:
  FatTreeTopology(std::string spec, const NetworkParams& params, const FatTreeShape& shape);

  [[nodiscard]] const FatTreeShape& shape() const { return shape_; }
  [[nodiscard]] int leaf_of(int host) const { return host / shape_.hosts_per_leaf; }
  [[nodiscard]] int pod_of_leaf(int leaf) const { return leaf / shape_.leaves; }
  // Upward link ids; the downward link of the same cable is the id + 1.
  [[nodiscard]] int host_up(int host) const { return host_cable_[host]; }
  // Leaf (global index) to its a-th upper switch (aggregation switch, or spine a).
  [[nodiscard]] int leaf_up(int leaf, int a) const {
    return leaf_cable_[static_cast<std::size_t>(leaf) * shape_.aggs + a];
  }
  // Aggregation switch a of `pod` to core c of plane a (3 levels).
  [[nodiscard]] int agg_up(int pod, int a, int c) const {
    return agg_cable_[(static_cast<std::size_t>(pod) * shape_.aggs + a) * shape_.cores_per_agg + c];
  }

 private:
  FatTreeShape shape_;
  std::vector<int> host_cable_;
  std::vector<int> leaf_cable_;
  std::vector<int> agg_cable_;
};

}  // namespace topocoll::topo
