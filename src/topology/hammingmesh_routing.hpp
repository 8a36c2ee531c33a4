#pragma once
// Routing on a HammingMesh. A path corrects dimension 0 (along the host's grid row) and then
// dimension 1, or the reverse; each dimension's segment either stays on the board (a straight
// mesh walk, when both ends are on the same board) or walks to a board edge, crosses the row's
// (column's) fat tree and walks in from an edge of the target board. Minimal segments are the
// shortest of these; such segments composed in either order are shortest paths.
//  minimal: evenly over both dimension orders (when both dimensions differ) and every
//           combination of minimal segments (at most 4 per dimension: exit edge x entry edge).
//  dor:     dimension 0 first; in each dimension the first minimal segment in the order
//           on-board, then exit west/north before east/south, then enter west/north first.
#include "topology/hammingmesh.hpp"
#include "topology/routing.hpp"

namespace topocoll::topo {

class HammingMeshRouter : public Router {
 public:
  HammingMeshRouter(const HammingMeshTopology& topology, bool minimal)
      : mesh_(topology), minimal_(minimal) {}
  void route_set(int src, int dst, RouteSet& out) const override;
  [[nodiscard]] std::string name() const override { return minimal_ ? "minimal" : "dor"; }
  // Segments depend only on the places on the boards and on whether the boards differ, which
  // moving by whole boards (the topology's translations) keeps.
  [[nodiscard]] bool commutes_with_translations() const override { return true; }

  struct Segment {
    int exit = -1;   // -1: stay on the board; else the side (0 or 1) leaving the source board
    int entry = -1;  // side entering the target board
  };

 private:
  // Minimal segments along `dim` from coordinate `from` to `to` (from != to); returns count.
  int segments(int dim, int from, int to, Segment* out) const;
  // Appends the links of `segment` from `node` to coordinate `to` along `dim`; returns the
  // node reached.
  int walk(int node, int dim, int to, const Segment& segment, RouteSet& out) const;
  int mesh_walk(int node, int dim, int from, int to, RouteSet& out) const;

  const HammingMeshTopology& mesh_;
  bool minimal_;
};

}  // namespace topocoll::topo
