#pragma once
// Trivance and Bruck register the same two variants (bandwidth- and latency-optimal, ternary
// requirements, lifted to tori by trivance_torus.hpp); only these data differ.
#include "algorithms/ternary/trivance_torus.hpp"
#include "core/registry.hpp"

namespace topocoll::algorithms {

struct TernaryVariant {
  const char* paper;
  const char* summary;
};

struct TernaryFamily {
  const char* family;  // registers <family>-bw and <family>-lat
  bool baseline;       // AlgorithmInfo::baseline of both
  TernaryVariant bandwidth;
  RingPatternFactory pattern;
  TernaryVariant latency;
  LatencyRingFactory latency_ring;
};

void register_ternary_family(Registry& registry, const TernaryFamily& family);

}  // namespace topocoll::algorithms
