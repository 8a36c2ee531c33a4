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

double simulate(const topo::Machine& machine, const std::string& algorithm,
                const ScheduleRequest& request, std::uint64_t bytes) {
  const SchedulePtr schedule = registry().build(algorithm, request);
  const std::string spec = machine.topology.value_or("hyperx:" + std::to_string(request.ranks));
  const auto topology = topo::make_topology(spec, params_of(machine));
  const auto router = topo::make_router(*topology, topo::routings_for(*topology).front());
  const topo::Mapping mapping = topo::make_mapping("linear", request.ranks, *topology);
  sim::SimConfig config;
  config.model = sim::Model::analytic;
  config.vector_bytes = std::max<std::uint64_t>(bytes, 1);
  config.element_bytes = 1;
  return sim::Engine(*schedule, *topology, *router, mapping, config).run().time_s;
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
      out.seconds = simulate(*loaded.machine, algorithm, request, bytes);
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
