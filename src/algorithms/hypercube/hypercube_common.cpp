#include "algorithms/hypercube/hypercube_common.hpp"

#include <algorithm>
#include <stdexcept>

#include "algorithms/common/relabel.hpp"

namespace topocoll::algorithms::hypercube {

int cube_dimension(const ScheduleRequest& request, const std::string& algorithm) {
  const bool ring_form = request.dims.empty() || request.dims.size() == 1;
  const bool cube_form =
      std::all_of(request.dims.begin(), request.dims.end(), [](int size) { return size == 2; });
  // SideRule::binary_cube in the registry refuses every other shape before building.
  if (!ring_form && !cube_form)
    throw std::logic_error(algorithm + " built on a shape that is not a binary cube");
  return std::countr_zero(static_cast<unsigned>(request.ranks));
}

unsigned rotated_dims(int first, int count, int d) {
  unsigned mask = 0;
  for (int k = 0; k < count; ++k) mask |= 1u << ((first + k) % d);
  return mask;
}

BlockSet slice(int blocks, int parts, int part) {
  const auto lo = static_cast<BlockIndex>(static_cast<long long>(blocks) * part / parts);
  const auto hi = static_cast<BlockIndex>(static_cast<long long>(blocks) * (part + 1) / parts);
  return lo < hi ? BlockSet::range(lo, hi) : BlockSet{};
}

ScheduleInfo family_info(const ScheduleRequest& request, const std::string& name,
                         Collective collective, int blocks, int ports) {
  ScheduleInfo info;
  info.collective = collective;
  info.algorithm = name;
  info.ranks = request.ranks;
  info.blocks = blocks;
  info.ports = ports;
  info.root = request.root;
  info.dims = request.dims;
  return info;
}

Reversed::Reversed(ScheduleInfo info, SchedulePtr inner, Combine combine)
    : Schedule(std::move(info)), inner_(std::move(inner)), combine_(combine) {}

void Reversed::build_step(int rank, int step, Step& out) const {
  inner_->build_step(rank, inner_->step_count(rank) - 1 - step, out);
  reverse(out);
}

void Reversed::build_lane_step(int rank, int lane, int step, Step& out) const {
  inner_->build_lane_step(rank, lane, inner_->lane_step_count(rank, lane) - 1 - step, out);
  if (!out.after.empty())
    throw std::logic_error("Reversed: lanes that depend on each other cannot be reversed");
  reverse(out);
}

void Reversed::reverse(Step& out) const {
  for (Operation& op : out.ops) {
    if (op.kind == OpKind::copy)
      throw std::logic_error("Reversed: local copies cannot be reversed");
    op = op.kind == OpKind::send ? Operation::recv(op.peer, std::move(op.blocks), combine_, op.port)
                                 : Operation::send(op.peer, std::move(op.blocks), op.port);
  }
}

namespace {

ScheduleInfo one_port(const ScheduleInfo& inner) {
  ScheduleInfo info = inner;
  info.ports = 1;
  return info;
}

}  // namespace

DimensionSerial::DimensionSerial(SchedulePtr inner, int d)
    : Schedule(one_port(inner->info())), inner_(std::move(inner)), d_(d) {}

void DimensionSerial::build_step(int rank, int step, Step& out) const {
  Step inner;
  inner_->build_step(rank, step / d_, inner);
  const int dim = step % d_;
  for (Operation& op : inner.ops) {
    if (op.port != dim) continue;
    op.port = 0;
    out.ops.push_back(std::move(op));
  }
}

GrayLabels::GrayLabels(SchedulePtr inner, bool remap_chunks)
    : Schedule(inner->info()), inner_(std::move(inner)), remap_chunks_(remap_chunks) {
  // Rank r runs on cube node G(r): the schedule model carries the placement (schedule.hpp).
  std::vector<int>& placement = mutable_info().placement;
  placement.resize(static_cast<std::size_t>(ranks()));
  for (int r = 0; r < ranks(); ++r) placement[r] = static_cast<int>(gray(static_cast<unsigned>(r)));
}

int GrayLabels::step_count(int rank) const {
  return inner_->step_count(static_cast<int>(gray(static_cast<unsigned>(rank))));
}

BlockSet GrayLabels::relabel(const BlockSet& blocks) const {
  if (!remap_chunks_) return blocks;
  return move_chunks(blocks, static_cast<BlockIndex>(info().blocks_per_chunk()),
                     [](BlockIndex chunk) { return gray_inverse(static_cast<unsigned>(chunk)); });
}

int GrayLabels::lane_count(int rank) const {
  return inner_->lane_count(static_cast<int>(gray(static_cast<unsigned>(rank))));
}

int GrayLabels::lane_step_count(int rank, int lane) const {
  return inner_->lane_step_count(static_cast<int>(gray(static_cast<unsigned>(rank))), lane);
}

void GrayLabels::build_lane_step(int rank, int lane, int step, Step& out) const {
  inner_->build_lane_step(static_cast<int>(gray(static_cast<unsigned>(rank))), lane, step, out);
  relabel_peers(out);
}

void GrayLabels::build_step(int rank, int step, Step& out) const {
  inner_->build_step(static_cast<int>(gray(static_cast<unsigned>(rank))), step, out);
  relabel_peers(out);
}

void GrayLabels::relabel_peers(Step& out) const {
  for (Operation& op : out.ops) {
    if (op.kind == OpKind::copy) throw std::logic_error("GrayLabels: local copies not supported");
    op.peer = static_cast<int>(gray_inverse(static_cast<unsigned>(op.peer)));
    op.blocks = relabel(op.blocks);
  }
}

SchedulePtr finish(SchedulePtr node_schedule, int d, int ports, Labels labels, bool remap_chunks) {
  SchedulePtr out = std::move(node_schedule);
  if (ports < out->info().ports) out = std::make_unique<DimensionSerial>(std::move(out), d);
  if (labels == Labels::gray) out = std::make_unique<GrayLabels>(std::move(out), remap_chunks);
  return out;
}

}  // namespace topocoll::algorithms::hypercube
