#pragma once
// Parts of the nanobind module `topocoll._core`, each bound in its own file and called from
// NB_MODULE in module.cpp.
#include <nanobind/nanobind.h>

namespace topocoll::bindings {

// Topologies, parameter presets, routers and the simulator (simulator.cpp).
void bind_simulator(nanobind::module_& m);
// The packet-level in-network allreduce simulator (innet.cpp).
void bind_innet(nanobind::module_& m);
// MSCCL XML in and out (interop.cpp).
void bind_interop(nanobind::module_& m);

}  // namespace topocoll::bindings
