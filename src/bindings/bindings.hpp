#pragma once
// Parts of the nanobind module `topocoll._core`, each bound in its own file and called from
// NB_MODULE in module.cpp.
#include <nanobind/nanobind.h>

#include "core/collective.hpp"

namespace topocoll::bindings {

// The collectives' facts, the units and the limits of the inputs (facts.cpp).
void bind_facts(nanobind::module_& m);
// f(P): the bytes every rank must inject or eject, as a multiple of the size (facts.cpp).
[[nodiscard]] double bandwidth_factor(Collective collective, int ranks);

// Topologies, parameter presets, routers and the simulator (simulator.cpp).
void bind_simulator(nanobind::module_& m);
// The packet-level in-network allreduce simulator (innet.cpp).
void bind_innet(nanobind::module_& m);
// MSCCL XML in and out (interop.cpp).
void bind_interop(nanobind::module_& m);

}  // namespace topocoll::bindings
