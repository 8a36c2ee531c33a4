#include "prediction.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "default_machine.hpp"
#include "sim/engine.hpp"
#include "topology/machine_file.hpp"
#include "topology/mapping.hpp"
#include "topology/routing.hpp"

namespace topocoll::mpi {
namespace {

struct LoadedMachine {
  std::optional<topo::Machine> machine;
  std::string error;
};

// One read per path for the process (a machine file does not change under a running job);
// the empty path is the default machine, parsed from the library's own bytes.
const LoadedMachine& machine_at(const std::string& path) {
  static std::map<std::string, LoadedMachine> machines;
  auto [it, added] = machines.try_emplace(path);
  if (added) {
    try {
      const EmbeddedMachine& embedded = default_machine();
      it->second.machine = path.empty() ? topo::parse_machine(embedded.text, embedded.path)
                                        : topo::read_machine_file(path);
    } catch (const std::exception& e) {
      it->second.error = e.what();
    }
  }
  return it->second;
}

// The machine's parameters; with reduction rates per datatype class, the first class's (the
// runtime's choice does not depend on the call's datatype).
topo::NetworkParams params_of(const topo::Machine& m) {
  if (m.reduce_s_per_byte_by_class.empty()) return m.params;
  return m.params_for(m.reduce_s_per_byte_by_class.begin()->first);
}

// The machine's network as `ranks` ranks see it, placed linearly.
struct Network {
  std::unique_ptr<topo::Topology> topology;
  std::unique_ptr<topo::Router> router;
  topo::Mapping mapping;
};

// One network per (machine, ranks) for the process: building the topology is most of a
// prediction's cost (the default machine has 1,024 hosts; docs/mpi.md, "`auto` against the
// library"), and a program calls with many sizes on few communicator sizes. The caller holds
// predict's lock.
const Network& network_for(const std::string& machine_path, const topo::Machine& machine,
                           int ranks) {
  static std::map<std::pair<std::string, int>, Network> networks;
  const auto key = std::make_pair(machine_path, ranks);
  if (auto it = networks.find(key); it != networks.end()) return it->second;
  Network n;
  const std::string spec = machine.topology.value_or("hyperx:" + std::to_string(ranks));
  n.topology = topo::make_topology(spec, params_of(machine));
  n.router = topo::make_router(*n.topology, topo::routings_for(*n.topology).front());
  n.mapping = topo::make_mapping("linear", ranks, *n.topology);
  return networks.emplace(key, std::move(n)).first->second;
}

double simulate(const std::string& machine_path, const topo::Machine& machine,
                const std::string& algorithm, const ScheduleRequest& request, std::uint64_t bytes) {
  const SchedulePtr schedule = registry().build(algorithm, request);
  const Network& network = network_for(machine_path, machine, request.ranks);
  sim::SimConfig config;
  config.model = sim::Model::analytic;
  config.vector_bytes = std::max<std::uint64_t>(bytes, 1);
  config.element_bytes = 1;
  return sim::Engine(*schedule, *network.topology, *network.router, network.mapping, config)
      .run()
      .time_s;
}

}  // namespace

Predicted predict(const std::string& machine_path, const std::string& algorithm,
                  const ScheduleRequest& request, std::uint64_t bytes) {
  using Key = std::tuple<std::string, std::string, int, int, int, bool, std::vector<int>, int,
                         std::uint64_t, int>;
  static std::mutex mutex;
  static std::map<Key, Predicted> remembered;
  const std::lock_guard lock(mutex);
  const Key key{machine_path,          algorithm,     static_cast<int>(request.collective),
                request.ranks,         request.root,  request.commutative,
                request.dims,          request.ports, bytes,
                request.ranks_per_node};
  if (auto it = remembered.find(key); it != remembered.end()) return it->second;
  Predicted out;
  const LoadedMachine& loaded = machine_at(machine_path);
  if (!loaded.machine) {
    out.error = loaded.error;
  } else {
    try {
      out.seconds = simulate(machine_path, *loaded.machine, algorithm, request, bytes);
    } catch (const std::exception& e) {
      out.error = algorithm + " on " + machine_label(machine_path) + ": " + e.what();
    }
  }
  return remembered.emplace(key, out).first->second;
}

std::string machine_label(const std::string& machine_path) {
  if (!machine_path.empty()) return "TOPOCOLL_MACHINE=" + machine_path;
  return "default machine " + std::string(default_machine().name);
}

}  // namespace topocoll::mpi
