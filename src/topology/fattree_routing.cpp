#include "topology/fattree_routing.hpp"

namespace topocoll::topo {

void FatTreeRouter::route_set(int src, int dst, RouteSet& out) const {
  out.clear();
  if (src == dst) return;
  const FatTreeShape& shape = tree_.shape();
  const int src_leaf = tree_.leaf_of(src);
  const int dst_leaf = tree_.leaf_of(dst);
  const int up = tree_.host_up(src);
  const int down = tree_.host_up(dst) + 1;
  if (src_leaf == dst_leaf) {
    out.links.insert(out.links.end(), {up, down});
    out.close_path(1.0);
    return;
  }
  const int src_pod = tree_.pod_of_leaf(src_leaf);
  const int dst_pod = tree_.pod_of_leaf(dst_leaf);
  const bool via_core = shape.levels == 3 && src_pod != dst_pod;
  const int cores = via_core ? shape.cores_per_agg : 1;
  const int first_agg = all_paths_ ? 0 : dst % shape.aggs;
  const int agg_count = all_paths_ ? shape.aggs : 1;
  const int first_core = all_paths_ ? 0 : (dst / shape.aggs) % cores;
  const int core_count = all_paths_ ? cores : 1;
  const double share = 1.0 / (static_cast<double>(agg_count) * core_count);
  for (int a = first_agg; a < first_agg + agg_count; ++a) {
    for (int c = first_core; c < first_core + core_count; ++c) {
      out.links.push_back(up);
      out.links.push_back(tree_.leaf_up(src_leaf, a));
      if (via_core) {
        out.links.push_back(tree_.agg_up(src_pod, a, c));
        out.links.push_back(tree_.agg_up(dst_pod, a, c) + 1);
      }
      out.links.push_back(tree_.leaf_up(dst_leaf, a) + 1);
      out.links.push_back(down);
      out.close_path(share);
    }
  }
}

}  // namespace topocoll::topo
