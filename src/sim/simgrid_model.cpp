// The simgrid model: see simgrid_model.hpp for what it models and why each call forks.
#ifdef TOPOCOLL_HAVE_SIMGRID
#include "sim/simgrid_model.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <map>
#include <simgrid/s4u.hpp>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/partition.hpp"
#include "core/registry.hpp"
#include "sim/message_bytes.hpp"

namespace topocoll::sim {
namespace {

namespace s4u = simgrid::s4u;

// What the simulation needs beyond the schedule, found by one pass over every rank's steps
// before SimGrid starts: the channels (for their mailboxes) and the route of every host pair.
struct Route {
  std::vector<int> links;
  double latency_s = 0;  // sum of the links' latencies, added in path order as the flow model does
};

struct Plan {
  std::vector<int> host_of;                         // per rank
  std::vector<std::uint64_t> channels;              // (sender, receiver, port) keys
  std::unordered_map<std::uint64_t, Route> routes;  // route_key(source, destination host)
  // The receiving lane of each channel, for ranks of several lanes (lane 0 otherwise).
  std::unordered_map<std::uint64_t, int> receiving_lane;
  std::uint64_t messages = 0;
  int max_ranges = 1;              // messages of the largest send
  bool message_per_range = false;  // SimConfig::message_per_range
  std::uint64_t hosts = 0;
  [[nodiscard]] std::uint64_t route_key(int src, int dst) const {
    return static_cast<std::uint64_t>(src) * hosts + static_cast<std::uint64_t>(dst);
  }
};

std::uint64_t channel_key(int sender, int receiver, int port, int ranks) {
  const auto p = static_cast<std::uint64_t>(ranks);
  return (static_cast<std::uint64_t>(port) * p + static_cast<std::uint64_t>(receiver)) * p +
         static_cast<std::uint64_t>(sender);
}

std::vector<int> hosts_of_ranks(const Schedule& schedule, const topo::Topology& topology,
                                const topo::Mapping& mapping) {
  const ScheduleInfo& info = schedule.info();
  if (auto problem = placement_problem(info)) throw UnsupportedRequest(*problem);
  if (static_cast<int>(mapping.host_of.size()) != info.ranks)
    throw UnsupportedRequest("the mapping places " + std::to_string(mapping.host_of.size()) +
                             " ranks but the schedule has " + std::to_string(info.ranks));
  std::vector<int> out(static_cast<std::size_t>(info.ranks));
  std::vector<bool> used(static_cast<std::size_t>(topology.host_count()), false);
  for (int r = 0; r < info.ranks; ++r) {
    const int h = mapping.host_of[static_cast<std::size_t>(info.node_of(r))];
    if (h < 0 || h >= topology.host_count())
      throw UnsupportedRequest("rank " + std::to_string(r) + " is mapped to host " +
                               std::to_string(h) + ", but " + topology.spec() + " has hosts 0.." +
                               std::to_string(topology.host_count() - 1));
    if (used[static_cast<std::size_t>(h)])
      throw UnsupportedRequest("the mapping places two ranks on host " + std::to_string(h));
    used[static_cast<std::size_t>(h)] = true;
    out[static_cast<std::size_t>(r)] = h;
  }
  return out;
}

Plan make_plan(const Schedule& schedule, const topo::Topology& topology, const topo::Router& router,
               const topo::Mapping& mapping, bool message_per_range) {
  Plan plan;
  plan.message_per_range = message_per_range;
  plan.host_of = hosts_of_ranks(schedule, topology, mapping);
  plan.hosts = static_cast<std::uint64_t>(topology.host_count());
  const int ranks = schedule.ranks();
  std::vector<topo::Path> paths;
  Step step;
  for (int r = 0; r < ranks; ++r) {
    const int lanes = schedule.lane_count(r);
    for (int lane = 0; lane < lanes; ++lane) {
      for (int k = 0; k < schedule.lane_step_count(r, lane); ++k) {
        step.clear();
        schedule.build_lane_step(r, lane, k, step);
        for (const Operation& op : step.ops) {
          if (lanes > 1 && op.kind == OpKind::recv && op.peer >= 0 && op.peer < ranks)
            plan.receiving_lane[channel_key(op.peer, r, op.port, ranks)] = lane;
          if (op.kind != OpKind::send || op.peer == r) continue;
          if (op.peer < 0 || op.peer >= ranks)
            throw UnsupportedRequest("rank " + std::to_string(r) + " sends to rank " +
                                     std::to_string(op.peer) + ", which does not exist");
          const int ranges = plan.message_per_range
                                 ? std::max<int>(1, static_cast<int>(op.blocks.range_count()))
                                 : 1;
          plan.messages += static_cast<std::uint64_t>(ranges);
          plan.max_ranges = std::max(plan.max_ranges, ranges);
          plan.channels.push_back(channel_key(r, op.peer, op.port, ranks));
          const int src = plan.host_of[static_cast<std::size_t>(r)];
          const int dst = plan.host_of[static_cast<std::size_t>(op.peer)];
          auto [it, fresh] = plan.routes.try_emplace(plan.route_key(src, dst));
          if (!fresh) continue;
          paths.clear();
          router.routes(src, dst, paths);
          if (paths.size() != 1) {
            throw UnsupportedRequest(
                "the simgrid model needs single-path routing, but " + router.name() +
                " routing splits host " + std::to_string(src) + " -> " + std::to_string(dst) +
                " over " + std::to_string(paths.size()) + " paths; accepted: --routing dor");
          }
          it->second.links = paths.front().links;
          for (int id : it->second.links)
            it->second.latency_s += topology.links()[static_cast<std::size_t>(id)].latency_s;
        }
      }
    }
    // Keep the channel list small as we go: it only needs each key once.
    if (plan.channels.size() > 4 * static_cast<std::size_t>(ranks) + 1024) {
      std::sort(plan.channels.begin(), plan.channels.end());
      plan.channels.erase(std::unique(plan.channels.begin(), plan.channels.end()),
                          plan.channels.end());
    }
  }
  std::sort(plan.channels.begin(), plan.channels.end());
  plan.channels.erase(std::unique(plan.channels.begin(), plan.channels.end()), plan.channels.end());
  return plan;
}

// ---- The child process: builds the SimGrid platform and runs one actor per rank. ----

struct ChildResult {
  double time_s = 0;
  std::vector<double> rank_finish_s;
};

// The SimGrid link (and direction) standing for each directed link of the topology.
std::vector<s4u::LinkInRoute> make_links(s4u::NetZone& zone, const topo::Topology& topology) {
  const auto& links = topology.links();
  std::vector<s4u::LinkInRoute> out(links.size(), s4u::LinkInRoute(nullptr));
  // Unpaired links by (from, to), waiting for their reverse direction.
  std::map<std::pair<int, int>, std::vector<int>> waiting;
  std::vector<int> partner(links.size(), -1);
  for (std::size_t i = 0; i < links.size(); ++i) {
    auto& candidates = waiting[{links[i].to, links[i].from}];
    auto match = std::find_if(candidates.begin(), candidates.end(), [&](int j) {
      return links[j].bandwidth_bytes_per_s == links[i].bandwidth_bytes_per_s &&
             links[j].latency_s == links[i].latency_s;
    });
    if (match == candidates.end()) {
      waiting[{links[i].from, links[i].to}].push_back(static_cast<int>(i));
      continue;
    }
    partner[i] = *match;
    partner[static_cast<std::size_t>(*match)] = static_cast<int>(i);
    candidates.erase(match);
  }
  for (std::size_t i = 0; i < links.size(); ++i) {
    const topo::Link& l = links[i];
    const int j = partner[i];
    // Latency 0: senders apply the path latency themselves (Simulation::post says why).
    if (j < 0) {
      s4u::Link* link = zone.create_link("l" + std::to_string(i), l.bandwidth_bytes_per_s);
      link->set_latency(0)->set_sharing_policy(s4u::Link::SharingPolicy::SHARED)->seal();
      out[i] = s4u::LinkInRoute(link);
    } else if (j > static_cast<int>(i)) {
      s4u::SplitDuplexLink* link =
          zone.create_split_duplex_link("c" + std::to_string(i), l.bandwidth_bytes_per_s);
      link->set_latency(0)->seal();
      out[i] = s4u::LinkInRoute(link, s4u::LinkInRoute::Direction::UP);
      out[static_cast<std::size_t>(j)] = s4u::LinkInRoute(link, s4u::LinkInRoute::Direction::DOWN);
    }
  }
  return out;
}

class Simulation {
 public:
  Simulation(const Schedule& schedule, const topo::Topology& topology, const Plan& plan,
             const MessageBytes& bytes)
      : schedule_(schedule),
        topology_(topology),
        plan_(plan),
        bytes_(bytes),
        counts_(static_cast<std::size_t>(plan.max_ranges) + 1),
        finish_(static_cast<std::size_t>(schedule.ranks()), 0.0) {
    for (std::size_t n = 0; n < counts_.size(); ++n) counts_[n] = static_cast<int>(n);
  }

  ChildResult run() {
    std::vector<std::string> args = {
        "topocoll-simgrid",
        "--log=root.thres:critical",
        "--cfg=network/model:CM02",
        "--cfg=network/TCP-gamma:0",
        "--cfg=network/crosstraffic:0",
        "--cfg=network/weight-S:0",
        "--cfg=network/latency-factor:1",
        "--cfg=network/bandwidth-factor:1",
        "--cfg=contexts/stack-size:256",
    };
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int argc = static_cast<int>(args.size());
    s4u::Engine engine(&argc, argv.data());
    build_platform();
    const int ranks = schedule_.ranks();
    // One actor per lane of each rank (docs/design.md, "2.2 Lanes and steps").
    std::vector<std::vector<s4u::ActorPtr>> actors(static_cast<std::size_t>(ranks));
    lanes_.resize(static_cast<std::size_t>(ranks));
    for (int r = 0; r < ranks; ++r) {
      const int lanes = std::max(1, schedule_.lane_count(r));
      RankLanes& rl = lanes_[static_cast<std::size_t>(r)];
      rl.done.assign(static_cast<std::size_t>(lanes), 0);
      if (lanes > 1) {
        rl.mutex = s4u::Mutex::create();
        rl.progress = s4u::ConditionVariable::create();
      }
      for (int l = 0; l < lanes; ++l)
        actors[static_cast<std::size_t>(r)].push_back(s4u::Actor::create(
            "rank" + std::to_string(r) + "." + std::to_string(l),
            hosts_[static_cast<std::size_t>(r)], [this, r, l] { run_lane(r, l); }));
    }
    // Eager sends: data flows to the receiver's host as soon as it is put.
    for (std::uint64_t key : plan_.channels) {
      s4u::Mailbox* box = s4u::Mailbox::by_name("m" + std::to_string(key));
      const auto receiver = static_cast<int>((key / static_cast<std::uint64_t>(ranks)) %
                                             static_cast<std::uint64_t>(ranks));
      const auto lane = plan_.receiving_lane.find(key);
      box->set_receiver(actors[static_cast<std::size_t>(receiver)][static_cast<std::size_t>(
          lane == plan_.receiving_lane.end() ? 0 : lane->second)]);
      mailboxes_.emplace(key, box);
    }
    engine.run();
    ChildResult out;
    out.rank_finish_s = finish_;
    for (double f : finish_) out.time_s = std::max(out.time_s, f);
    return out;
  }

 private:
  void build_platform() {
    s4u::NetZone* zone = s4u::create_full_zone("topocoll");
    const auto links = make_links(*zone, topology_);
    std::map<int, s4u::Host*> by_host;
    for (int h : plan_.host_of) {
      s4u::Host* host = zone->create_host("h" + std::to_string(h), 1e9);
      host->seal();
      by_host[h] = host;
    }
    for (int h : plan_.host_of) hosts_.push_back(by_host[h]);
    std::vector<s4u::LinkInRoute> route;
    for (const auto& [key, r] : plan_.routes) {
      route.clear();
      for (int id : r.links) route.push_back(links[static_cast<std::size_t>(id)]);
      const auto src = static_cast<int>(key / plan_.hosts);
      const auto dst = static_cast<int>(key % plan_.hosts);
      zone->add_route(by_host[src]->get_netpoint(), by_host[dst]->get_netpoint(), nullptr, nullptr,
                      route, false);
    }
    zone->seal();
  }

  s4u::Mailbox* mailbox(int sender, int receiver, int port) const {
    return mailboxes_.at(channel_key(sender, receiver, port, schedule_.ranks()));
  }

  struct Outgoing {
    double latency_s;
    s4u::Mailbox* box;
    void* payload;
    std::uint64_t bytes;
  };

  // A message enters SimGrid once its path latency has passed and then shares bandwidth. With
  // latency on its links, CM02 would weight each flow's max-min share by the inverse of its
  // route latency (the flow's sharing penalty is its latency: TCP's RTT unfairness); with
  // zero-latency links every penalty is 1, the plain max-min sharing of the flow model. The
  // sort is stable, so the messages of one channel (one route) keep their posting order.
  static void post(std::vector<Outgoing>& outgoing, std::vector<s4u::CommPtr>& sends) {
    sends.clear();
    std::stable_sort(outgoing.begin(), outgoing.end(), [](const Outgoing& a, const Outgoing& b) {
      return a.latency_s < b.latency_s;
    });
    const double start = s4u::Engine::get_clock();
    for (const Outgoing& m : outgoing) {
      if (s4u::Engine::get_clock() < start + m.latency_s)
        s4u::this_actor::sleep_until(start + m.latency_s);
      sends.push_back(m.box->put_async(m.payload, m.bytes));
    }
  }

  [[nodiscard]] double route_latency(int rank, int peer) const {
    const auto src = plan_.host_of[static_cast<std::size_t>(rank)];
    const auto dst = plan_.host_of[static_cast<std::size_t>(peer)];
    return plan_.routes.at(plan_.route_key(src, dst)).latency_s;
  }

  // Lanes of one rank: steps completed per lane, and a condition to wait for another lane.
  struct RankLanes {
    std::vector<int> done;
    s4u::MutexPtr mutex;
    s4u::ConditionVariablePtr progress;
  };

  void wait_for(int rank, const Step& step) {
    if (step.after.empty()) return;
    RankLanes& rl = lanes_[static_cast<std::size_t>(rank)];
    std::unique_lock lock(*rl.mutex);
    for (const Dependency& d : step.after)
      while (rl.done.at(static_cast<std::size_t>(d.lane)) <= d.step) rl.progress->wait(lock);
  }

  void step_completed(int rank, int lane) {
    RankLanes& rl = lanes_[static_cast<std::size_t>(rank)];
    if (!rl.mutex) return;
    std::unique_lock lock(*rl.mutex);
    ++rl.done[static_cast<std::size_t>(lane)];
    rl.progress->notify_all();
  }

  void run_lane(int rank, int lane) {
    const double alpha = topology_.params().alpha_s;
    const double reduce_cost = topology_.params().reduce_s_per_byte;
    const int steps = schedule_.lane_step_count(rank, lane);
    Step step;
    std::vector<Outgoing> outgoing;
    std::vector<s4u::CommPtr> sends;
    for (int k = 0; k < steps; ++k) {
      if (alpha > 0) s4u::this_actor::sleep_for(alpha);
      step.clear();
      schedule_.build_lane_step(rank, lane, k, step);
      wait_for(rank, step);
      outgoing.clear();
      for (const Operation& op : step.ops) {
        if (op.kind != OpKind::send || op.peer == rank) continue;
        s4u::Mailbox* box = mailbox(rank, op.peer, op.port);
        const double latency = route_latency(rank, op.peer);
        // The first message of a send says how many it has, so the receiver takes them all.
        const int count = plan_.message_per_range
                              ? std::max<int>(1, static_cast<int>(op.blocks.range_count()))
                              : 1;
        void* payload = &counts_[static_cast<std::size_t>(count)];
        if (!plan_.message_per_range || op.blocks.empty()) {
          outgoing.push_back({latency, box, payload, bytes_.set(op.blocks)});
          continue;
        }
        for (const auto& r : op.blocks.ranges())
          outgoing.push_back({latency, box, payload, bytes_.range(r.begin, r.end)});
      }
      post(outgoing, sends);
      double compute = 0;
      for (const Operation& op : step.ops) {
        if (op.kind == OpKind::send) continue;
        if (op.combine == Combine::reduce)
          compute += static_cast<double>(bytes_.set(op.blocks)) * reduce_cost;
        if (op.kind != OpKind::recv || op.peer == rank) continue;
        // Transfers run on their own (eager); waiting for them in turn ends at the last one.
        s4u::Mailbox* box = mailbox(op.peer, rank, op.port);
        const int count = *box->get<int>();
        for (int m = 1; m < count; ++m) (void)box->get<int>();
      }
      s4u::Comm::wait_all(sends);
      if (compute > 0) s4u::this_actor::sleep_for(compute);
      step_completed(rank, lane);
    }
    double& finish = finish_[static_cast<std::size_t>(rank)];
    finish = std::max(finish, s4u::Engine::get_clock());
  }

  const Schedule& schedule_;
  const topo::Topology& topology_;
  const Plan& plan_;
  const MessageBytes& bytes_;
  std::vector<int> counts_;  // counts_[n] == n: payloads naming a send's message count
  std::vector<double> finish_;
  std::vector<s4u::Host*> hosts_;  // per rank
  std::vector<RankLanes> lanes_;   // per rank
  std::unordered_map<std::uint64_t, s4u::Mailbox*> mailboxes_;
};

// ---- Fork and pipe ----

bool write_all(int fd, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

std::string read_all(int fd) {
  std::string out;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
  }
  return out;
}

// Child: status byte 1, time, rank count, finish times; or status 0 and an error message.
[[noreturn]] void child_main(int fd, const Schedule& schedule, const topo::Topology& topology,
                             const Plan& plan, const MessageBytes& bytes) {
  std::string message;
  try {
    Simulation simulation(schedule, topology, plan, bytes);
    const ChildResult result = simulation.run();
    const char ok = 1;
    const std::uint64_t n = result.rank_finish_s.size();
    const bool written = write_all(fd, &ok, 1) && write_all(fd, &result.time_s, sizeof(double)) &&
                         write_all(fd, &n, sizeof n) &&
                         write_all(fd, result.rank_finish_s.data(), n * sizeof(double));
    ::_exit(written ? 0 : 3);
  } catch (const std::exception& e) {
    message = e.what();
  } catch (...) {
    message = "unknown error";
  }
  const char failed = 0;
  (void)(write_all(fd, &failed, 1) && write_all(fd, message.data(), message.size()));
  ::_exit(2);
}

ChildResult run_in_child(const Schedule& schedule, const topo::Topology& topology, const Plan& plan,
                         const MessageBytes& bytes) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("simgrid model: cannot create a pipe");
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error("simgrid model: cannot fork the simulation process");
  }
  if (pid == 0) {
    ::close(fds[0]);
    child_main(fds[1], schedule, topology, plan, bytes);
  }
  ::close(fds[1]);
  const std::string data = read_all(fds[0]);
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (data.empty() || (data[0] == 0)) {
    std::string why = data.size() > 1 ? data.substr(1) : std::string();
    if (why.empty() && WIFSIGNALED(status))
      why = "killed by signal " + std::to_string(WTERMSIG(status));
    if (why.empty()) why = "exit status " + std::to_string(WEXITSTATUS(status));
    throw std::runtime_error("the SimGrid simulation failed: " + why);
  }
  ChildResult out;
  std::uint64_t n = 0;
  const std::size_t header = 1 + sizeof(double) + sizeof n;
  if (data.size() < header) throw std::runtime_error("the SimGrid simulation result is truncated");
  std::memcpy(&out.time_s, data.data() + 1, sizeof(double));
  std::memcpy(&n, data.data() + 1 + sizeof(double), sizeof n);
  if (data.size() != header + n * sizeof(double))
    throw std::runtime_error("the SimGrid simulation result is truncated");
  out.rank_finish_s.resize(n);
  std::memcpy(out.rank_finish_s.data(), data.data() + header, n * sizeof(double));
  return out;
}

}  // namespace

SimResult simulate_simgrid(const Schedule& schedule, const topo::Topology& topology,
                           const topo::Router& router, const topo::Mapping& mapping,
                           const SimConfig& config) {
  if (!config.trace_path.empty())
    throw UnsupportedRequest(
        "--trace is not available with the simgrid model; accepted: --model analytic or flow");
  const MessageBytes bytes(schedule.info(), config);
  if (!topology.params().host.idle())
    throw UnsupportedRequest(
        "host costs (overheads, gap, copy cost, eager threshold) are not modelled by the simgrid "
        "model; accepted: --model flow, packet or analytic, or no host costs");
  const Plan plan = make_plan(schedule, topology, router, mapping, config.message_per_range);
  const ChildResult child = run_in_child(schedule, topology, plan, bytes);
  SimResult result;
  result.time_s = child.time_s;
  result.rank_finish_s = child.rank_finish_s;
  result.messages = plan.messages;
  result.transfers = plan.messages;  // single-path: one transfer per message
  if (result.time_s > 0)
    result.goodput_gbps = static_cast<double>(config.vector_bytes) * 8 / result.time_s / 1e9;
  return result;
}

}  // namespace topocoll::sim
#endif  // TOPOCOLL_HAVE_SIMGRID
