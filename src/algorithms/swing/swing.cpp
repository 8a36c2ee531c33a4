// Swing allreduce (swing-nsdi24.txt sections 3-4, Appendix A): a butterfly whose peer at step s
// is pi(r, s) = r +- rho(s), so each step reaches the nodes recursive doubling reaches with
// shorter hops. swing-bw is reduce-scatter + allgather on P blocks (section 3.1.1), swing-lat
// exchanges the whole vector at every step (section 3.1.2). On a D-dimensional torus the steps
// cycle through the dimensions; the multi-port form runs D plain and D mirrored collectives,
// each on 1/(2D) of the vector and on its own port (section 4.1).
//
// Ports: 1 (one plain collective starting on dimension 0) or 2D (the default, also on a ring,
// where it is one plain and one mirrored collective, as the paper runs with all 2D ports).
#include <map>
#include <memory>
#include <vector>

#include "algorithms/common/compose.hpp"
#include "algorithms/common/side_fold.hpp"
#include "algorithms/families.hpp"
#include "algorithms/swing/swing_lanes.hpp"

namespace topocoll::algorithms {
namespace {

using swing::BandwidthLine;
using swing::Butterfly;
using swing::LatencyLine;
using swing::Line;
using swing::TorusLane;

enum class Variant { latency, bandwidth };

// Slices of swing-bw-fold, each leaving out a different line (side_fold.hpp).
constexpr int kFoldParts = 8;

bool all_powers_of_two(const std::vector<int>& dims) {
  for (int size : dims)
    if (size & (size - 1)) return false;
  return true;
}

ScheduleInfo lane_info(const ScheduleRequest& request, Collective collective, Variant variant) {
  ScheduleInfo info;
  info.collective = collective;
  info.algorithm = variant == Variant::latency ? "swing-lat" : "swing-bw";
  info.ranks = request.ranks;
  info.blocks = variant == Variant::latency ? 1 : request.ranks;
  info.ports = 1;
  info.dims = request.dims;
  return info;
}

// Butterfly tables by size, shared by every line of one schedule: a table costs time and
// memory linear in its size, and a multi-port allreduce has four lines per dimension.
using Butterflies = std::map<int, std::shared_ptr<const Butterfly>>;

// One line per dimension.
std::vector<std::shared_ptr<const Line>> lines_for(const ScheduleRequest& request, Variant variant,
                                                   bool mirrored, bool standalone,
                                                   Butterflies& butterflies) {
  std::vector<std::shared_ptr<const Line>> lines;
  for (int size : request.dims) {
    if (variant == Variant::latency) {
      lines.push_back(std::make_shared<LatencyLine>(size, mirrored));
      continue;
    }
    const int m = size % 2 == 0 ? size : size - 1;
    std::shared_ptr<const Butterfly>& butterfly = butterflies[m];
    if (!butterfly && m >= 2) butterfly = std::make_shared<Butterfly>(m);
    lines.push_back(std::make_shared<BandwidthLine>(size, mirrored, standalone, butterfly));
  }
  return lines;
}

SchedulePtr reduce_scatter_lane(const ScheduleRequest& request, int start, bool mirrored,
                                bool standalone, Butterflies& butterflies) {
  return std::make_unique<TorusLane>(
      lane_info(request, Collective::reduce_scatter, Variant::bandwidth),
      lines_for(request, Variant::bandwidth, mirrored, standalone, butterflies), start,
      TorusLane::Blocks::per_rank);
}

SchedulePtr allgather_lane(const ScheduleRequest& request, int start, bool mirrored,
                           bool standalone, Butterflies& butterflies) {
  return std::make_unique<swing::Reversed>(
      lane_info(request, Collective::allgather, Variant::bandwidth),
      reduce_scatter_lane(request, start, mirrored, standalone, butterflies));
}

SchedulePtr bandwidth_lane(const ScheduleRequest& request, int start, bool mirrored,
                           Butterflies& butterflies) {
  switch (request.collective) {
    case Collective::reduce_scatter:
      return reduce_scatter_lane(request, start, mirrored, true, butterflies);
    case Collective::allgather: return allgather_lane(request, start, mirrored, true, butterflies);
    default: break;
  }
  std::vector<SchedulePtr> phases;
  if (all_powers_of_two(request.dims)) {
    const ScheduleInfo rs = lane_info(request, Collective::reduce_scatter, Variant::bandwidth);
    phases.push_back(std::make_unique<swing::LabelLane>(rs, start, mirrored));
    phases.push_back(std::make_unique<swing::Reversed>(
        lane_info(request, Collective::allgather, Variant::bandwidth),
        std::make_unique<swing::LabelLane>(rs, start, mirrored)));
  } else {
    phases.push_back(reduce_scatter_lane(request, start, mirrored, false, butterflies));
    phases.push_back(allgather_lane(request, start, mirrored, false, butterflies));
  }
  return std::make_unique<PhaseSequence>(
      lane_info(request, Collective::allreduce, Variant::bandwidth), std::move(phases));
}

SchedulePtr latency_lane(const ScheduleRequest& request, int start, bool mirrored) {
  Butterflies none;  // the latency lines need no tables
  return std::make_unique<TorusLane>(lane_info(request, Collective::allreduce, Variant::latency),
                                     lines_for(request, Variant::latency, mirrored, false, none),
                                     start, TorusLane::Blocks::whole_vector);
}

// Lane j < D is the plain collective starting on dimension j, lane D + j its mirror.
SchedulePtr build(ScheduleRequest request, Variant variant) {
  if (request.dims.empty()) request.dims = {request.ranks};
  const int d = static_cast<int>(request.dims.size());
  const int lanes = request.ports == 1 ? 1 : 2 * d;
  std::vector<SchedulePtr> parts;
  Butterflies butterflies;
  for (int j = 0; j < lanes; ++j) {
    const bool mirrored = j >= d;
    parts.push_back(variant == Variant::latency
                        ? latency_lane(request, j % d, mirrored)
                        : bandwidth_lane(request, j % d, mirrored, butterflies));
  }
  if (lanes == 1) return std::move(parts.front());
  const ScheduleInfo lane = parts.front()->info();
  // Allreduce gives each lane a contiguous slice; the chunked collectives split every rank's
  // chunk among the lanes (MPI's layout, S = lanes).
  const int chunk = request.collective == Collective::allreduce ? lane.blocks : 1;
  return std::make_unique<LaneSet>(lanes_info(lane, lanes), std::move(parts),
                                   LaneLayout{lanes, chunk});
}

Requirements swing_requirements() {
  Requirements r;
  r.dims = DimsRule::any_torus;
  r.ports.one = true;
  r.ports.two_per_dimension = true;
  r.ports.default_ports = PortsRule::Default::two_per_dimension;
  // Partial results combine ranks around the ring (e.g. {P-1, 0, 1, 2} after two steps), which
  // no operand order turns into x0 * x1 * ... * x(P-1).
  r.commutative_op = true;
  return r;
}

}  // namespace

void register_swing(Registry& registry) {
  struct Entry {
    Description text;
    std::vector<Collective> collectives;
    Variant shape;
  };
  const Entry entries[] = {
      {{"swing-lat", "latency-optimal", "swing-nsdi24.txt sections 3.1.2, 4, Appendix A",
        "Swing butterfly exchanging the whole vector, log2 P steps; tori, ports 1 or 2D; sizes "
        "other than powers of two fold extra nodes in and out"},
       {Collective::allreduce},
       Variant::latency},
      {{"swing-bw", "bandwidth-optimal", "swing-nsdi24.txt sections 3.1.1, 3.2, 4, Appendix A",
        "Swing reduce-scatter + allgather, 2 log2 P steps, each block sent once (any P); tori, "
        "ports 1 or 2D (D plain + D mirrored collectives)"},
       {Collective::allreduce, Collective::reduce_scatter, Collective::allgather},
       Variant::bandwidth},
  };
  for (const Entry& e : entries) {
    AlgorithmInfo info = described("swing", e.text);
    info.collectives = e.collectives;
    info.requirements = swing_requirements();
    info.build = [shape = e.shape](const ScheduleRequest& r) { return build(r, shape); };
    registry.add(std::move(info));
  }
  AlgorithmInfo fold = described(
      "swing", {"swing-bw-fold", "bandwidth-optimal, odd sides folded",
                "swing-nsdi24.txt sections 3.1.1, 4; odd sides: not the paper's (section 3.2 is "
                "swing-bw's)",
                "swing-bw on the torus with every odd side cut by one; the left-out line's "
                "ranks fold half the vector into each neighbour, rotated over 8 slices"});
  fold.collectives = {Collective::allreduce};
  fold.requirements = swing_requirements();
  fold.requirements.sides = SideRule::some_odd;
  // A guest hands its halves to two hosts at once, so the single-port form does not exist.
  fold.requirements.ports.one = false;
  fold.build = [](const ScheduleRequest& r) {
    return spread_side_fold(
        r, "swing-bw-fold", kFoldParts, cut_to_even,
        [](const ScheduleRequest& inner) { return build(inner, Variant::bandwidth); });
  };
  registry.add(std::move(fold));
}

}  // namespace topocoll::algorithms
