// Request checks and host allocation for one in-network allreduce run.
#include <string>

#include "core/registry.hpp"
#include "sim/innet/bounds.hpp"
#include "sim/innet/engine.hpp"

namespace topocoll::sim::innet {

namespace {

void check(bool ok, const std::string& message) {
  if (!ok) throw UnsupportedRequest(message);
}

void check_config(const topo::FatTreeTopology& t, const InnetConfig& c) {
  const int hosts = t.host_count();
  check(c.tenants >= 1 && 2 * static_cast<long long>(c.tenants) <= hosts,
        "--tenants " + std::to_string(c.tenants) + " out of range; accepted: 1.." +
            std::to_string(hosts / 2) + " on " + t.spec() + " (at least 2 hosts per tenant)");
  check(c.hosts >= 2 * c.tenants && c.hosts <= hosts,
        "--hosts " + std::to_string(c.hosts) +
            " out of range; accepted: " + std::to_string(2 * c.tenants) + ".." +
            std::to_string(hosts) + " on " + t.spec() + " (at least 2 per tenant)");
  check(c.size_bytes >= 4 && c.size_bytes <= (1ULL << 32), "size must be 4B..4GiB");
  check(c.elements_per_packet >= 1 && c.elements_per_packet <= 4096,
        "elements per packet must be 1..4096");
  check(c.timeout_s > 0, "--timeout must be > 0, e.g. 1us");
  check(c.table_entries >= 1, "--table-entries must be >= 1");
  check(!c.partition_table || c.table_entries >= c.tenants,
        "a partitioned table needs --table-entries >= --tenants");
  check(c.drop_probability >= 0 && c.drop_probability < 1, "--drop must be in [0, 1)");
  check(c.noise_probability >= 0 && c.noise_probability <= 1, "--noise must be in [0, 1]");
  check(c.trees >= 1, "static trees: N must be >= 1 (static-N)");
  check(c.max_attempts >= 1 && c.max_attempts <= 200, "--max-attempts must be 1..200");
  check(c.tenants < (1 << 15), "--tenants must be < 32768");
  check(
      c.buffer_bytes >= static_cast<std::uint64_t>(4 * c.elements_per_packet + c.header_bytes + 8),
      "--buffer must hold at least one packet");
  check(c.background_message_bytes >= 1, "--background-message must be >= 1B");
  check(c.background_load > 0 && c.background_load <= 1,
        "--background-load must be in (0, 1] (a fraction of line rate)");
  check(c.window_blocks >= 0, "--window must be >= 0 (0: unbounded)");
  check(c.rto_s >= 0, "--rto must be > 0 or auto");
  check(c.table_index != TableIndex::static_slots || c.table_entries >= c.tenants,
        "the static table index gives each tenant a share: --table-entries must be >= --tenants");
  for (int node = t.host_count(); node < t.node_count(); ++node)
    check(t.out_links(node).size() <= 256, "switches of more than 256 ports are not supported");
}

}  // namespace

const topo::FatTreeTopology& check_innet(const topo::Topology& topology,
                                         const InnetConfig& config) {
  const auto* fattree = dynamic_cast<const topo::FatTreeTopology*>(&topology);
  check(fattree != nullptr && fattree->shape().levels == 2,
        "innet runs on 2-level fat trees; accepted: fattree:canary, fattree:2:LEAVES:HOSTS:SPINES, "
        "fattree:radix=K");
  check_config(*fattree, config);
  const int switches = topology.node_count() - topology.host_count();
  const double horizon = horizon_s(*fattree, config);
  for (const Fault& f : config.faults) {
    check(f.time_s >= 0 && f.time_s <= horizon, "failure time " + std::to_string(f.time_s) +
                                                    " s is past the end of the run (" +
                                                    std::to_string(horizon) + " s)");
    check(f.node < 0 || (f.node >= topology.host_count() && f.node < topology.node_count()),
          "failed switch out of range; accepted: 0.." + std::to_string(switches - 1));
    const auto links = static_cast<int>(topology.links().size());
    check(f.link < links, "failed link " + std::to_string(f.link) + " out of range; accepted: 0.." +
                              std::to_string(links - 1));
    // A host's only cable failing would leave its allreduce unfinishable by construction.
    check(f.link < 0 ||
              (topology.links()[static_cast<std::size_t>(f.link)].from >= topology.host_count() &&
               topology.links()[static_cast<std::size_t>(f.link)].to >= topology.host_count()),
          "failed link " + topology.links()[static_cast<std::size_t>(std::max(0, f.link))].label +
              " connects a host; accepted: a cable between two switches, e.g. leaf0->spine1");
  }
  check_limits(*fattree, config);
  return *fattree;
}

InnetResult run_innet(const topo::Topology& topology, const InnetConfig& config) {
  const topo::FatTreeTopology& fattree = check_innet(topology, config);
  // canary-fgcs24 5.2: a random allocation of the allreduce and congestion hosts per seed
  std::mt19937_64 rng(config.seed);
  std::vector<int> order(static_cast<std::size_t>(topology.host_count()));
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  for (std::size_t i = order.size() - 1; i > 0; --i) std::swap(order[i], order[rng() % (i + 1)]);
  const std::vector<int> participants(order.begin(), order.begin() + config.hosts);
  const std::vector<int> congestion(order.begin() + config.hosts, order.end());
  Engine engine(fattree, config, participants, congestion);
  return engine.run();
}

}  // namespace topocoll::sim::innet
