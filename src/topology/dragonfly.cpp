#include "topology/dragonfly.hpp"

#include <utility>

#include "topology/spec_parse.hpp"

namespace topocoll::topo {

long long DragonflyShape::cables_per_pair() const {
  if (groups < 2) return 0;
  return static_cast<long long>(uppers()) * global_per_router / (groups - 1);
}

long long DragonflyShape::host_count() const {
  return static_cast<long long>(groups) * routers * hosts_per_router;
}

long long DragonflyShape::link_count() const {
  const long long local_cables = plus ? static_cast<long long>(routers) * spines
                                      : static_cast<long long>(routers) * (routers - 1) / 2;
  const long long pairs = static_cast<long long>(groups) * (groups - 1) / 2;
  return 2 * (host_count() + groups * local_cables + pairs * cables_per_pair());
}

DragonflyTopology::DragonflyTopology(std::string spec, const NetworkParams& params,
                                     const DragonflyShape& shape)
    : Topology(std::move(spec), params),
      shape_(shape),
      cables_(static_cast<int>(shape.cables_per_pair())) {
  const int hosts = static_cast<int>(shape.host_count());
  const int per_group = shape.routers + (shape.plus ? shape.spines : 0);
  reserve(hosts + shape.groups * per_group, shape.link_count());
  for (int h = 0; h < hosts; ++h) add_node(true);
  first_router_ = node_count();
  for (int r = 0; r < shape.groups * per_group; ++r) add_node(false);
  const double latency = params.link_latency_s + params.hop_latency_s;
  for (int h = 0; h < hosts; ++h) {
    const int router = first_router_ + group_of(h) * per_group + router_of(h);
    host_cable_.push_back(add_cable(
        h, router, params.bandwidth_bytes_per_s * params.nic_ports, latency, numbered("h", h),
        numbered("g", group_of(h)) + (shape.plus ? "leaf" : "r") + std::to_string(router_of(h))));
  }
  wire_groups(params.bandwidth_bytes_per_s, latency);
  wire_globals(params.bandwidth_bytes_per_s, latency);
}

void DragonflyTopology::wire_groups(double bandwidth, double latency) {
  const int per_group = shape_.routers + (shape_.plus ? shape_.spines : 0);
  local_width_ = shape_.plus ? shape_.spines : shape_.routers;
  local_link_.assign(static_cast<std::size_t>(shape_.groups) * shape_.routers * local_width_, -1);
  for (int g = 0; g < shape_.groups; ++g) {
    const int base = first_router_ + g * per_group;
    const std::string prefix = numbered("g", g);
    for (int r = 0; r < shape_.routers; ++r) {
      for (int s = shape_.plus ? 0 : r + 1; s < local_width_; ++s) {
        const std::size_t at = (static_cast<std::size_t>(g) * shape_.routers + r) * local_width_;
        if (shape_.plus) {
          local_link_[at + s] =
              add_cable(base + r, base + shape_.routers + s, bandwidth, latency,
                        prefix + "leaf" + std::to_string(r), prefix + "spine" + std::to_string(s));
          continue;
        }
        const int id =
            add_cable(base + r, base + s, bandwidth, latency, prefix + "r" + std::to_string(r),
                      prefix + "r" + std::to_string(s));
        local_link_[at + s] = id;
        local_link_[(static_cast<std::size_t>(g) * shape_.routers + s) * local_width_ + r] = id + 1;
      }
    }
  }
}

void DragonflyTopology::wire_globals(double bandwidth, double latency) {
  const int groups = shape_.groups;
  const int per_group = shape_.routers + (shape_.plus ? shape_.spines : 0);
  const int upper_offset = shape_.plus ? shape_.routers : 0;
  const char* kind = shape_.plus ? "spine" : "r";
  global_link_.assign(static_cast<std::size_t>(groups) * (groups - 1) * cables_, -1);
  for (int i = 0; i < groups; ++i) {
    for (int j = i + 1; j < groups; ++j) {
      for (int c = 0; c < cables_; ++c) {
        const int from = gateway(i, j, c);
        const int to = gateway(j, i, c);
        const int id = add_cable(first_router_ + i * per_group + upper_offset + from,
                                 first_router_ + j * per_group + upper_offset + to, bandwidth,
                                 latency, numbered(numbered("g", i) + kind, from),
                                 numbered(numbered("g", j) + kind, to));
        global_link_[(static_cast<std::size_t>(i) * (groups - 1) + j - 1) * cables_ + c] = id;
        global_link_[(static_cast<std::size_t>(j) * (groups - 1) + i) * cables_ + c] = id + 1;
      }
    }
  }
}

}  // namespace topocoll::topo
