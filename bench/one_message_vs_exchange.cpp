// What one small message and one small exchange cost between two ranks with plain MPI, timed
// as the MPI runtime's collectives are timed (docs/validation.md, "What remains": the small
// bcast). Run it as `mpirun -np 2 build/cpp/topocoll_one_message_bench`; rank 0 prints one
// line per pattern; a number of bytes as the argument (a multiple of 4, 8 to 65,536) runs the
// patterns on that size instead of 8 B. With the argument `pingpong`, it prints instead the half
// round trip of a blocking ping-pong (MPI_Send, MPI_Recv) from 64 B to 2 KiB, the median of 21
// rounds of 2,000 round trips each, as calibrate's ping-pong sees the sizes (the one-message step).
// With the argument `frames`, it times one message as the runtime's bcast step sends it (rank 0
// MPI_Send, rank 1 MPI_Irecv and MPI_Wait) at 128 to 1,024 B in three frames (frame_once):
// after a barrier as above; as topocoll_time_collective frames a call (both buffers rewritten
// and a barrier on a duplicate communicator before, a reduction of a code on it after); and
// from an instant that rank 0 broadcasts 50 us ahead on its clock, which both ranks wait for
// (ReproMPI's window). MPI_Wtime need not agree between processes, even on one node: Open MPI
// 4.1 counts from each process's start (27 to 139 us apart on the 2-core VM), so rank 1 reads
// rank 0's clock through the offset that Cristian's method gives (clock_offset). It prints
// each rank's median and the median of the slowest rank's time, over 5,000 calls.
//
// Every iteration: a barrier, then each rank times its part, and the slowest rank's time
// counts, as topocoll_time_collective does. Patterns on 8 B (or the size asked) of MPI_INT:
// - the barrier alone (what the clock sees of it);
// - one message, rank 0 MPI_Isend and rank 1 MPI_Irecv, each then MPI_Wait (a bcast's step);
// - an exchange, MPI_Irecv then MPI_Isend then MPI_Waitall (the runtime's order in a step);
// - an exchange with the send posted first.
// Each pattern runs in rounds alternated with the others; a round's sample is its median
// iteration, and the line gives the median and the range of the rounds.
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace {

constexpr int kTag = 0;
constexpr int kIterations = 20000;
constexpr int kRounds = 15;

enum class Pattern { barrier, one_message, exchange, exchange_send_first };
constexpr std::array kPatterns = {Pattern::barrier, Pattern::one_message, Pattern::exchange,
                                  Pattern::exchange_send_first};

const char* name(Pattern p) {
  switch (p) {
    case Pattern::barrier: return "the barrier alone";
    case Pattern::one_message: return "one message (Isend | Irecv, Wait)";
    case Pattern::exchange: return "exchange (Irecv, Isend, Waitall)";
    case Pattern::exchange_send_first: return "exchange (Isend, Irecv, Waitall)";
  }
  return "";
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void run_once(Pattern p, int me, int* send, int* receive, int count) {
  const int peer = 1 - me;
  std::array<MPI_Request, 2> q{MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  auto post_receive = [&] {
    MPI_Irecv(receive, count, MPI_INT, peer, kTag, MPI_COMM_WORLD, &q[0]);
  };
  auto post_send = [&] { MPI_Isend(send, count, MPI_INT, peer, kTag, MPI_COMM_WORLD, &q[1]); };
  switch (p) {
    case Pattern::barrier: return;
    case Pattern::one_message: me == 0 ? post_send() : post_receive(); break;
    case Pattern::exchange:
      post_receive();
      post_send();
      break;
    case Pattern::exchange_send_first:
      post_send();
      post_receive();
      break;
  }
  MPI_Waitall(2, q.data(), MPI_STATUSES_IGNORE);
}

// The median over iterations of the slowest rank's time.
double round_median(Pattern p, int me, int count) {
  std::vector<int> send(static_cast<std::size_t>(count), me), receive(send.size());
  std::vector<double> times(kIterations);
  for (double& t : times) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    run_once(p, me, send.data(), receive.data(), count);
    t = MPI_Wtime() - start;
  }
  MPI_Allreduce(MPI_IN_PLACE, times.data(), kIterations, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return median(times);
}

// The median over rounds of a round's mean half round trip of `bytes`.
double half_round_trip(int me, int bytes) {
  constexpr int kTrips = 2000, kPingPongRounds = 21;
  const int peer = 1 - me;
  std::vector<char> buffer(static_cast<std::size_t>(bytes));
  std::vector<double> rounds;
  for (int r = 0; r < kPingPongRounds; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int i = 0; i < kTrips; ++i) {
      if (me == 0) {
        MPI_Send(buffer.data(), bytes, MPI_BYTE, peer, kTag, MPI_COMM_WORLD);
        MPI_Recv(buffer.data(), bytes, MPI_BYTE, peer, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(buffer.data(), bytes, MPI_BYTE, peer, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buffer.data(), bytes, MPI_BYTE, peer, kTag, MPI_COMM_WORLD);
      }
    }
    rounds.push_back((MPI_Wtime() - start) / (2.0 * kTrips));
  }
  return median(rounds);
}

void print_pingpong(int me) {
  for (int bytes : {64, 128, 256, 384, 448, 512, 1024, 2048}) {
    const double t = half_round_trip(me, bytes);
    if (me == 0) std::printf("ping-pong %5d B: half round trip %.3f us\n", bytes, t * 1e6);
  }
}

void print_patterns(int me, int bytes) {
  std::array<std::vector<double>, kPatterns.size()> rounds;
  for (int r = 0; r < kRounds; ++r)
    for (std::size_t k = 0; k < kPatterns.size(); ++k)
      rounds[k].push_back(round_median(kPatterns[k], me, bytes / 4));
  if (me == 0) std::printf("%d B:\n", bytes);
  for (std::size_t k = 0; k < kPatterns.size() && me == 0; ++k) {
    const auto [low, high] = std::minmax_element(rounds[k].begin(), rounds[k].end());
    std::printf("%-36s %.3f us (rounds %.3f to %.3f)\n", name(kPatterns[k]),
                median(rounds[k]) * 1e6, *low * 1e6, *high * 1e6);
  }
}

enum class Frame { barrier, time_collective, window };
constexpr std::array kFrames = {Frame::barrier, Frame::time_collective, Frame::window};
constexpr double kWindowAhead = 50e-6;

const char* name(Frame f) {
  switch (f) {
    case Frame::barrier: return "after a barrier";
    case Frame::time_collective: return "as topocoll_time_collective frames a call";
    case Frame::window: return "from an instant 50 us ahead";
  }
  return "";
}

// Rank 1's MPI_Wtime less rank 0's (0 on rank 0), by Cristian's method: of 1,000 exchanges,
// the one of least round trip, its reply's time against the round trip's midpoint.
double clock_offset(int me, MPI_Comm dup) {
  double best = 1e30, offset = 0;
  for (int i = 0; i < 1000; ++i) {
    double t = MPI_Wtime();
    if (me == 0) {
      double reply = 0;
      MPI_Send(&t, 1, MPI_DOUBLE, 1, kTag, dup);
      MPI_Recv(&reply, 1, MPI_DOUBLE, 1, kTag, dup, MPI_STATUS_IGNORE);
      const double back = MPI_Wtime();
      if (back - t < best) best = back - t, offset = reply - (t + back) / 2;
    } else {
      MPI_Recv(&t, 1, MPI_DOUBLE, 0, kTag, dup, MPI_STATUS_IGNORE);
      t = MPI_Wtime();
      MPI_Send(&t, 1, MPI_DOUBLE, 0, kTag, dup);
    }
  }
  MPI_Bcast(&offset, 1, MPI_DOUBLE, 0, dup);
  return me == 0 ? 0.0 : offset;
}

// One message of `count` ints framed by `f`: this rank's time from its start to its end.
// `offset`: this rank's clock less rank 0's.
double frame_once(Frame f, int me, std::vector<int>& buffer, int count, MPI_Comm dup,
                  double offset) {
  if (f == Frame::time_collective) std::fill(buffer.begin(), buffer.end(), me);
  MPI_Barrier(f == Frame::barrier ? MPI_COMM_WORLD : dup);
  double start = MPI_Wtime();
  if (f == Frame::window) {
    start += kWindowAhead;  // on rank 0's clock
    MPI_Bcast(&start, 1, MPI_DOUBLE, 0, dup);
    start += offset;  // on this rank's
    while (MPI_Wtime() < start) {
    }
  }
  if (me == 0) {
    MPI_Send(buffer.data(), count, MPI_INT, 1, kTag, MPI_COMM_WORLD);
  } else {
    MPI_Request q = MPI_REQUEST_NULL;
    MPI_Irecv(buffer.data(), count, MPI_INT, 0, kTag, MPI_COMM_WORLD, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
  }
  const double elapsed = MPI_Wtime() - start;
  int code = 0;
  if (f == Frame::time_collective) MPI_Allreduce(MPI_IN_PLACE, &code, 1, MPI_INT, MPI_MAX, dup);
  return elapsed;
}

void print_frames(int me) {
  constexpr int kCalls = 5000;
  MPI_Comm dup = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  const double offset = clock_offset(me, dup);
  if (me == 1) std::printf("rank 1's clock less rank 0's: %.3f us\n", offset * 1e6);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int bytes : {128, 256, 320, 512, 1024}) {
    std::vector<int> buffer(static_cast<std::size_t>(bytes / 4));
    for (Frame f : kFrames) {
      std::vector<double> own(kCalls), slowest(kCalls);
      for (double& t : own) t = frame_once(f, me, buffer, bytes / 4, dup, offset);
      MPI_Allreduce(own.data(), slowest.data(), kCalls, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      std::array<double, 2> mine{median(own), 0}, both{};
      mine[1] = mine[0];
      if (me == 1) mine[0] = 0;
      if (me == 0) mine[1] = 0;
      MPI_Reduce(mine.data(), both.data(), 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      if (me == 0)
        std::printf("%5d B, %-42s slowest %.3f us (rank 0 %.3f, rank 1 %.3f)\n", bytes, name(f),
                    median(slowest) * 1e6, both[0] * 1e6, both[1] * 1e6);
    }
  }
  MPI_Comm_free(&dup);
}

// The patterns' size from the command line: a multiple of 4 from 8 to 65,536, else 0.
int pattern_bytes(const char* text) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  const bool valid = end != text && *end == '\0' && value >= 8 && value <= 65536 && value % 4 == 0;
  return valid ? static_cast<int>(value) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string_view mode = argc == 2 ? argv[1] : "";
  const bool pingpong = mode == "pingpong", frames = mode == "frames";
  const int bytes = argc == 2 && !pingpong && !frames ? pattern_bytes(argv[1]) : 8;
  if (size != 2 || argc > 2 || bytes == 0) {
    if (me == 0)
      std::fprintf(stderr,
                   "error: run it on 2 ranks with no argument, `pingpong`, `frames` or a size in "
                   "bytes (a multiple of 4, 8 to 65536) (mpirun -np 2 %s [pingpong|frames|BYTES]); "
                   "got %d ranks and %d arguments%s%s\n",
                   argv[0], size, argc - 1, argc > 1 ? ", the first " : "",
                   argc > 1 ? argv[1] : "");
    MPI_Finalize();
    return 2;
  }
  if (pingpong)
    print_pingpong(me);
  else if (frames)
    print_frames(me);
  else
    print_patterns(me, bytes);
  MPI_Finalize();
  return 0;
}
