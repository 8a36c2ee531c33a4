// What moving bytes between two ranks of one node costs beyond the transfer itself, with plain
// MPI and nothing of topocoll (docs/validation.md, "The terms, by experiment", item 9). Run it as
// `mpirun -np 2 build/cpp/topocoll_cache_ownership_bench`; rank 0 prints one line per size.
//
// Three measurements per size, each the median over repetitions:
// - an exchange (both ranks MPI_Isend and MPI_Irecv, then MPI_Waitall) of bytes no one wrote
//   since the last exchange, and of bytes the sender wrote just before (untimed);
// - after an exchange that sent buffer `lent`, a copy and an int sum reduction timed alone,
//   written into `lent` or into a buffer no peer read;
// - a one-step allreduce of ints as the MPI runtime runs it (the input copied into the result,
//   the result exchanged, the received vector reduced into it) against the same steps with
//   the input sent instead of the result.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

constexpr int kTag = 0;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The slowest rank's time, as a collective's time counts.
double slowest(double seconds) {
  double out = 0;
  MPI_Allreduce(&seconds, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

void sum_into(const int* __restrict in, int* __restrict inout, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) inout[i] += in[i];
}

class Pair {
 public:
  explicit Pair(std::size_t largest)
      : peer_(1 - rank()),
        input_(largest / 4, 1),
        result_(largest / 4, 1),
        other_(largest / 4, 1),
        untouched_(largest / 4, 1),
        received_(largest / 4, 1) {}

  static int rank() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
  }

  void exchange(const int* send, std::size_t n) {
    MPI_Request r[2];
    MPI_Irecv(received_.data(), static_cast<int>(n), MPI_INT, peer_, kTag, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(send, static_cast<int>(n), MPI_INT, peer_, kTag, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  }

  // The exchange's time, of bytes written just before it or of bytes no one wrote.
  double timed_exchange(std::size_t n, bool written) {
    if (written) std::fill_n(result_.data(), n, ++value_);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    exchange(written ? result_.data() : untouched_.data(), n);
    return slowest(MPI_Wtime() - t0);
  }

  // After an exchange that sent `result_`: `write` timed alone, into result_ or into other_.
  double write_after_exchange(std::size_t n, bool into_sent, bool reduce) {
    exchange(result_.data(), n);
    MPI_Barrier(MPI_COMM_WORLD);
    int* target = into_sent ? result_.data() : other_.data();
    const double t0 = MPI_Wtime();
    if (reduce)
      sum_into(received_.data(), target, n);
    else
      std::memcpy(target, input_.data(), n * sizeof(int));
    const double t = MPI_Wtime() - t0;
    std::fill_n(result_.data(), n, ++value_);  // the next exchange sends written bytes
    return slowest(t);
  }

  double one_step_allreduce(std::size_t n, bool send_input) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    std::memcpy(result_.data(), input_.data(), n * sizeof(int));
    exchange(send_input ? input_.data() : result_.data(), n);
    sum_into(received_.data(), result_.data(), n);
    return slowest(MPI_Wtime() - t0);
  }

 private:
  int peer_;
  std::vector<int> input_, result_, other_;
  std::vector<int> untouched_;  // written once, before the first exchange
  std::vector<int> received_;
  int value_ = 0;
};

double us(const std::vector<double>& samples) { return median(samples) * 1e6; }

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (Pair::rank() == 0) std::fprintf(stderr, "run on 2 ranks (mpirun -np 2), not %d\n", size);
    MPI_Finalize();
    return 2;
  }
  constexpr std::size_t kSmallest = 4096, kLargest = std::size_t{16} << 20;
  Pair pair(kLargest);
  if (Pair::rank() == 0)
    std::printf(
        "bytes exchange(unwritten,written) copy(other,lent) reduce(other,lent) "
        "one-step-allreduce(sends result,sends input), microseconds\n");
  for (std::size_t bytes = kSmallest; bytes <= kLargest; bytes *= 2) {
    const std::size_t n = bytes / sizeof(int);
    const int times = bytes >= (std::size_t{4} << 20) ? 21 : 101;
    std::vector<std::vector<double>> t(8);
    // Interleaved, so that a drift of the machine hits every measurement of the size alike;
    // round 0 warms up.
    for (int round = 0; round <= times; ++round) {
      const double sample[8] = {pair.timed_exchange(n, false),
                                pair.timed_exchange(n, true),
                                pair.write_after_exchange(n, false, false),
                                pair.write_after_exchange(n, true, false),
                                pair.write_after_exchange(n, false, true),
                                pair.write_after_exchange(n, true, true),
                                pair.one_step_allreduce(n, false),
                                pair.one_step_allreduce(n, true)};
      if (round > 0)
        for (int i = 0; i < 8; ++i) t[i].push_back(sample[i]);
    }
    if (Pair::rank() == 0)
      std::printf("%zu %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f\n", bytes, us(t[0]), us(t[1]),
                  us(t[2]), us(t[3]), us(t[4]), us(t[5]), us(t[6]), us(t[7]));
  }
  MPI_Finalize();
  return 0;
}
