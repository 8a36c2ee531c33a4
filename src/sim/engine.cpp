#include "sim/engine.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/registry.hpp"
#include "sim/analytic_network.hpp"
#include "sim/call_copies.hpp"
#include "sim/flow_network.hpp"
#include "sim/packet_network.hpp"

namespace topocoll::sim {
namespace {

void check_mapping(const Schedule& schedule, const topo::Topology& topology,
                   const topo::Mapping& mapping) {
  const int ranks = schedule.ranks();
  if (static_cast<int>(mapping.host_of.size()) != ranks)
    throw UnsupportedRequest("the mapping places " + std::to_string(mapping.host_of.size()) +
                             " ranks but the schedule has " + std::to_string(ranks));
  std::vector<bool> used(static_cast<std::size_t>(topology.host_count()), false);
  for (int r = 0; r < ranks; ++r) {
    const int h = mapping.host_of[static_cast<std::size_t>(r)];
    if (h < 0 || h >= topology.host_count())
      throw UnsupportedRequest("rank " + std::to_string(r) + " is mapped to host " +
                               std::to_string(h) + ", but " + topology.spec() + " has hosts 0.." +
                               std::to_string(topology.host_count() - 1));
    if (used[static_cast<std::size_t>(h)])
      throw UnsupportedRequest("the mapping places two ranks on host " + std::to_string(h));
    used[static_cast<std::size_t>(h)] = true;
  }
}

void check_host_costs(const topo::HostCosts& h) {
  const std::pair<const char*, double> costs[] = {
      {"send overhead", h.send_overhead_s},
      {"receive overhead", h.recv_overhead_s},
      {"gap", h.gap_s},
      {"CPU time per step", h.step_cpu_s},
      {"call overhead", h.call_overhead_s},
      {"rendezvous overhead", h.rendezvous_s},
      {"copy cost", h.copy_s_per_byte},
      {"overhead per byte", h.overhead_s_per_byte},
      {"lent copy cost", h.lent_copy_s_per_byte},
      {"lent reduction cost", h.lent_reduce_s_per_byte}};
  for (const auto& [what, value] : costs)
    if (!(value >= 0 && value < Network::kNever))
      throw UnsupportedRequest(std::string("the host's ") + what + " is " + std::to_string(value) +
                               "; accepted: a finite value >= 0");
}

}  // namespace

Engine::Engine(const Schedule& schedule, const topo::Topology& topology, const topo::Router& router,
               const topo::Mapping& mapping, const SimConfig& config,
               const std::optional<TranslationSymmetry>& imposed)
    : schedule_(schedule),
      topology_(topology),
      config_(config),
      params_(topology.params()),
      intra_costs_(topology.intra_node_host_costs()),
      host_costs_(!topology.params().host.idle() || (intra_costs_ && !intra_costs_->idle())),
      message_bytes_(schedule.info(), config),
      count_routes_(topology, router) {
  check_mapping(schedule, topology, mapping);
  check_host_costs(params_.host);
  if (intra_costs_) check_host_costs(*intra_costs_);
  if (params_.host.gap_s > 0 || (intra_costs_ && intra_costs_->gap_s > 0))
    port_free_.assign(topology.links().size(), 0);
  // The schedule's placement puts rank r on node node_of(r) of its shape; the mapping puts
  // that node on a host (ScheduleInfo::placement).
  if (const auto problem = placement_problem(schedule.info()))
    throw UnsupportedRequest("the schedule's placement is invalid: " + *problem);
  host_of_.resize(static_cast<std::size_t>(schedule.ranks()));
  for (int r = 0; r < schedule.ranks(); ++r)
    host_of_[static_cast<std::size_t>(r)] =
        mapping.host_of[static_cast<std::size_t>(schedule.info().node_of(r))];
  use_symmetry_if_any(router, imposed);
  if (config.model == Model::flow) {
    network_ =
        std::make_unique<FlowNetwork>(topology, global_link_load(topology, config.global_load));
  } else if (config.model == Model::packet) {
    network_ = std::make_unique<PacketNetwork>(topology, config.packet);
  } else {
    network_ = std::make_unique<AnalyticNetwork>(
        topology, [this](int step, std::vector<std::uint32_t>& c) { count_step_links(step, c); });
  }
  if (!config.trace_path.empty()) trace_.emplace(config.trace_path, schedule.ranks());
  ranks_.resize(static_cast<std::size_t>(schedule.ranks()));
  for (int r = 0; r < schedule.ranks(); ++r) {
    RankState& rs = ranks_[static_cast<std::size_t>(r)];
    rs.first_lane = static_cast<int>(lanes_.size());
    rs.lane_count = std::max(1, schedule.lane_count(r));
    for (int l = 0; l < rs.lane_count; ++l) {
      LaneState lane;
      lane.rank = r;
      lane.steps = schedule.lane_step_count(r, l);
      if (lane.steps > 0) ++rs.unfinished;
      lanes_.push_back(lane);
    }
  }
  charge_call_costs();
  start_lent_blocks();
  if (config.model == Model::analytic) {
    merged_steps_.resize(static_cast<std::size_t>(schedule.ranks()));
    for (int r = 0; r < schedule.ranks(); ++r)
      merged_steps_[static_cast<std::size_t>(r)] = schedule.step_count(r);
  }
}

Engine::~Engine() = default;

CallCopyBytes Engine::call_copies_of(int r, CallCopyRank& rank) const {
  const ScheduleInfo& info = schedule_.info();
  const bool chunked = info.collective != Collective::bcast &&
                       info.collective != Collective::allreduce &&
                       info.collective != Collective::reduce;
  const bool conditional = info.collective == Collective::reduce ||
                           info.collective == Collective::scatter ||
                           info.collective == Collective::alltoall;
  rank.vector_bytes = message_bytes_.range(0, static_cast<BlockIndex>(info.blocks));
  rank.root = r == info.root;
  rank.writes_user_blocks = conditional && writes_user_blocks(schedule_, r);
  rank.own_block_bytes = chunked ? message_bytes_.set(info.chunk_of(r)) : 0;
  return call_copy_bytes(info.collective, rank, config_.in_place);
}

void Engine::charge_call_costs() {
  const double per_byte = params_.host.copy_s_per_byte;
  const double per_call = params_.host.call_overhead_s;
  if (per_byte <= 0 && per_call <= 0) return;
  CallCopyRank rank;
  for (int r = 0; r < schedule_.ranks(); ++r) {
    if (!simulated(r)) continue;
    const CallCopyBytes bytes = call_copies_of(r, rank);
    RankState& rs = ranks_[static_cast<std::size_t>(r)];
    rs.start = per_call + static_cast<double>(bytes.before) * per_byte;
    rs.cpu_free = rs.start;
    rs.copy_after = static_cast<double>(bytes.after) * per_byte;
  }
}

// The input copy writes the whole vector or the rank's own chunk (call_copy_bytes).
void Engine::start_lent_blocks() {
  if (params_.host.lent_copy_s_per_byte <= 0 && params_.host.lent_reduce_s_per_byte <= 0) return;
  const ScheduleInfo& info = schedule_.info();
  CallCopyRank rank;
  for (int r = 0; r < schedule_.ranks(); ++r) {
    if (!simulated(r)) continue;
    const std::uint64_t before = call_copies_of(r, rank).before;
    BlockSet input;
    if (before > 0 && before == rank.vector_bytes)
      input = BlockSet::range(0, static_cast<BlockIndex>(info.blocks));
    else if (before > 0)
      input = info.chunk_of(r);
    ranks_[static_cast<std::size_t>(r)].lent.emplace(input);
  }
}

// Sends are read while the step runs; its receives and copies apply after (snapshot semantics),
// so a step that sends bytes and writes them pays for them.
void Engine::lend_node_sends(int rank, const Step& step) {
  LentBlocks& lent = *ranks_[static_cast<std::size_t>(rank)].lent;
  const int node = topology_.machine_node_of(host_of_[static_cast<std::size_t>(rank)]);
  for (const Operation& op : step.ops)
    if (op.kind == OpKind::send && op.peer != rank &&
        topology_.machine_node_of(host_of_[static_cast<std::size_t>(op.peer)]) == node)
      lent.lend(op.blocks);
}

double Engine::write_cost(int rank, const BlockSet& blocks, LentBlocks::Write how) {
  std::optional<LentBlocks>& lent = ranks_[static_cast<std::size_t>(rank)].lent;
  if (!lent) return 0;
  const BlockSet taken_back = lent->write(blocks, how);
  if (how == LentBlocks::Write::landing || taken_back.empty()) return 0;
  const topo::HostCosts& h = params_.host;
  const double extra = how == LentBlocks::Write::copy
                           ? h.lent_copy_s_per_byte - h.copy_s_per_byte
                           : h.lent_reduce_s_per_byte - params_.reduce_s_per_byte;
  return extra > 0 ? set_bytes(taken_back) * extra : 0;
}

double Engine::settlement_cost(int rank) const {
  const std::optional<LentBlocks>& lent = ranks_[static_cast<std::size_t>(rank)].lent;
  if (!lent) return 0;
  const LentBlocks::Settlement left = lent->settle();
  const topo::HostCosts& h = params_.host;
  const double copy = std::max(0.0, h.lent_copy_s_per_byte - h.copy_s_per_byte);
  const double reduce = std::max(0.0, h.lent_reduce_s_per_byte - params_.reduce_s_per_byte);
  return set_bytes(left.copy) * copy + set_bytes(left.reduce) * reduce;
}

// Only the flow model reduces: its max-min rates are unique, so a symmetric state stays
// symmetric (docs/simulator-engines.md, "Symmetry"). A trace names every rank's messages.
void Engine::use_symmetry_if_any(const topo::Router& router,
                                 const std::optional<TranslationSymmetry>& imposed) {
  if (imposed && config_.model == Model::flow)
    symmetry_ = imposed;
  else if (config_.model == Model::flow && config_.use_symmetry && config_.trace_path.empty())
    symmetry_ =
        TranslationSymmetry::find(schedule_, topology_, router, host_of_,
                                  message_bytes_.equal_blocks(), range_view(config_, topology_));
  if (!symmetry_) {
    routes_.emplace(topology_, router);
    return;
  }
  orbit_router_ = std::make_unique<OrbitRouter>(router, *symmetry_);
  routes_.emplace(topology_, *orbit_router_);
  rank_of_host_.assign(static_cast<std::size_t>(topology_.host_count()), -1);
  for (int r = 0; r < schedule_.ranks(); ++r)
    rank_of_host_[static_cast<std::size_t>(host_of_[static_cast<std::size_t>(r)])] = r;
}

bool Engine::simulated(int rank) const {
  return !symmetry_ || symmetry_->in_domain(host_of_[static_cast<std::size_t>(rank)]);
}

double Engine::range_bytes(BlockIndex begin, BlockIndex end) const {
  return static_cast<double>(message_bytes_.range(begin, end));
}

double Engine::set_bytes(const BlockSet& set) const {
  return static_cast<double>(message_bytes_.set(set));
}

std::uint64_t Engine::channel_key(int sender, int receiver, int port) const {
  const auto p = static_cast<std::uint64_t>(schedule_.ranks());
  return (static_cast<std::uint64_t>(port) * p + static_cast<std::uint64_t>(receiver)) * p +
         static_cast<std::uint64_t>(sender);
}

template <typename T>
std::uint32_t Engine::allocate(std::vector<T>& pool, std::vector<std::uint32_t>& free) {
  if (!free.empty()) {
    const std::uint32_t i = free.back();
    free.pop_back();
    return i;
  }
  pool.emplace_back();
  return static_cast<std::uint32_t>(pool.size() - 1);
}

// The analytic model's congestion: how many step-`step` transfers of all ranks (every lane's
// step `step`) cross each link.
void Engine::count_step_links(int step, std::vector<std::uint32_t>& counts) {
  Step s;
  for (int r = 0; r < schedule_.ranks(); ++r) {
    if (step >= merged_steps_[static_cast<std::size_t>(r)]) continue;
    s.clear();
    schedule_.build_step(r, step, s);
    for (const Operation& op : s.ops) {
      if (op.kind != OpKind::send || op.peer == r) continue;
      const int src = host_of_[static_cast<std::size_t>(r)];
      const int dst = host_of_[static_cast<std::size_t>(op.peer)];
      auto count = [&] {
        for (const PathView& p : count_routes_.paths(src, dst))
          for (int h = 0; h < p.hops; ++h) ++counts[static_cast<std::size_t>(p.links[h])];
      };
      if (!config_.message_per_range) {
        if (set_bytes(op.blocks) > 0) count();
        continue;
      }
      for (const auto& range : op.blocks.ranges())
        if (range_bytes(range.begin, range.end) > 0) count();
    }
  }
}

void Engine::add_timer(double time, int id, TimerKind kind) { timers_.push({time, id, kind}); }

void Engine::compute(int lane) {
  const LaneState& ls = lanes_[static_cast<std::size_t>(lane)];
  request_cpu({ls.rank, CpuKind::compute,
               lane - ranks_[static_cast<std::size_t>(ls.rank)].first_lane, 0, ls.compute, 0,
               static_cast<std::uint32_t>(lane)});
}

std::uint64_t Engine::sender_offset(int sender, int receiver) const {
  const int s = host_of_[static_cast<std::size_t>(sender)];
  const int r = host_of_[static_cast<std::size_t>(receiver)];
  if (!topology_.translatable()) return static_cast<std::uint64_t>(s);
  std::uint64_t offset = 0, stride = 1;
  int sc = s, rc = r;
  for (const int size : topology_.grid_dims()) {
    const int d = ((sc % size) - (rc % size) + size) % size;
    offset += static_cast<std::uint64_t>(d) * stride;
    stride *= static_cast<std::uint64_t>(size);
    sc /= size;
    rc /= size;
  }
  return offset;
}

void Engine::serve_cpu(double now) {
  if (cpu_requests_.empty()) return;
  std::stable_sort(cpu_requests_.begin(), cpu_requests_.end(),
                   [](const CpuRequest& a, const CpuRequest& b) {
                     if (a.rank != b.rank) return a.rank < b.rank;
                     if (a.kind != b.kind) return a.kind < b.kind;
                     if (a.lane != b.lane) return a.lane < b.lane;
                     return a.order < b.order;
                   });
  for (const CpuRequest& q : cpu_requests_) {
    RankState& rs = ranks_[static_cast<std::size_t>(q.rank)];
    rs.cpu_free = std::max(now, rs.cpu_free) + q.seconds;
    switch (q.kind) {
      case CpuKind::send:
        add_timer(rs.cpu_free + q.then, static_cast<int>(q.id), TimerKind::inject);
        break;
      case CpuKind::compute:
        add_timer(rs.cpu_free, static_cast<int>(q.id), TimerKind::finish);
        break;
      case CpuKind::receive: {
        SendOp& op = ops_[q.id];
        op.received = std::max(op.received, rs.cpu_free);
        if (--op.cpu_pending == 0 && op.messages_left == 0)
          add_timer(op.received, static_cast<int>(q.id), TimerKind::deliver);
        break;
      }
    }
  }
  cpu_requests_.clear();
}

int Engine::representative(int rank) const {
  if (simulated(rank)) return rank;
  return rank_of_host_[static_cast<std::size_t>(
      symmetry_->representative(host_of_[static_cast<std::size_t>(rank)]))];
}

// The request and the ready message are small control messages: they pay their paths'
// latency (the first path each way) and no overhead, bandwidth or gap.
double Engine::round_trip(int src, int dst) {
  const double there = count_routes_.paths(src, dst).front().latency_s;
  return there + count_routes_.paths(dst, src).front().latency_s;
}

void Engine::start_lane(int lane, double now) {
  if (lanes_[static_cast<std::size_t>(lane)].steps == 0) return;
  if (params_.alpha_s > 0)
    add_timer(now + params_.alpha_s, lane, TimerKind::post);
  else
    run_lane(lane, now);
}

void Engine::run_lane(int lane, double now) {
  LaneState& ls = lanes_[static_cast<std::size_t>(lane)];
  while (ls.step < ls.steps) {
    if (!post(lane, now)) return;  // waits for the network or for other lanes
    if (ls.compute > 0) {
      compute(lane);
      return;
    }
    if (!advance(lane, now)) return;
  }
}

bool Engine::advance(int lane, double now) {
  LaneState& ls = lanes_[static_cast<std::size_t>(lane)];
  ++ls.step;
  wake_waiting(ls.rank, now);
  if (ls.step == ls.steps) {
    RankState& rs = ranks_[static_cast<std::size_t>(ls.rank)];
    if (--rs.unfinished == 0) {
      rs.finish = now + rs.copy_after + settlement_cost(ls.rank);
      ++finished_ranks_;
    }
    return false;
  }
  if (params_.alpha_s > 0) {
    add_timer(now + params_.alpha_s, lane, TimerKind::post);
    return false;
  }
  return true;
}

// A lane finished a step: the rank's lanes that waited for it try again.
void Engine::wake_waiting(int rank, double now) {
  const RankState& rs = ranks_[static_cast<std::size_t>(rank)];
  for (int l = rs.first_lane; l < rs.first_lane + rs.lane_count; ++l) {
    LaneState& other = lanes_[static_cast<std::size_t>(l)];
    if (!other.waiting) continue;
    other.waiting = false;
    run_lane(l, now);
  }
}

bool Engine::dependencies_met(int lane, const Step& step) const {
  const LaneState& ls = lanes_[static_cast<std::size_t>(lane)];
  const RankState& rs = ranks_[static_cast<std::size_t>(ls.rank)];
  for (const Dependency& d : step.after) {
    if (d.lane < 0 || d.lane >= rs.lane_count || d.lane == lane - rs.first_lane)
      throw UnsupportedRequest("step " + std::to_string(ls.step) + " of rank " +
                               std::to_string(ls.rank) + " depends on lane " +
                               std::to_string(d.lane) + "; accepted: another of its lanes 0.." +
                               std::to_string(rs.lane_count - 1));
    if (lanes_[static_cast<std::size_t>(rs.first_lane + d.lane)].step <= d.step) return false;
  }
  return true;
}

bool Engine::post(int lane, double now) {
  LaneState& ls = lanes_[static_cast<std::size_t>(lane)];
  const int rank = ls.rank;
  // A send to oneself may complete another lane's step while this one is posted, and that
  // lane posts its next step: every nesting level builds into its own step.
  if (depth_ == scratch_.size()) scratch_.emplace_back();
  Step& step = scratch_[depth_];
  step.clear();
  schedule_.build_lane_step(rank, lane - ranks_[static_cast<std::size_t>(rank)].first_lane, ls.step,
                            step);
  if (!dependencies_met(lane, step)) {
    ls.waiting = true;
    return false;
  }
  ++depth_;
  ls.pending = 0;
  ls.compute = params_.host.step_cpu_s;  // the runtime's own work for the step, on the CPU
  ls.posting = true;
  if (ranks_[static_cast<std::size_t>(rank)].lent) lend_node_sends(rank, step);
  for (const Operation& op : step.ops) {
    if (op.kind != OpKind::copy && (op.peer < 0 || op.peer >= schedule_.ranks()))
      throw UnsupportedRequest("step " + std::to_string(ls.step) + " of rank " +
                               std::to_string(rank) + " names peer " + std::to_string(op.peer) +
                               "; peers are ranks 0.." + std::to_string(schedule_.ranks() - 1));
    switch (op.kind) {
      case OpKind::send: post_send(lane, op, now); break;
      case OpKind::recv:
        post_recv(lane, op);
        if (op.combine == Combine::reduce)
          ls.compute += set_bytes(op.blocks) * params_.reduce_s_per_byte +
                        write_cost(rank, op.blocks, LentBlocks::Write::reduce);
        else
          ls.compute += write_cost(rank, op.blocks, LentBlocks::Write::landing);
        break;
      case OpKind::copy:
        if (op.combine == Combine::reduce)
          ls.compute += set_bytes(op.blocks) * params_.reduce_s_per_byte +
                        write_cost(rank, op.blocks, LentBlocks::Write::reduce);
        else if (params_.host.copy_s_per_byte > 0 || ranks_[static_cast<std::size_t>(rank)].lent)
          ls.compute += set_bytes(op.blocks) * params_.host.copy_s_per_byte +
                        write_cost(rank, op.blocks, LentBlocks::Write::copy);
        break;
    }
  }
  ls.posting = false;
  --depth_;
  return ls.pending == 0;
}

void Engine::post_send(int lane, const Operation& op, double now) {
  LaneState& ls = lanes_[static_cast<std::size_t>(lane)];
  const int rank = ls.rank;
  if (op.peer == rank) {  // a send to oneself never touches the network: a local copy
    if (params_.host.copy_s_per_byte > 0)
      ls.compute += set_bytes(op.blocks) * params_.host.copy_s_per_byte;
    deliver(rank, rank, op.port, now);
    return;
  }
  const std::uint32_t id = allocate(ops_, free_ops_);
  ops_[id] = {rank, op.peer, op.port, lane, 0, 0, 0};
  ++ls.pending;
  const std::size_t ranges = op.blocks.range_count();
  if (!config_.message_per_range || ranges <= 1) {
    send_message(id, set_bytes(op.blocks), ranges > 1, ls.step, now);
    return;
  }
  for (const auto& r : op.blocks.ranges())
    send_message(id, range_bytes(r.begin, r.end), false, ls.step, now);
}

// The sender's CPU packs a multi-range message and pays o; a rendezvous message then waits for
// the receiver's ready message (LogGOPSim's protocol above S).
void Engine::send_message(std::uint32_t op, double bytes, bool packed, int step, double now) {
  const std::uint32_t m = allocate(messages_, free_messages_);
  messages_[m] = {op, 0, bytes, now, step, packed};
  ++ops_[op].messages_left;
  ++message_count_;
  if (!host_costs_) {
    inject(m, now);
    return;
  }
  const SendOp& o = ops_[op];
  const topo::HostCosts& h = message_costs(o);
  const double cpu =
      (packed ? bytes * h.copy_s_per_byte : 0) + h.send_overhead_s + bytes * h.overhead_s_per_byte;
  const double then = bytes > static_cast<double>(h.eager_threshold_bytes)
                          ? round_trip(host_of_[static_cast<std::size_t>(o.sender)],
                                       host_of_[static_cast<std::size_t>(o.receiver)])
                          : 0;
  if (cpu > 0) {
    const int lane = o.lane - ranks_[static_cast<std::size_t>(o.sender)].first_lane;
    request_cpu({o.sender, CpuKind::send, lane, 0, cpu, then, m});
  } else if (then > 0) {
    add_timer(now + then, static_cast<int>(m), TimerKind::inject);
  } else {
    inject(m, now);
  }
}

const topo::HostCosts& Engine::message_costs(const SendOp& op) const {
  if (intra_costs_ &&
      topology_.machine_node_of(host_of_[static_cast<std::size_t>(op.sender)]) ==
          topology_.machine_node_of(host_of_[static_cast<std::size_t>(op.receiver)]))
    return *intra_costs_;
  return params_.host;
}

// The message leaves its NIC ports, at least g after their previous message.
void Engine::inject(std::uint32_t m, double now) {
  const SendOp& op = ops_[messages_[m].op];
  const auto paths = routes_->paths(host_of_[static_cast<std::size_t>(op.sender)],
                                    host_of_[static_cast<std::size_t>(op.receiver)]);
  if (!port_free_.empty()) {
    const double gap = message_costs(op).gap_s;
    double at = now;
    for (const PathView& p : paths)
      if (p.hops > 0) at = std::max(at, port_free_[static_cast<std::size_t>(p.links[0])]);
    if (at > instant_end(now)) {
      add_timer(at, static_cast<int>(m), TimerKind::inject);
      return;
    }
    for (const PathView& p : paths)
      if (p.hops > 0) port_free_[static_cast<std::size_t>(p.links[0])] = now + gap;
  }
  Message& msg = messages_[m];
  msg.transfers_left = static_cast<int>(paths.size());
  msg.start = now;
  transfer_count_ += paths.size();
  for (const PathView& p : paths) network_->start(now, p, msg.bytes * p.share, msg.step, m);
}

void Engine::post_recv(int lane, const Operation& op) {
  LaneState& ls = lanes_[static_cast<std::size_t>(lane)];
  const std::uint64_t key = channel_key(op.peer, ls.rank, op.port);
  Channel& ch = channels_[key];
  ch.lane = lane;
  ++ch.posted;
  if (ch.posted > ch.delivered) ++ls.pending;  // waits for the data
  if (ch.posted == ch.delivered) channels_.erase(key);
}

void Engine::deliver(int sender, int receiver, int port, double now) {
  if (!simulated(receiver)) {  // the same delivery in the receiver's orbit copy in the domain
    const int host = host_of_[static_cast<std::size_t>(receiver)];
    sender = rank_of_host_[static_cast<std::size_t>(
        symmetry_->shift_like(host_of_[static_cast<std::size_t>(sender)], host))];
    receiver = rank_of_host_[static_cast<std::size_t>(symmetry_->representative(host))];
  }
  const std::uint64_t key = channel_key(sender, receiver, port);
  Channel& ch = channels_[key];
  ++ch.delivered;
  const bool awaited = ch.delivered <= ch.posted;
  const int lane = ch.lane;
  if (ch.posted == ch.delivered) channels_.erase(key);
  if (awaited) operation_done(lane, now);
}

void Engine::operation_done(int lane, double now) {
  LaneState& ls = lanes_[static_cast<std::size_t>(lane)];
  if (--ls.pending > 0 || ls.posting) return;
  communication_done(lane, now);
}

void Engine::communication_done(int lane, double now) {
  const LaneState& ls = lanes_[static_cast<std::size_t>(lane)];
  if (ls.compute > 0)
    compute(lane);
  else
    step_done(lane, now);
}

void Engine::step_done(int lane, double now) {
  if (advance(lane, now)) run_lane(lane, now);
}

void Engine::transfer_done(std::uint32_t tag, double now) {
  if (--messages_[tag].transfers_left > 0) return;
  message_arrived(tag, now);
}

// The receiver's CPU pays o (and a rendezvous message's handshake) and unpacks; the send
// completes now, the receive when the receiver's CPU is done with every message of the send.
void Engine::message_arrived(std::uint32_t tag, double now) {
  const Message& m = messages_[tag];
  const std::uint32_t id = m.op;
  SendOp& op = ops_[id];
  if (trace_) trace_->message(op.sender, op.receiver, m.bytes, m.start, now);
  if (host_costs_) {
    const topo::HostCosts& h = message_costs(op);
    const bool rendezvous = m.bytes > static_cast<double>(h.eager_threshold_bytes);
    const double cpu = h.recv_overhead_s + (rendezvous ? h.rendezvous_s : 0) +
                       m.bytes * h.overhead_s_per_byte +
                       (m.packed ? m.bytes * h.copy_s_per_byte : 0);
    if (cpu > 0) {
      ++op.cpu_pending;
      request_cpu({representative(op.receiver), CpuKind::receive, op.port,
                   sender_offset(op.sender, op.receiver), cpu, 0, id});
    }
  }
  free_messages_.push_back(tag);
  if (--op.messages_left > 0) return;
  const SendOp done = op;
  if (done.cpu_pending > 0 || done.received > instant_end(now)) {
    // The receive completes when the receiver's CPU is done (serve_cpu sets the timer when
    // requests are still pending).
    if (done.cpu_pending == 0) add_timer(done.received, static_cast<int>(id), TimerKind::deliver);
    operation_done(done.lane, now);
    return;
  }
  free_ops_.push_back(id);
  deliver(done.sender, done.receiver, done.port, now);
  operation_done(done.lane, now);
}

void Engine::delivered(std::uint32_t id, double now) {
  const SendOp done = ops_[id];
  free_ops_.push_back(id);
  deliver(done.sender, done.receiver, done.port, now);
}

// From the domain's orbit copies to every rank and link: each orbit is |group| copies of its
// representative.
void Engine::expand_orbits(SimResult& result, std::vector<LinkUsage>& usage) const {
  const auto copies = static_cast<std::uint64_t>(symmetry_->group_size());
  result.symmetry_group = symmetry_->group_size();
  result.messages *= copies;
  result.transfers *= copies;
  for (int r = 0; r < schedule_.ranks(); ++r) {
    const int host = symmetry_->representative(host_of_[static_cast<std::size_t>(r)]);
    result.rank_finish_s[static_cast<std::size_t>(r)] =
        ranks_[static_cast<std::size_t>(rank_of_host_[static_cast<std::size_t>(host)])].finish;
  }
  std::vector<LinkUsage> all(usage.size());
  for (std::size_t l = 0; l < usage.size(); ++l) {
    all[l] = usage[static_cast<std::size_t>(symmetry_->link_representative(static_cast<int>(l)))];
    all[l].link = static_cast<int>(l);
  }
  usage = std::move(all);
}

SimResult Engine::run() {
  const int ranks = schedule_.ranks();
  int simulated_ranks = 0;
  for (int r = 0; r < ranks; ++r) {
    if (!simulated(r)) continue;
    ++simulated_ranks;
    RankState& rs = ranks_[static_cast<std::size_t>(r)];
    if (rs.unfinished == 0) {
      rs.finish = rs.start + rs.copy_after;
      ++finished_ranks_;
      continue;
    }
    for (int l = rs.first_lane; l < rs.first_lane + rs.lane_count; ++l) {
      if (rs.start == 0)
        start_lane(l, 0);
      else if (lanes_[static_cast<std::size_t>(l)].steps > 0)
        add_timer(rs.start + params_.alpha_s, l, TimerKind::post);
    }
  }
  serve_cpu(0);
  double now = 0;
  for (;;) {
    const double t_timer = timers_.empty() ? Network::kNever : timers_.top().time;
    now = std::min(t_timer, network_->next_time());
    if (now == Network::kNever) break;
    const double end = instant_end(now);
    completed_.clear();
    if (network_->next_time() <= end) network_->advance(now, completed_);
    for (std::uint32_t tag : completed_) transfer_done(tag, now);
    while (!timers_.empty() && timers_.top().time <= end) {
      const Timer t = timers_.pop();
      switch (t.kind) {
        case TimerKind::post: run_lane(t.id, now); break;
        case TimerKind::finish: step_done(t.id, now); break;
        case TimerKind::inject: inject(static_cast<std::uint32_t>(t.id), now); break;
        case TimerKind::deliver: delivered(static_cast<std::uint32_t>(t.id), now); break;
      }
    }
    serve_cpu(now);
  }
  if (finished_ranks_ != simulated_ranks) {
    for (const LaneState& ls : lanes_) {
      if (!simulated(ls.rank) || ls.step == ls.steps) continue;
      const int lane = static_cast<int>(&ls - lanes_.data()) -
                       ranks_[static_cast<std::size_t>(ls.rank)].first_lane;
      throw std::runtime_error("the schedule deadlocks: rank " + std::to_string(ls.rank) +
                               " waits forever in step " + std::to_string(ls.step) + " of lane " +
                               std::to_string(lane) +
                               (ls.waiting ? " (for steps of its other lanes)"
                                           : " (a receive without a matching send)"));
    }
  }
  SimResult result;
  result.messages = message_count_;
  result.transfers = transfer_count_;
  result.rank_finish_s.resize(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    const double f = ranks_[static_cast<std::size_t>(r)].finish;
    result.rank_finish_s[static_cast<std::size_t>(r)] = f;
    result.time_s = std::max(result.time_s, f);
  }
  if (result.time_s > 0)
    result.goodput_gbps = static_cast<double>(config_.vector_bytes) * 8 / result.time_s / 1e9;
  std::vector<LinkUsage> usage;
  network_->link_usage(result.time_s, usage);
  if (symmetry_) expand_orbits(result, usage);
  double sum = 0;
  int used = 0;
  for (const LinkUsage& u : usage) {
    if (u.bytes <= 0) continue;
    const double util = result.time_s > 0 ? u.busy_s / result.time_s : 0;
    result.max_link_utilization = std::max(result.max_link_utilization, util);
    sum += util;
    ++used;
  }
  if (used > 0) result.mean_link_utilization = sum / used;
  if (config_.record_links) result.links = std::move(usage);
  if (trace_) trace_->close();
  return result;
}

}  // namespace topocoll::sim
