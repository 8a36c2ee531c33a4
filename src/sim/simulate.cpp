#include "sim/simulate.hpp"

#include "core/registry.hpp"
#include "sim/engine.hpp"
#ifdef TOPOCOLL_HAVE_SIMGRID
#include "sim/simgrid_model.hpp"
#endif

namespace topocoll::sim {

SimResult simulate(const Schedule& schedule, const topo::Topology& topology,
                   const topo::Router& router, const topo::Mapping& mapping,
                   const SimConfig& config) {
  if (config.global_load != 0 && config.model != Model::flow)
    throw UnsupportedRequest(
        "--global-load applies to the flow model only; accepted: --model flow");
  if (config.model == Model::simgrid) {
#ifdef TOPOCOLL_HAVE_SIMGRID
    return simulate_simgrid(schedule, topology, router, mapping, config);
#else
    throw UnsupportedRequest("the simgrid model was not built: install libsimgrid-dev and rebuild");
#endif
  }
  Engine engine(schedule, topology, router, mapping, config);
  return engine.run();
}

}  // namespace topocoll::sim
