// Proves that TOPOCOLL_MAX_MESSAGE_BYTES cuts messages, by counting the point-to-point
// messages the runtime posts (p2p_counter.cpp intercepts PMPI_Isend / PMPI_Irecv): each call
// runs once without a limit (its whole messages, some of them larger than the limit, or the
// test proves nothing) and once per spelling of the limit ("4096", "4KiB", "4K", " 4 kib ",
// "0.5KiB" for 512, ...); with a limit every message of b bytes must become exactly
// ceil(b / piece) messages of at most `piece` bytes (piece: the largest whole number of
// elements within the limit, at least one), the bytes must add up, and the result must be
// right. An invalid spelling must leave the messages whole. Any failure names the rank and
// the case.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "agreed_check.hpp"
#include "p2p_counter.h"
#include "topocoll_mpi.h"

namespace {

int rank_ = 0, size_ = 0, failures = 0;

void check(bool ok, const std::string& what) {
  topocoll::mpi_tests::agreed_check(ok, what, rank_, failures);
}

std::vector<long long> posted(bool send) {
  std::vector<long long> out;
  for (int i = 0; i < p2p_counter_messages(send ? 1 : 0); ++i)
    out.push_back(p2p_counter_bytes(send ? 1 : 0, i));
  return out;
}

struct Messages {
  std::vector<long long> sent, received;
};

// One call of the case; false when its result is wrong.
struct Case {
  std::string name;
  std::string algorithm;
  MPI_Datatype type;
  int count;  // elements per rank
};

bool run_case(const Case& c, Messages& out) {
  int element = 0;
  MPI_Type_size(c.type, &element);
  std::vector<char> in(static_cast<std::size_t>(c.count) * 16), result(in.size(), 0);
  bool ok = true;
  p2p_counter_reset();
  if (c.name == "allreduce") {
    // MPI_INT or MPI_DOUBLE_INT data that depends on rank and element: sums, or MAXLOC pairs.
    if (c.type == MPI_INT) {
      auto* v = reinterpret_cast<int*>(in.data());
      for (int i = 0; i < c.count; ++i) v[i] = rank_ * 1000 + i % 997;
      ok = topocoll_allreduce(in.data(), result.data(), c.count, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                              c.algorithm.c_str()) == MPI_SUCCESS;
      const auto* r = reinterpret_cast<const int*>(result.data());
      for (int i = 0; i < c.count && ok; ++i)
        ok = r[i] == 1000 * size_ * (size_ - 1) / 2 + size_ * (i % 997);
    } else {
      struct Pair {
        double value;
        int index;
      };
      auto* v = reinterpret_cast<Pair*>(in.data());
      for (int i = 0; i < c.count; ++i) v[i] = {static_cast<double>((rank_ + i) % size_), rank_};
      ok = topocoll_allreduce(in.data(), result.data(), c.count, MPI_DOUBLE_INT, MPI_MAXLOC,
                              MPI_COMM_WORLD, c.algorithm.c_str()) == MPI_SUCCESS;
      const auto* r = reinterpret_cast<const Pair*>(result.data());
      for (int i = 0; i < c.count && ok; ++i)
        ok = r[i].value == size_ - 1 && r[i].index == ((size_ - 1 - i) % size_ + size_) % size_;
    }
  } else {  // bcast of bytes from rank 0
    auto* v = reinterpret_cast<unsigned char*>(in.data());
    for (int i = 0; i < c.count * element; ++i)
      v[i] = rank_ == 0 ? static_cast<unsigned char>(i % 251) : 0;
    ok = topocoll_bcast(in.data(), c.count, c.type, 0, MPI_COMM_WORLD, c.algorithm.c_str()) ==
         MPI_SUCCESS;
    for (int i = 0; i < c.count * element && ok; ++i) ok = v[i] == i % 251;
  }
  ok = ok && std::string(topocoll_last_algorithm()) == c.algorithm;
  out.sent = posted(true);
  out.received = posted(false);
  return ok;
}

// The same message sizes in any order (lanes interleave, see cut_as_expected).
bool same_messages(std::vector<long long> a, std::vector<long long> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

// Whether `cut` is `whole` with every message of b bytes in ceil(b / piece) pieces of at
// most `piece` bytes. Compared as multisets: the lanes of a multi-port algorithm post their
// steps independently (MPI_Waitsome over lanes), so the messages of different lanes
// interleave differently from one call to the next.
bool cut_as_expected(const std::vector<long long>& whole, const std::vector<long long>& cut,
                     long long piece, std::string& why) {
  std::vector<long long> want;
  for (long long b : whole) {
    long long left = b;
    do {
      want.push_back(left < piece ? left : piece);
      left -= want.back();
    } while (left > 0);
  }
  std::vector<long long> got = cut;
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  if (got.size() != want.size()) {
    why = std::to_string(got.size()) + " messages, expected " + std::to_string(want.size());
    return false;
  }
  for (std::size_t k = 0; k < got.size(); ++k) {
    if (got[k] == want[k]) continue;
    why = "the " + std::to_string(k) + "-th smallest message has " + std::to_string(got[k]) +
          " bytes, expected " + std::to_string(want[k]);
    return false;
  }
  return true;
}

void split_case(const Case& c, const std::vector<std::pair<std::string, long long>>& spellings) {
  int element = 0;
  MPI_Type_size(c.type, &element);
  unsetenv("TOPOCOLL_MAX_MESSAGE_BYTES");
  Messages whole;
  const std::string what = c.name + " " + c.algorithm + " count=" + std::to_string(c.count) +
                           " element=" + std::to_string(element) + "B";
  check(run_case(c, whole), what + " without a limit: right result");
  for (const auto& [text, limit] : spellings) {
    long long piece = limit / element * element;
    if (piece < element) piece = element;
    long long largest = 0;
    for (long long b : whole.sent) largest = b > largest ? b : largest;
    for (long long b : whole.received) largest = b > largest ? b : largest;
    int any_larger = largest > piece ? 1 : 0;
    PMPI_Allreduce(MPI_IN_PLACE, &any_larger, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    check(any_larger, what + ": some message is larger than " + std::to_string(piece) +
                          " bytes (else the limit has nothing to cut)");
    setenv("TOPOCOLL_MAX_MESSAGE_BYTES", text.c_str(), 1);
    Messages cut;
    const bool right = run_case(c, cut);
    std::string why;
    const bool sends = cut_as_expected(whole.sent, cut.sent, piece, why);
    const bool receives = sends && cut_as_expected(whole.received, cut.received, piece, why);
    check(right && sends && receives,
          what + " with TOPOCOLL_MAX_MESSAGE_BYTES='" + text +
              "': " + std::to_string(whole.sent.size()) + " sends became " +
              std::to_string(cut.sent.size()) + " of at most " + std::to_string(piece) +
              " bytes, right result" + (why.empty() ? "" : " (" + why + ")"));
  }
  // A value that is not a byte count is reported and ignored: the messages stay whole.
  setenv("TOPOCOLL_MAX_MESSAGE_BYTES", "4096Q", 1);
  Messages ignored;
  const bool right = run_case(c, ignored);
  check(right && same_messages(ignored.sent, whole.sent) &&
            same_messages(ignored.received, whole.received),
        what + " with TOPOCOLL_MAX_MESSAGE_BYTES='4096Q' (invalid): messages left whole");
  unsetenv("TOPOCOLL_MAX_MESSAGE_BYTES");
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  const std::vector<std::pair<std::string, long long>> spellings = {
      {"4096", 4096}, {"4KiB", 4096},  {"4K", 4096},   {" 4 kib ", 4096},
      {"4KB", 4000},  {"0.5KiB", 512}, {"1000B", 1000}};
  // Ring: contiguous blocks; swing-bw: block sets of several ranges (one hindexed message, cut
  // across its ranges); MPI_DOUBLE_INT: 12-byte elements that no limit above divides.
  split_case({"allreduce", "ring", MPI_INT, 20000}, spellings);
  split_case({"allreduce", "swing-bw", MPI_INT, 20000}, spellings);
  split_case({"allreduce", "recdoub-lat", MPI_DOUBLE_INT, 3000}, spellings);
  split_case({"bcast", "binomial-doubling", MPI_BYTE, 50000}, spellings);
  if (rank_ == 0) std::printf("%d failed checks on %d ranks\n", failures, size_);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
