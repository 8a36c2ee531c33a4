#include "algorithms/common/side_fold.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "algorithms/common/compose.hpp"
#include "algorithms/common/torus_coordinates.hpp"
#include "core/rank_math.hpp"

namespace topocoll::algorithms {

int cut_to_even(int side) { return side % 2 == 1 && side >= 3 ? 1 : 0; }

int cut_to_power_of_three(int side) {
  return just_above_power_of_three(side) ? side - static_cast<int>(floor_power(side, 3)) : 0;
}

SideFold::SideFold(ScheduleInfo info, std::shared_ptr<const Schedule> inner, std::vector<int> first,
                   std::vector<int> cut)
    : Schedule(std::move(info)),
      inner_(std::move(inner)),
      first_(std::move(first)),
      cut_(std::move(cut)) {
  const std::vector<int>& dims = this->info().dims;
  if (this->info().collective != Collective::allreduce || first_.size() != dims.size() ||
      cut_.size() != dims.size() || this->info().blocks < 2)
    throw std::logic_error("SideFold: an allreduce of >= 2 blocks, one cut per side");
  std::vector<int> inner_dims = dims;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (cut_[i] == 0) continue;
    if (first_[i] < 1 || first_[i] + cut_[i] > dims[i] || cut_[i] >= dims[i] - 1)
      throw std::logic_error("SideFold: a gap must leave ranks on both of its sides");
    inner_dims[i] -= cut_[i];
  }
  if (inner_->info().dims != inner_dims)
    throw std::logic_error("SideFold: the inner schedule's shape is not the cut torus");
  inner_rank_.assign(static_cast<std::size_t>(ranks()), -1);
  outer_rank_.assign(static_cast<std::size_t>(inner_->ranks()), -1);
  std::vector<int> c;
  for (int r = 0; r < ranks(); ++r) {
    torus_coordinates(r, dims, c);
    bool guest = false;
    for (std::size_t i = 0; i < dims.size(); ++i) {
      if (cut_[i] == 0 || c[i] < first_[i]) continue;
      if (c[i] < first_[i] + cut_[i]) guest = true;
      c[i] -= cut_[i];
    }
    if (guest) continue;
    const int inner_rank = torus_rank(c, inner_dims);
    inner_rank_[static_cast<std::size_t>(r)] = inner_rank;
    outer_rank_[static_cast<std::size_t>(inner_rank)] = r;
  }
  for (int r = 0; r < ranks(); ++r) {
    if (inner_of(r) >= 0) continue;
    const std::vector<int> hosts = hosts_of(r);
    for (std::size_t h = 0; h < hosts.size(); ++h) guests_[hosts[h]].push_back({r, h == 1});
  }
  // A guest sends to two hosts at once; a host takes every guest of its gap at once.
  int ports = std::max(2, this->info().ports);
  for (const auto& [host, guests] : guests_)
    ports = std::max(ports, static_cast<int>(guests.size()));
  mutable_info().ports = ports;
}

BlockSet SideFold::half(bool upper) const {
  const auto middle = static_cast<BlockIndex>(info().blocks / 2);
  return upper ? BlockSet::range(middle, static_cast<BlockIndex>(info().blocks))
               : BlockSet::range(0, middle);
}

std::vector<int> SideFold::hosts_of(int rank) const {
  const std::vector<int>& dims = info().dims;
  const std::vector<int> c = torus_coordinates(rank, dims);
  std::vector<int> hosts;
  for (bool up : {false, true}) {
    std::vector<int> h = c;
    for (std::size_t i = 0; i < dims.size(); ++i)
      if (cut_[i] > 0 && c[i] >= first_[i] && c[i] < first_[i] + cut_[i])
        h[i] = up ? mod(first_[i] + cut_[i], dims[i]) : first_[i] - 1;
    hosts.push_back(torus_rank(h, dims));
  }
  return hosts;
}

bool SideFold::is_host(int rank) const { return guests_.contains(rank); }

const std::vector<SideFold::Guest>& SideFold::guests_of(int host) const {
  static const std::vector<Guest> kNone;
  const auto it = guests_.find(host);
  return it == guests_.end() ? kNone : it->second;
}

int SideFold::lane_count(int rank) const {
  const int inner = inner_of(rank);
  return inner < 0 ? 1 : inner_->lane_count(inner);
}

int SideFold::lane_step_count(int rank, int lane) const {
  const int inner = inner_of(rank);
  if (inner < 0) return 2;
  return inner_->lane_step_count(inner, lane) + (is_host(rank) && lane == 0 ? 2 : 0);
}

std::uint64_t SideFold::lane_steps_total(int rank) const {
  const int inner = inner_of(rank);
  if (inner < 0) return 2;
  return inner_->lane_steps_total(inner) + (is_host(rank) ? 2 : 0);
}

void SideFold::build_inner_step(int rank, int lane, int step, Step& out) const {
  inner_->build_lane_step(inner_of(rank), lane, step, out);
  for (Operation& op : out.ops)
    if (op.kind != OpKind::copy) op.peer = outer_rank_[static_cast<std::size_t>(op.peer)];
}

void SideFold::build_fold_in(int rank, Step& out) const {
  for (const Guest& g : guests_of(rank))
    out.ops.push_back(Operation::recv(g.rank, half(g.upper), Combine::reduce));
}

void SideFold::build_fold_out(int rank, Step& out) const {
  for (const Guest& g : guests_of(rank)) out.ops.push_back(Operation::send(g.rank, half(g.upper)));
}

void SideFold::build_guest_step(int rank, int step, Step& out) const {
  const std::vector<int> hosts = hosts_of(rank);
  for (std::size_t h = 0; h < hosts.size(); ++h) {
    out.ops.push_back(step == 0 ? Operation::send(hosts[h], half(h == 1))
                                : Operation::recv(hosts[h], half(h == 1), Combine::copy));
  }
}

void SideFold::build_lane_step(int rank, int lane, int step, Step& out) const {
  const int inner = inner_of(rank);
  if (inner < 0) return build_guest_step(rank, step, out);
  if (!is_host(rank)) return build_inner_step(rank, lane, step, out);
  // A host's lane 0 gains the fold-in first and the fold-out last; every lane's inner steps
  // wait for the fold-in, and the fold-out waits for every lane's last step.
  const int lanes = inner_->lane_count(inner);
  const int last = lane_step_count(rank, 0) - 1;
  if (lane == 0 && step == 0) return build_fold_in(rank, out);
  if (lane == 0 && step == last) {
    build_fold_out(rank, out);
    for (int m = 1; m < lanes; ++m)
      if (const int steps = lane_step_count(rank, m); steps > 0)
        out.after.push_back({m, steps - 1});
    return;
  }
  const int inner_step = lane == 0 ? step - 1 : step;
  build_inner_step(rank, lane, inner_step, out);
  for (Dependency& d : out.after)
    if (d.lane == 0) d.step += 1;
  if (lane != 0 && step == 0) out.after.push_back({0, 0});
}

int SideFold::step_count(int rank) const {
  const int inner = inner_of(rank);
  if (inner < 0) return 2;
  return inner_->step_count(inner) + (is_host(rank) ? 2 : 0);
}

void SideFold::build_step(int rank, int step, Step& out) const {
  const int inner = inner_of(rank);
  if (inner < 0) return build_guest_step(rank, step, out);
  const bool host = is_host(rank);
  if (host && step == 0) return build_fold_in(rank, out);
  if (host && step == step_count(rank) - 1) return build_fold_out(rank, out);
  inner_->build_step(inner, host ? step - 1 : step, out);
  for (Operation& op : out.ops)
    if (op.kind != OpKind::copy) op.peer = outer_rank_[static_cast<std::size_t>(op.peer)];
}

SchedulePtr spread_side_fold(const ScheduleRequest& request, const std::string& name, int parts,
                             const SideCut& cut, const InnerBuilder& build) {
  const std::vector<int> dims =
      request.dims.empty() ? std::vector<int>{request.ranks} : request.dims;
  if (request.collective != Collective::allreduce)
    throw UnsupportedRequest("the side fold serves allreduce only");
  std::vector<int> cuts(dims.size());
  std::transform(dims.begin(), dims.end(), cuts.begin(), cut);
  if (std::all_of(cuts.begin(), cuts.end(), [](int c) { return c == 0; }))
    throw UnsupportedRequest("the side fold needs a side to cut");
  ScheduleRequest inner_request = request;
  inner_request.dims = dims;
  inner_request.ranks = 1;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    inner_request.dims[i] -= cuts[i];
    inner_request.ranks *= inner_request.dims[i];
  }
  // Every part folds the same cut torus, at other gaps: one inner schedule serves them all.
  const std::shared_ptr<const Schedule> inner = build(inner_request);
  std::vector<SchedulePtr> folded;
  for (int j = 0; j < parts; ++j) {
    ScheduleInfo info = inner->info();
    info.algorithm = name;
    info.ranks = request.ranks;
    info.dims = dims;
    // Gaps start at 1 .. s - cut, spread evenly over the parts.
    std::vector<int> first(dims.size(), 0);
    for (std::size_t i = 0; i < dims.size(); ++i)
      if (cuts[i] > 0) first[i] = 1 + j * (dims[i] - cuts[i]) / parts;
    folded.push_back(std::make_unique<SideFold>(std::move(info), inner, std::move(first), cuts));
  }
  if (parts == 1) return std::move(folded.front());
  ScheduleInfo info = lanes_info(folded.front()->info(), parts);
  const LaneLayout layout{parts, folded.front()->info().blocks};
  return std::make_unique<LaneSet>(std::move(info), std::move(folded), layout);
}

}  // namespace topocoll::algorithms
