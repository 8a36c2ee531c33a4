#pragma once
// The network a schedule runs on: hosts (where ranks live), switches and directed links, with
// the parameters of docs/design.md, "4.2 Latency convention". Direct networks (ring, torus, mesh,
// hypercube, hyperx) have no switches: hosts are the routers. Built from a spec string such as
// "torus:8x8" by make_topology (topology_spec.cpp), the CLI contract (docs/simulator.md, "Topology
// specs").
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace topocoll::topo {

// What a host's CPU and NIC charge per message and per byte, per rank: LogGP (Alexandrov et al.,
// "LogGP", SPAA 1995: o, g) with LogGOPSim's eager threshold S (Hoefler et al., HPDC 2010), and
// per-byte copies. The wire's L and G are the links' latency and bandwidth. All zero and always
// eager by default: an idealised host. docs/host-costs.md says when each is charged.
struct HostCosts {
  static constexpr std::uint64_t kAlwaysEager = std::numeric_limits<std::uint64_t>::max();
  double send_overhead_s = 0;  // o at the sender: CPU time per message sent
  double recv_overhead_s = 0;  // o at the receiver: CPU time per message received
  double gap_s = 0;            // g: least interval between two messages leaving one NIC port
  double copy_s_per_byte = 0;  // local copies, packing and unpacking a multi-range message
  // LogGOPS's O (Hoefler et al., HPDC 2010): CPU time per byte of every message, at the sender
  // with its o and at the receiver with its o (a host that touches each word it sends or takes).
  double overhead_s_per_byte = 0;
  // The MPI runtime's own CPU work (docs/host-costs.md, "The runtime's CPU work"): per step of a
  // lane (posting, waiting, bookkeeping; unlike alpha, on the rank's one CPU, so two lanes pay
  // it twice) and per call (selection, plan lookup), before the first step.
  double step_cpu_s = 0;
  double call_overhead_s = 0;
  // Messages above it are rendezvous: a request and a ready message (one round trip) precede
  // the data.
  std::uint64_t eager_threshold_bytes = kAlwaysEager;
  // The receiver's CPU time per rendezvous message beyond o: matching the request, setting up
  // the transfer and answering it (an extra control message's software cost, MPICH's ADI2
  // protocol note). On the receiver's one CPU, so concurrent rendezvous messages to one rank
  // pay it one after another.
  double rendezvous_s = 0;
  // A copy or a reduction into bytes that a rank of the node read since this rank last wrote
  // them (docs/host-costs.md, "Bytes a node peer read"): seconds per byte of the whole write,
  // taking the cache lines back included; what it exceeds copy_s_per_byte (reduce_s_per_byte)
  // by is charged on top of those. 0: no such cost.
  double lent_copy_s_per_byte = 0;
  double lent_reduce_s_per_byte = 0;

  // Whether every cost is zero and every message eager (the engines then skip the host).
  [[nodiscard]] bool idle() const {
    return send_overhead_s == 0 && recv_overhead_s == 0 && gap_s == 0 && copy_s_per_byte == 0 &&
           overhead_s_per_byte == 0 && step_cpu_s == 0 && call_overhead_s == 0 &&
           rendezvous_s == 0 && eager_threshold_bytes == kAlwaysEager &&
           lent_copy_s_per_byte == 0 && lent_reduce_s_per_byte == 0;
  }
};

// Parameters shared by every link unless a graph file overrides them (units: SI, bytes).
struct NetworkParams {
  double bandwidth_bytes_per_s = 400e9 / 8;  // per direction of a link
  double link_latency_s = 100e-9;
  double hop_latency_s = 300e-9;  // per link crossed, on top of link latency
  double alpha_s = 0;             // per-step software overhead of a lane (not on the CPU)
  // Cost of reducing one byte (received or local) on the rank's CPU; the caller picks the
  // rate of the datatype class it simulates (machine files give one per class).
  double reduce_s_per_byte = 0;
  int nic_ports = 1;  // host-to-switch links per host (indirect networks)
  HostCosts host;     // per rank
};

// What a link belongs to: the network, a node's NIC (between its ranks and the network) or a
// node's intra-node fabric (docs/nodes.md). --links and the traffic report separate them.
enum class LinkKind : std::uint8_t { network, nic, intra_node };

// A directed link. Both directions of a cable are two links, so the two directions never
// share bandwidth (full duplex, SPLITDUPLEX in SimGrid terms).
struct Link {
  int from = 0;  // node id
  int to = 0;
  double bandwidth_bytes_per_s = 0;
  double latency_s = 0;  // link latency + per-hop latency, what a message pays per link crossed
  std::string label;     // for --links output, e.g. "h3->h4" or "leaf2->spine7"
  LinkKind kind = LinkKind::network;
};

// "network", "nic" or "intra-node".
[[nodiscard]] std::string_view link_kind_name(LinkKind kind);

class Topology {
 public:
  virtual ~Topology() = default;
  // Nodes: hosts are 0..host_count()-1, switches host_count()..node_count()-1.
  [[nodiscard]] int host_count() const { return hosts_; }
  [[nodiscard]] int node_count() const { return nodes_; }
  [[nodiscard]] const std::vector<Link>& links() const { return links_; }
  // Ids of the links leaving `node`.
  [[nodiscard]] const std::vector<int>& out_links(int node) const { return out_.at(node); }
  [[nodiscard]] const std::string& spec() const { return spec_; }
  // The torus/mesh/hypercube shape (for --dims of torus-aware algorithms); empty for
  // networks without a grid shape.
  [[nodiscard]] const std::vector<int>& grid_dims() const { return grid_dims_; }
  [[nodiscard]] const NetworkParams& params() const { return params_; }
  // What a host can inject into the network for one collective: the smaller of the sums of
  // its outgoing and incoming link bandwidths, through the ports the topology gives it (the
  // "peak" of a collective's bandwidth bound, docs/simulator.md).
  [[nodiscard]] virtual double host_injection_bandwidth(int host) const;
  // Whether moving every host by an offset of grid_dims() (mod each size; along dimension d a
  // multiple of translation_step(d)) is an automorphism of the network: hosts numbered in mixed
  // radix of grid_dims() (dimension 0 fastest), every link mapped onto a link of the same
  // parameters. Tori, rings, hypercubes and HyperX are (step 1), HammingMesh is by whole
  // boards; meshes (edges), fat trees and Dragonflies are not. The flow model's symmetry
  // reduction relies on it (src/sim/translation_symmetry.hpp).
  [[nodiscard]] virtual bool translatable() const { return false; }
  [[nodiscard]] virtual int translation_step(int /*dim*/) const { return 1; }
  // The link `link` becomes when every host moves by `offset` (one entry per grid dimension,
  // each in [0, size), a multiple of the step); only called where translatable().
  [[nodiscard]] virtual int translated_link(int link, std::span<const int> offset) const;
  // The host a link is attached to, which it moves with: its source, or for a link from a
  // switch, the host it leads to.
  [[nodiscard]] virtual int link_host(int link) const {
    return links_[static_cast<std::size_t>(link)].from;
  }
  // The node (machine) a host belongs to: hosts of one node share its intra-node fabric. Each
  // host is a node of its own unless a node model (node_topology.hpp) groups them.
  [[nodiscard]] virtual int machine_node_of(int host) const { return host; }
  // Host costs of a message between two hosts of one node, when they differ from params().host.
  [[nodiscard]] virtual const HostCosts* intra_node_host_costs() const { return nullptr; }
  // Host `node` moved by `offset` in the mixed radix of grid_dims() (mod each size).
  [[nodiscard]] int translated_node(int node, std::span<const int> offset) const;

 protected:
  Topology(std::string spec, NetworkParams params) : spec_(std::move(spec)), params_(params) {}
  int add_node(bool host);
  int add_link(int from, int to, double bandwidth_bytes_per_s, double latency_s, std::string label,
               LinkKind kind = LinkKind::network);
  // Both directions of a cable: returns the id of a->b; b->a is the next id.
  int add_cable(int a, int b, double bandwidth_bytes_per_s, double latency_s,
                const std::string& name_a, const std::string& name_b);
  void reserve(int nodes, long long links);
  void set_grid_dims(std::vector<int> dims) { grid_dims_ = std::move(dims); }

 private:
  std::string spec_;
  NetworkParams params_;
  int hosts_ = 0;
  int nodes_ = 0;
  std::vector<Link> links_;
  std::vector<std::vector<int>> out_;
  std::vector<int> grid_dims_;
};

// Parses a spec ("ring:N", "torus:AxB[x...]", "mesh:...", "hypercube:d", "hyperx:...",
// "hammingmesh:AxB:XxY", "fattree:...", "dragonfly:...", "dragonfly+:...", "graph:FILE").
// Throws UnsupportedRequest (core/registry.hpp) naming the problem and the accepted forms.
[[nodiscard]] std::unique_ptr<Topology> make_topology(std::string_view spec,
                                                      const NetworkParams& params);
// The accepted spec forms, one line each, for error messages and `--help`.
[[nodiscard]] std::string topology_spec_help();

}  // namespace topocoll::topo
