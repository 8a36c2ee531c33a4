#include "topology/dragonfly_routing.hpp"

namespace topocoll::topo {

void DragonflyRouter::to_upper(int group, int router, int upper, RouteSet& out) const {
  if (fly_.shape().plus) {
    out.links.push_back(fly_.local(group, router, upper));
  } else if (router != upper) {
    out.links.push_back(fly_.local(group, router, upper));
  }
}

void DragonflyRouter::from_upper(int group, int upper, int router, RouteSet& out) const {
  if (fly_.shape().plus) {
    out.links.push_back(fly_.spine_down(group, upper, router));
  } else if (router != upper) {
    out.links.push_back(fly_.local(group, upper, router));
  }
}

void DragonflyRouter::across(int group, int from, int to, int leaf, RouteSet& out) const {
  if (from == to) return;
  if (fly_.shape().plus) {
    out.links.push_back(fly_.spine_down(group, from, leaf));
    out.links.push_back(fly_.local(group, leaf, to));
  } else {
    out.links.push_back(fly_.local(group, from, to));
  }
}

void DragonflyRouter::within_group(int src, int dst, RouteSet& out) const {
  const int group = fly_.group_of(src);
  const int rs = fly_.router_of(src);
  const int rd = fly_.router_of(dst);
  const int up = fly_.host_up(src);
  const int down = fly_.host_up(dst) + 1;
  if (rs == rd || !fly_.shape().plus) {
    out.links.push_back(up);
    if (rs != rd) out.links.push_back(fly_.local(group, rs, rd));
    out.links.push_back(down);
    out.close_path(1.0);
    return;
  }
  const int spines = fly_.shape().spines;
  const bool all = mode_ != Mode::single;
  const int first = all ? 0 : dst % spines;
  const int count = all ? spines : 1;
  for (int s = first; s < first + count; ++s) {
    out.links.insert(out.links.end(),
                     {up, fly_.local(group, rs, s), fly_.spine_down(group, s, rd), down});
    out.close_path(1.0 / count);
  }
}

void DragonflyRouter::route_set(int src, int dst, RouteSet& out) const {
  out.clear();
  if (src == dst) return;
  const int gs = fly_.group_of(src);
  const int gd = fly_.group_of(dst);
  if (gs == gd) return within_group(src, dst, out);
  const int rs = fly_.router_of(src);
  const int rd = fly_.router_of(dst);
  const int cables = fly_.cables_per_pair();
  const int fixed = (src + dst) % cables;
  const int up = fly_.host_up(src);
  const int down = fly_.host_up(dst) + 1;
  const int groups = fly_.shape().groups;
  if (mode_ == Mode::valiant && groups > 2) {
    const int leaf = (src + dst) % fly_.shape().routers;
    for (int m = 0; m < groups; ++m) {
      if (m == gs || m == gd) continue;
      out.links.push_back(up);
      to_upper(gs, rs, fly_.gateway(gs, m, fixed), out);
      out.links.push_back(fly_.global(gs, m, fixed));
      across(m, fly_.gateway(m, gs, fixed), fly_.gateway(m, gd, fixed), leaf, out);
      out.links.push_back(fly_.global(m, gd, fixed));
      from_upper(gd, fly_.gateway(gd, m, fixed), rd, out);
      out.links.push_back(down);
      out.close_path(1.0 / (groups - 2));
    }
    return;
  }
  const bool all = mode_ != Mode::single;
  const int first = all ? 0 : fixed;
  const int count = all ? cables : 1;
  for (int c = first; c < first + count; ++c) {
    out.links.push_back(up);
    to_upper(gs, rs, fly_.gateway(gs, gd, c), out);
    out.links.push_back(fly_.global(gs, gd, c));
    from_upper(gd, fly_.gateway(gd, gs, c), rd, out);
    out.links.push_back(down);
    out.close_path(1.0 / count);
  }
}

}  // namespace topocoll::topo
