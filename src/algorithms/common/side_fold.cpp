#include "algorithms/common/side_fold.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "algorithms/common/compose.hpp"
#include "core/rank_math.hpp"

namespace topocoll::algorithms {
namespace {

bool folds(int side) { return side % 2 == 1 && side >= 3; }

// Mixed-radix coordinates, dimension 0 varying fastest (the torus algorithms' rank order).
std::vector<int> coordinates(int rank, const std::vector<int>& dims) {
  std::vector<int> c(dims.size());
  for (std::size_t i = 0; i < dims.size(); ++i) {
    c[i] = rank % dims[i];
    rank /= dims[i];
  }
  return c;
}

int rank_of(const std::vector<int>& c, const std::vector<int>& dims) {
  int rank = 0;
  for (std::size_t i = dims.size(); i-- > 0;) rank = rank * dims[i] + c[i];
  return rank;
}

}  // namespace

SideFold::SideFold(ScheduleInfo info, SchedulePtr inner, std::vector<int> excluded)
    : Schedule(std::move(info)), inner_(std::move(inner)), excluded_(std::move(excluded)) {
  const std::vector<int>& dims = this->info().dims;
  if (this->info().collective != Collective::allreduce || excluded_.size() != dims.size() ||
      this->info().blocks < 2)
    throw std::logic_error("SideFold: an allreduce of >= 2 blocks, one exclusion entry per side");
  std::vector<int> inner_dims = dims;
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (excluded_[i] >= 0) inner_dims[i] -= 1;
  if (inner_->info().dims != inner_dims)
    throw std::logic_error("SideFold: the inner schedule's shape is not the cut torus");
  inner_rank_.assign(static_cast<std::size_t>(ranks()), -1);
  outer_rank_.assign(static_cast<std::size_t>(inner_->ranks()), -1);
  for (int r = 0; r < ranks(); ++r) {
    std::vector<int> c = coordinates(r, dims);
    bool guest = false;
    for (std::size_t i = 0; i < dims.size(); ++i) {
      if (excluded_[i] < 0) continue;
      guest = guest || c[i] == excluded_[i];
      if (c[i] > excluded_[i]) c[i] -= 1;
    }
    if (guest) continue;
    const int inner_rank = rank_of(c, inner_dims);
    inner_rank_[static_cast<std::size_t>(r)] = inner_rank;
    outer_rank_[static_cast<std::size_t>(inner_rank)] = r;
  }
  guests_.resize(static_cast<std::size_t>(ranks()));
  for (int r = 0; r < ranks(); ++r) {
    if (inner_of(r) >= 0) continue;
    const std::vector<int> hosts = hosts_of(r);
    for (std::size_t h = 0; h < hosts.size(); ++h)
      guests_[static_cast<std::size_t>(hosts[h])].push_back({r, half(h == 1)});
  }
}

BlockSet SideFold::half(bool upper) const {
  const auto middle = static_cast<BlockIndex>(info().blocks / 2);
  return upper ? BlockSet::range(middle, static_cast<BlockIndex>(info().blocks))
               : BlockSet::range(0, middle);
}

std::vector<int> SideFold::hosts_of(int rank) const {
  const std::vector<int>& dims = info().dims;
  const std::vector<int> c = coordinates(rank, dims);
  std::vector<int> hosts;
  for (int direction : {-1, 1}) {
    std::vector<int> h = c;
    for (std::size_t i = 0; i < dims.size(); ++i)
      if (excluded_[i] >= 0 && c[i] == excluded_[i]) h[i] = mod(c[i] + direction, dims[i]);
    hosts.push_back(rank_of(h, dims));
  }
  return hosts;
}

bool SideFold::is_host(int rank) const { return !guests_[static_cast<std::size_t>(rank)].empty(); }

std::vector<SideFold::Guest> SideFold::guests_of(int host) const {
  return guests_[static_cast<std::size_t>(host)];
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

void SideFold::build_inner_step(int rank, int lane, int step, Step& out) const {
  inner_->build_lane_step(inner_of(rank), lane, step, out);
  for (Operation& op : out.ops)
    if (op.kind != OpKind::copy) op.peer = outer_rank_[static_cast<std::size_t>(op.peer)];
}

void SideFold::build_fold_in(int rank, Step& out) const {
  for (const Guest& g : guests_[static_cast<std::size_t>(rank)])
    out.ops.push_back(Operation::recv(g.rank, g.half, Combine::reduce));
}

void SideFold::build_fold_out(int rank, Step& out) const {
  for (const Guest& g : guests_[static_cast<std::size_t>(rank)])
    out.ops.push_back(Operation::send(g.rank, g.half));
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
    for (int m = 1; m < lanes; ++m) out.after.push_back({m, lane_step_count(rank, m) - 1});
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
                             const InnerBuilder& build) {
  const std::vector<int> dims = request.dims.empty() ? std::vector<int>{request.ranks} : request.dims;
  if (request.collective != Collective::allreduce)
    throw UnsupportedRequest("the side fold serves allreduce only");
  if (std::none_of(dims.begin(), dims.end(), folds))
    throw UnsupportedRequest("the side fold needs a side that is odd and >= 3");
  ScheduleRequest inner_request = request;
  inner_request.dims = dims;
  inner_request.ranks = 1;
  for (int& side : inner_request.dims) {
    if (folds(side)) side -= 1;
    inner_request.ranks *= side;
  }
  std::vector<SchedulePtr> folded;
  for (int j = 0; j < parts; ++j) {
    SchedulePtr inner = build(inner_request);
    ScheduleInfo info = inner->info();
    info.algorithm = name;
    info.ranks = request.ranks;
    info.dims = dims;
    std::vector<int> excluded(dims.size(), -1);
    for (std::size_t i = 0; i < dims.size(); ++i)
      if (folds(dims[i])) excluded[i] = j * dims[i] / parts;
    folded.push_back(std::make_unique<SideFold>(std::move(info), std::move(inner), excluded));
  }
  if (parts == 1) return std::move(folded.front());
  ScheduleInfo info = lanes_info(folded.front()->info(), parts);
  const LaneLayout layout{parts, folded.front()->info().blocks};
  return std::make_unique<LaneSet>(std::move(info), std::move(folded), layout);
}

}  // namespace topocoll::algorithms
