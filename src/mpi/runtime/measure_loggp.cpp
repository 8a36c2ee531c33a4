// LogGP parameters of one pair of ranks, after Netgauge's LogGP method (Hoefler, Lichei, Rehm:
// "Low-Overhead LogGP Parameter Assessment for Modern Interconnection Networks", IPDPS 2007):
// ping-pong for the latency; trains of n messages of s bytes sent back to back, whose time
// grows with n by g + (s-1)G per message (their Section 3: the slope over n gives g(s), the
// slope of g(s) over s gives G); the overheads o as the CPU time of posting a send (MPI_Isend)
// and of receiving a message that already arrived (MPI_Recv after MPI_Iprobe found it), the
// direct form of LogP's o (Culler et al. 1993); the eager threshold from the jump of the
// ping-pong time where a message needs a rendezvous round trip.
#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "eager_knee.hpp"
#include "element_type.hpp"
#include "measure.hpp"
#include "measure_support.hpp"

namespace topocoll::mpi {
namespace {

using namespace measuring;
using nlohmann::json;

constexpr int kTag = 7;  // the private communicator carries nothing else
constexpr std::uint64_t kLargest = std::uint64_t{1} << 30;
// The eager threshold's precision: a library's limit is a power of two less its header (Open
// MPI's shared memory: 4 KiB with the header), which the ping-pong's grid of powers of two
// would put at the power below.
constexpr std::uint64_t kKneeResolution = 16;

struct LogGPSettings {
  int repetitions = 30, warmup = 3;
  std::vector<std::uint64_t> pingpong_sizes, train_sizes, train_counts;
  std::vector<std::uint64_t> exchange_sizes;  // none by default
  std::vector<std::uint64_t> lent_sizes;      // none by default
  std::uint64_t overhead_bytes = 8;
};

LogGPSettings loggp_settings_of(const char* options_json) {
  const json o = options_object(
      options_json, {"repetitions", "warmup", "pingpong_sizes", "train_sizes", "train_counts",
                     "overhead_bytes", "exchange_sizes", "lent_sizes"});
  LogGPSettings s;
  s.repetitions = static_cast<int>(positive(o, "repetitions", s.repetitions, 100000));
  s.warmup = o.contains("warmup") && o["warmup"] == 0
                 ? 0
                 : static_cast<int>(positive(o, "warmup", s.warmup, 100000));
  std::vector<std::uint64_t> pingpong{0};
  for (std::uint64_t b = 1; b <= (std::uint64_t{4} << 20); b *= 2) pingpong.push_back(b);
  s.pingpong_sizes = sizes(o, "pingpong_sizes", pingpong, kLargest);
  s.train_sizes = sizes(o, "train_sizes", {8, 256, 1024, 4096}, kLargest);
  s.exchange_sizes = sizes(o, "exchange_sizes", {}, kLargest);
  s.lent_sizes = sizes(o, "lent_sizes", {}, kLargest);
  s.train_counts = sizes(o, "train_counts", {1, 2, 4, 8, 16, 32}, 4096);
  if (s.train_counts.front() == 0 || s.train_counts.size() < 2)
    throw BadArgument(MPI_ERR_ARG, "option 'train_counts' needs two counts or more, all above 0");
  if (s.train_sizes.size() < 2)
    throw BadArgument(MPI_ERR_ARG, "option 'train_sizes' needs two sizes or more");
  s.overhead_bytes = o.contains("overhead_bytes")
                         ? static_cast<std::uint64_t>(positive(o, "overhead_bytes", 8,
                                                               static_cast<std::int64_t>(kLargest)))
                         : 8;
  return s;
}

// One side of the pair: `client` times, `server` answers; both run the same loops.
class Pair {
 public:
  Pair(MPI_Comm comm, int peer, bool client, const LogGPSettings& s)
      : comm_(comm), peer_(peer), client_(client), s_(s) {
    std::uint64_t largest = s.overhead_bytes;
    for (auto b : s.pingpong_sizes) largest = std::max(largest, b);
    for (auto b : s.exchange_sizes) largest = std::max(largest, b);
    for (auto b : s.lent_sizes) largest = std::max(largest, b);
    largest = std::max(largest, s.train_sizes.back() * s.train_counts.back());
    buffer_.assign(std::max<std::uint64_t>(largest, 1), 1);
  }

  // Half the round trip of `bytes` there and back, per repetition.
  std::vector<double> pingpong(std::uint64_t bytes) {
    return repeat([&] {
      const double t0 = PMPI_Wtime();
      if (client_) {
        send(bytes);
        recv(bytes);
      } else {
        recv(bytes);
        send(bytes);
      }
      return (PMPI_Wtime() - t0) / 2;
    });
  }

  // Both ranks send `bytes` to each other at once (MPI_Isend and MPI_Irecv, then
  // MPI_Waitall): the time until both messages arrived here, the client's. Each rank writes
  // its bytes first, untimed, as a collective sends what its input copy, a reduction or a
  // receive just wrote: on one node such bytes, still in the sender's cache, took up to 1.4
  // times as long from 8 to 512 KiB as bytes no one wrote (docs/validation.md, "The terms, by
  // experiment", item 9).
  std::vector<double> exchange(std::uint64_t bytes) {
    outgoing_.resize(buffer_.size(), 1);
    requests_.resize(2);
    const int count = static_cast<int>(bytes);
    char value = 0;
    return repeat([&] {
      std::memset(outgoing_.data(), ++value, bytes);
      const double t0 = PMPI_Wtime();
      exchange_once(count);
      return PMPI_Wtime() - t0;
    });
  }

  // Bytes the peer just read, written again (docs/calibration.md, "Bytes a node peer read"):
  // each rank writes `bytes` of MPI_INT, sends them to the other (an exchange), then copies
  // the received ones onto them (`copy`) or, after another such exchange, reduces the received
  // ones into them (`reduce`, MPI_SUM), the runtime's copy_elements and reduce_elements timed
  // alone. Zeros: the sums never overflow.
  struct LentWrites {
    std::vector<double> copy, reduce;
  };
  LentWrites lent_writes(std::uint64_t bytes) {
    outgoing_.resize(buffer_.size(), 1);
    requests_.resize(2);
    const ElementType type = ElementType::of(MPI_INT);
    const std::uint64_t n = bytes / type.size;
    const int count = static_cast<int>(n * type.size);
    const auto lend = [&] {
      std::memset(outgoing_.data(), 0, n * type.size);
      exchange_once(count);
    };
    LentWrites out;
    out.copy = repeat([&] {
      lend();
      const double t0 = PMPI_Wtime();
      copy_elements(outgoing_.data(), buffer_.data(), n, type);
      return PMPI_Wtime() - t0;
    });
    out.reduce = repeat([&] {
      lend();
      const double t0 = PMPI_Wtime();
      check(reduce_elements(buffer_.data(), outgoing_.data(), n, type, MPI_SUM),
            "MPI_Reduce_local");
      return PMPI_Wtime() - t0;
    });
    return out;
  }

  // The client's values on both ranks: a search that the two walk together (each step a
  // ping-pong) must follow one rank's times, or the ranks part ways and wait for each other.
  void share(std::vector<double>& values) {
    const int n = static_cast<int>(values.size());
    if (client_)
      check(PMPI_Send(values.data(), n, MPI_DOUBLE, peer_, kTag, comm_), "MPI_Send");
    else
      check(PMPI_Recv(values.data(), n, MPI_DOUBLE, peer_, kTag, comm_, MPI_STATUS_IGNORE),
            "MPI_Recv");
  }

  // The fastest half round trip of `bytes` over the repetitions, the client's on both ranks.
  double fastest_pingpong(std::uint64_t bytes) {
    const std::vector<double> t = pingpong(bytes);
    std::vector<double> fastest{*std::min_element(t.begin(), t.end())};
    share(fastest);
    return fastest[0];
  }

  // The client's time to send `n` messages of `bytes` back to back and get a zero-byte reply
  // once the server received them all.
  std::vector<double> train(std::uint64_t n, std::uint64_t bytes) {
    requests_.resize(n);
    return repeat([&] {
      const double t0 = PMPI_Wtime();
      for (std::uint64_t i = 0; i < n; ++i) {
        char* at = buffer_.data() + i * bytes;
        const int count = static_cast<int>(bytes);
        check(client_ ? PMPI_Isend(at, count, MPI_BYTE, peer_, kTag, comm_, &requests_[i])
                      : PMPI_Irecv(at, count, MPI_BYTE, peer_, kTag, comm_, &requests_[i]),
              client_ ? "MPI_Isend" : "MPI_Irecv");
      }
      check(PMPI_Waitall(static_cast<int>(n), requests_.data(), MPI_STATUSES_IGNORE),
            "MPI_Waitall");
      if (client_)
        recv(0);
      else
        send(0);
      return PMPI_Wtime() - t0;
    });
  }

  // The sender's CPU time posting one message (MPI_Isend returns), timed on the client.
  std::vector<double> send_overhead(std::uint64_t bytes) {
    return repeat([&] {
      double posted = 0;
      if (client_) {
        MPI_Request r = MPI_REQUEST_NULL;
        const double t0 = PMPI_Wtime();
        check(PMPI_Isend(buffer_.data(), static_cast<int>(bytes), MPI_BYTE, peer_, kTag, comm_, &r),
              "MPI_Isend");
        posted = PMPI_Wtime() - t0;
        check(PMPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
        recv(0);
      } else {
        recv(bytes);
        send(0);
      }
      return posted;
    });
  }

  // The receiver's CPU time taking a message that already arrived, timed on the client.
  std::vector<double> recv_overhead(std::uint64_t bytes) {
    return repeat([&] {
      double taken = 0;
      if (client_) {
        int arrived = 0;
        while (!arrived)
          check(PMPI_Iprobe(peer_, kTag, comm_, &arrived, MPI_STATUS_IGNORE), "MPI_Iprobe");
        const double t0 = PMPI_Wtime();
        recv(bytes);
        taken = PMPI_Wtime() - t0;
        send(0);
      } else {
        send(bytes);
        recv(0);
      }
      return taken;
    });
  }

 private:
  template <typename F>
  std::vector<double> repeat(F&& once) {
    std::vector<double> out;
    for (int i = 0; i < s_.warmup + s_.repetitions; ++i) {
      const double t = once();
      if (i >= s_.warmup) out.push_back(t);
    }
    return out;
  }
  // outgoing_ to the peer and the peer's bytes into buffer_, both at once; `requests_` holds 2.
  void exchange_once(int count) {
    check(PMPI_Irecv(buffer_.data(), count, MPI_BYTE, peer_, kTag, comm_, &requests_[0]),
          "MPI_Irecv");
    check(PMPI_Isend(outgoing_.data(), count, MPI_BYTE, peer_, kTag, comm_, &requests_[1]),
          "MPI_Isend");
    check(PMPI_Waitall(2, requests_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  }
  void send(std::uint64_t bytes) {
    check(PMPI_Send(buffer_.data(), static_cast<int>(bytes), MPI_BYTE, peer_, kTag, comm_),
          "MPI_Send");
  }
  void recv(std::uint64_t bytes) {
    check(PMPI_Recv(buffer_.data(), static_cast<int>(bytes), MPI_BYTE, peer_, kTag, comm_,
                    MPI_STATUS_IGNORE),
          "MPI_Recv");
  }

  MPI_Comm comm_;
  int peer_;
  bool client_;
  const LogGPSettings& s_;
  std::vector<char> buffer_;
  std::vector<char> outgoing_;  // the exchange's send buffer
  std::vector<MPI_Request> requests_;
};

// Seconds per byte of the ping-pong at its largest sizes (the last four, at least 64 KiB), on
// the fastest repetitions.
double pingpong_per_byte(const std::vector<std::uint64_t>& sizes, const std::vector<double>& t) {
  std::vector<double> x, y;
  for (std::size_t i = sizes.size(); i-- > 0 && x.size() < 4;)
    if (sizes[i] >= 65536) {
      x.push_back(static_cast<double>(sizes[i]));
      y.push_back(t[i]);
    }
  return x.size() >= 2 ? std::max(0.0, fit(x, y).slope) : 0.0;
}

json rate(double seconds_per_byte) {
  return seconds_per_byte > 0 ? json(1 / seconds_per_byte) : json(nullptr);
}

// Moves the knee found between two sizes of the grid to within kKneeResolution. Both ranks walk
// the search from the client's knee and times (each rank found its own on its own times).
void refine_on_both(Pair& pair, const LogGPSettings& s, const std::vector<double>& fastest,
                    double trend, EagerKnee& knee, json& points) {
  const auto at = [&](std::optional<std::uint64_t> b) {
    const auto i = std::find(s.pingpong_sizes.begin(), s.pingpong_sizes.end(), b.value_or(0));
    return b ? fastest[static_cast<std::size_t>(i - s.pingpong_sizes.begin())] : 0.0;
  };
  std::vector<double> start{knee.bytes && knee.next ? 1.0 : 0.0,
                            static_cast<double>(knee.bytes.value_or(0)),
                            static_cast<double>(knee.next.value_or(0)),
                            at(knee.bytes),
                            at(knee.next),
                            trend};
  pair.share(start);
  if (start[0] == 0) return;
  const auto eager = static_cast<std::uint64_t>(start[1]);
  const auto rendezvous = static_cast<std::uint64_t>(start[2]);
  knee.bytes = refine_eager_knee(
      eager, start[3], rendezvous, start[4], start[5], kKneeResolution, [&](std::uint64_t b) {
        const double t = pair.fastest_pingpong(b);
        points["knee_probes"].push_back({{"bytes", b}, {"fastest_s", t}});
        return t;
      });
}

// The client's measurements, as the result object.
json measure_pair(Pair& pair, const LogGPSettings& s) {
  json points = json::object();
  std::vector<double> pp, fastest;
  for (std::uint64_t b : s.pingpong_sizes) {
    const std::vector<double> t = pair.pingpong(b);
    pp.push_back(median(t));
    fastest.push_back(*std::min_element(t.begin(), t.end()));
    points["pingpong"].push_back(
        {{"bytes", b}, {"half_round_trip_s", pp.back()}, {"fastest_s", fastest.back()}});
  }
  for (std::uint64_t b : s.exchange_sizes)
    points["exchange"].push_back({{"bytes", b}, {"seconds", median(pair.exchange(b))}});
  for (std::uint64_t b : s.lent_sizes) {
    const Pair::LentWrites w = pair.lent_writes(b);
    points["lent"].push_back(
        {{"bytes", b}, {"copy_s", median(w.copy)}, {"reduce_s", median(w.reduce)}});
  }
  std::vector<double> gs, xs;  // g(s) = g + (s-1)G per train size
  for (std::uint64_t b : s.train_sizes) {
    std::vector<double> n, t;
    for (std::uint64_t count : s.train_counts) {
      n.push_back(static_cast<double>(count));
      t.push_back(median(pair.train(count, b)));
      points["trains"].push_back({{"bytes", b}, {"messages", count}, {"seconds", t.back()}});
    }
    const Line per_message = fit(n, t);
    gs.push_back(per_message.slope);
    xs.push_back(static_cast<double>(b));
    points["train_slopes"].push_back({{"bytes", b}, {"per_message_s", per_message.slope}});
  }
  const Line g_of_s = fit(xs, gs);
  const double per_byte = std::max(0.0, g_of_s.slope);
  const double gap = std::max(0.0, g_of_s.intercept);
  const double o_send = median(pair.send_overhead(s.overhead_bytes));
  const double o_recv = median(pair.recv_overhead(s.overhead_bytes));
  const double pp_per_byte = pingpong_per_byte(s.pingpong_sizes, fastest);
  // The ping-pong's own per-byte trend where it has one: the trains' G, fitted up to 4 KiB,
  // may hold a rendezvous.
  const double trend = pp_per_byte > 0 ? pp_per_byte : per_byte;
  EagerKnee knee = eager_knee(s.pingpong_sizes, fastest, pp, trend);
  refine_on_both(pair, s, fastest, trend, knee, points);
  const double small = pp.front();
  json result = {{"half_round_trip_s", small},
                 {"half_round_trip_bytes", s.pingpong_sizes.front()},
                 // LogGP's half round trip of a small message is o_send + L + o_recv.
                 {"latency_s", std::max(0.0, small - o_send - o_recv)},
                 {"send_overhead_s", o_send},
                 {"recv_overhead_s", o_recv},
                 {"overhead_bytes", s.overhead_bytes},
                 {"gap_s", gap},
                 {"per_byte_s", per_byte},
                 {"train_bandwidth_Bps", rate(per_byte)},
                 {"pingpong_bandwidth_Bps", rate(pp_per_byte)},
                 {"eager_threshold_bytes", knee.bytes ? json(*knee.bytes) : json(nullptr)},
                 // What a rendezvous message's ping-pong takes beyond an eager one's trend.
                 {"rendezvous_handshake_s", knee.handshake_s},
                 {"repetitions", s.repetitions},
                 {"points", points}};
  return result;
}

// The client's JSON text to every rank.
std::string shared_text(MPI_Comm comm, int root, std::string text) {
  long long length = static_cast<long long>(text.size());
  check(PMPI_Bcast(&length, 1, MPI_LONG_LONG, root, comm), "MPI_Bcast");
  text.resize(static_cast<std::size_t>(length));
  check(PMPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, root, comm), "MPI_Bcast");
  return text;
}

bool same_node(MPI_Comm comm, int a, int b) {
  MPI_Comm node = MPI_COMM_NULL;
  int me = 0;
  PMPI_Comm_rank(comm, &me);
  check(PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node),
        "MPI_Comm_split_type");
  int leader = me;  // the lowest rank of comm on my node names the node
  PMPI_Allreduce(&me, &leader, 1, MPI_INT, MPI_MIN, node);
  PMPI_Comm_free(&node);
  int size = 0;
  PMPI_Comm_size(comm, &size);
  std::vector<int> leaders(static_cast<std::size_t>(size));
  check(PMPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, comm), "MPI_Allgather");
  return leaders[static_cast<std::size_t>(a)] == leaders[static_cast<std::size_t>(b)];
}

}  // namespace

int measure_loggp(MPI_Comm comm, int peer_a, int peer_b, const char* options_json,
                  char** result_json) {
  return guarded([&] {
    if (!result_json) throw BadArgument(MPI_ERR_ARG, "result_json is NULL");
    *result_json = nullptr;
    PrivateComm pc(comm, 2);
    const std::string options = options_json ? options_json : "";
    require_agreement(
        pc.get(), {peer_a, peer_b, static_cast<std::int64_t>(std::hash<std::string>{}(options))},
        "peers or options");
    if (peer_a < 0 || peer_b < 0 || peer_a >= pc.size() || peer_b >= pc.size() || peer_a == peer_b)
      throw BadArgument(MPI_ERR_RANK,
                        "peer_a and peer_b must be two different ranks of comm "
                        "(0.." +
                            std::to_string(pc.size() - 1) + ")");
    const LogGPSettings s = loggp_settings_of(options_json);
    const bool shared = same_node(pc.get(), peer_a, peer_b);
    std::string text;
    if (pc.rank() == peer_a || pc.rank() == peer_b) {
      Pair pair(pc.get(), pc.rank() == peer_a ? peer_b : peer_a, pc.rank() == peer_a, s);
      json result = measure_pair(pair, s);
      result["peers"] = {peer_a, peer_b};
      result["same_node"] = shared;
      if (pc.rank() == peer_a) text = result.dump();
    }
    text = shared_text(pc.get(), peer_a, text);
    *result_json = allocated(text);
    return MPI_SUCCESS;
  });
}

const char* measure_error() { return error_text(); }

}  // namespace topocoll::mpi
