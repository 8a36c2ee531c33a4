// Proves that TOPOCOLL_SEGMENT_BYTES pipelines the messages of reducing collectives, by what
// the runtime does through PMPI (p2p_counter.cpp counts its PMPI_Isend / PMPI_Irecv messages
// and its PMPI_Reduce_local calls, with the messages still in flight at each reduction).
// Every case runs with TOPOCOLL_SEGMENT_BYTES=0 (whole messages, some larger than a segment,
// or the case proves nothing) and then with segments; with segments:
// - every message of b bytes is exactly ceil(b / piece) messages of at most `piece` bytes
//   (piece: the largest whole number of elements within the segment), on both sides;
// - one-lane plans reduce the received data segment by segment: no reduction larger than a piece,
// the
//   same bytes reduced in all, and (one-lane algorithms) some reduction ran while messages of
//   its step were in flight, where without segments none did;
// - the result has the same bytes as without segments (floats whose sum depends on the order,
//   a non-commutative operator) and is right.
// A collective that does not reduce (bcast) keeps its messages whole. Any failure names the
// rank and the case.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

bool everywhere(bool mine, MPI_Op op) {
  int v = mine ? 1 : 0;
  PMPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, op, MPI_COMM_WORLD);
  return v != 0;
}

// An affine map x -> a x + b; composing them is associative, not commutative.
struct Affine {
  unsigned a, b;
};

// MPI's user operator contract: inout[i] = in[i] ∘ inout[i], here "apply in, then inout".
void compose(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* x = static_cast<const Affine*>(in);
  auto* y = static_cast<Affine*>(inout);
  for (int i = 0; i < *len; ++i) y[i] = {x[i].a * y[i].a, y[i].a * x[i].b + y[i].b};
}

enum class Data { ints, floats, affine };

struct Case {
  std::string collective;  // allreduce, reduce_scatter_block, bcast
  std::string algorithm;
  Data data;
  int count;  // elements per rank (per block for reduce_scatter_block)
  // Whether reductions must be seen per segment, overlapping messages in flight (plans of
  // several lanes cut their messages but reduce at the end of each step).
  bool one_lane = true;
};

struct Observed {
  std::vector<long long> sent, received, reductions;
  long long overlapped = 0;  // reductions that ran with messages in flight
  std::vector<char> result;
  bool right = false;
};

MPI_Datatype affine_type() {
  static MPI_Datatype type = MPI_DATATYPE_NULL;
  if (type == MPI_DATATYPE_NULL) {
    MPI_Type_contiguous(2, MPI_UNSIGNED, &type);
    MPI_Type_commit(&type);
  }
  return type;
}

MPI_Datatype type_of(Data d) {
  return d == Data::ints ? MPI_INT : d == Data::floats ? MPI_FLOAT : affine_type();
}

// Rank- and element-dependent inputs; floats of magnitudes 2^-10 .. 2^10 so that their sum
// depends on the order of the additions.
int int_value(int rank, int i) { return rank * 1000 + i % 997; }
float float_value(int rank, int i) {
  return std::ldexp(1.0f + static_cast<float>((rank * 7919 + i * 104729) % 1000) / 997.0f,
                    (rank * 3 + i) % 21 - 10);
}
Affine affine_value(int rank, int i) {
  return {static_cast<unsigned>(2 * (rank + i) + 1), static_cast<unsigned>(rank * 31 + i)};
}

template <typename T, typename F>
void fill_with(int n, std::vector<char>& out, F value) {
  out.resize(static_cast<std::size_t>(n) * sizeof(T));
  auto* v = reinterpret_cast<T*>(out.data());
  for (int i = 0; i < n; ++i) v[i] = value(i);
}

void fill(Data d, int rank, int n, std::vector<char>& out) {
  if (d == Data::ints) fill_with<int>(n, out, [&](int i) { return int_value(rank, i); });
  if (d == Data::floats) fill_with<float>(n, out, [&](int i) { return float_value(rank, i); });
  if (d == Data::affine) fill_with<Affine>(n, out, [&](int i) { return affine_value(rank, i); });
}

// Whether element i of the reduction over all ranks (rank order) is `got`.
bool right_element(Data d, int i, const char* got) {
  if (d == Data::ints) {
    int want = 0;
    for (int r = 0; r < size_; ++r) want += int_value(r, i);
    int value = 0;
    std::memcpy(&value, got, sizeof value);
    return value == want;
  }
  if (d == Data::floats) {
    double want = 0;
    for (int r = 0; r < size_; ++r) want += float_value(r, i);
    float value = 0;
    std::memcpy(&value, got, sizeof value);
    return std::fabs(value - want) <= 1e-5 * std::fabs(want);
  }
  Affine want{1, 0};
  for (int r = 0; r < size_; ++r) {
    const Affine x = affine_value(r, i);
    want = {want.a * x.a, x.a * want.b + x.b};  // ranks in order: rank 0's map first
  }
  Affine value{};
  std::memcpy(&value, got, sizeof value);
  return value.a == want.a && value.b == want.b;
}

std::vector<long long> posted(bool send) {
  std::vector<long long> out;
  for (int i = 0; i < p2p_counter_messages(send ? 1 : 0); ++i)
    out.push_back(p2p_counter_bytes(send ? 1 : 0, i));
  return out;
}

Observed run_case(const Case& c, MPI_Op affine_op) {
  Observed o;
  const MPI_Datatype type = type_of(c.data);
  const MPI_Op op = c.data == Data::affine ? affine_op : MPI_SUM;
  const int total = c.collective == "reduce_scatter_block" ? c.count * size_ : c.count;
  std::vector<char> in;
  fill(c.data, rank_, total, in);
  o.result.assign(c.collective == "reduce_scatter_block" ? in.size() / size_ : in.size(), 0);
  p2p_counter_reset();
  int rc = MPI_ERR_OTHER;
  const char* algorithm = c.algorithm.c_str();
  if (c.collective == "allreduce") {
    rc = topocoll_allreduce(in.data(), o.result.data(), c.count, type, op, MPI_COMM_WORLD,
                            algorithm);
  } else if (c.collective == "reduce_scatter_block") {
    rc = topocoll_reduce_scatter_block(in.data(), o.result.data(), c.count, type, op,
                                       MPI_COMM_WORLD, algorithm);
  } else {  // bcast of rank 0's vector
    fill(c.data, 0, total, in);
    if (rank_ == 0) o.result = in;
    rc = topocoll_bcast(o.result.data(), c.count, type, 0, MPI_COMM_WORLD, algorithm);
  }
  o.sent = posted(true);
  o.received = posted(false);
  for (int i = 0; i < p2p_counter_reductions(); ++i) {
    o.reductions.push_back(p2p_counter_reduction_bytes(i));
    o.overlapped += p2p_counter_reduction_in_flight(i) > 0 ? 1 : 0;
  }
  o.right = rc == MPI_SUCCESS && std::string(topocoll_last_algorithm()) == c.algorithm;
  const int element = static_cast<int>(in.size()) / total;
  const int first = c.collective == "reduce_scatter_block" ? rank_ * c.count : 0;
  for (int i = 0; i < static_cast<int>(o.result.size()) / element && o.right; ++i)
    o.right = c.collective == "bcast"
                  ? std::memcmp(&o.result[i * element], &in[i * element], element) == 0
                  : right_element(c.data, first + i, &o.result[i * element]);
  return o;
}

// Whether `cut` is `whole` with every message of b bytes in ceil(b / piece) pieces of at most
// `piece` bytes (as multisets).
bool cut_as_expected(const std::vector<long long>& whole, std::vector<long long> cut,
                     long long piece, std::string& why) {
  std::vector<long long> want;
  for (long long b : whole) {
    long long left = b;
    do {
      want.push_back(std::min(left, piece));
      left -= want.back();
    } while (left > 0);
  }
  std::sort(want.begin(), want.end());
  std::sort(cut.begin(), cut.end());
  if (want == cut) return true;
  why = std::to_string(cut.size()) + " messages, expected " + std::to_string(want.size());
  return false;
}

long long sum(const std::vector<long long>& v) {
  long long s = 0;
  for (long long x : v) s += x;
  return s;
}

void pipeline_case(const Case& c, MPI_Op affine_op, const char* segment, long long bytes) {
  int element = 0;
  MPI_Type_size(type_of(c.data), &element);
  const long long piece = std::max<long long>(bytes / element * element, element);
  const std::string what = c.collective + " " + c.algorithm + " count=" + std::to_string(c.count) +
                           " element=" + std::to_string(element) +
                           "B TOPOCOLL_SEGMENT_BYTES=" + segment;
  setenv("TOPOCOLL_SEGMENT_BYTES", "0", 1);
  const Observed whole = run_case(c, affine_op);
  const long long largest = std::max(
      whole.sent.empty() ? 0 : *std::max_element(whole.sent.begin(), whole.sent.end()),
      whole.received.empty() ? 0 : *std::max_element(whole.received.begin(), whole.received.end()));
  check(whole.right && everywhere(largest > piece, MPI_LOR),
        what + ": without segments right, and some message larger than a piece (" +
            std::to_string(largest) + " > " + std::to_string(piece) + " bytes)");
  setenv("TOPOCOLL_SEGMENT_BYTES", segment, 1);
  const Observed cut = run_case(c, affine_op);
  unsetenv("TOPOCOLL_SEGMENT_BYTES");
  std::string why;
  if (c.collective == "bcast") {
    check(cut.right && cut.sent == whole.sent && cut.received == whole.received,
          what + ": a collective without reductions keeps its messages whole");
    return;
  }
  const bool sends = cut_as_expected(whole.sent, cut.sent, piece, why);
  const bool receives = sends && cut_as_expected(whole.received, cut.received, piece, why);
  check(sends && receives, what + ": " + std::to_string(whole.sent.size()) + " sends became " +
                               std::to_string(cut.sent.size()) + " of at most " +
                               std::to_string(piece) + " bytes" +
                               (why.empty() ? "" : " (" + why + ")"));
  if (c.one_lane) {
    const bool small = std::all_of(cut.reductions.begin(), cut.reductions.end(),
                                   [&](long long b) { return b <= piece; });
    check(small && sum(cut.reductions) == sum(whole.reductions),
          what + ": " + std::to_string(cut.reductions.size()) +
              " reductions of at most a piece, the same " + std::to_string(sum(whole.reductions)) +
              " bytes reduced as without segments");
    check(whole.overlapped == 0, what + ": without segments no reduction overlaps a message");
    // Some rank must have reduced a segment while others of its step were in flight.
    check(everywhere(cut.overlapped > 0, MPI_LOR),
          what + ": with segments reductions overlap messages in flight (" +
              std::to_string(cut.overlapped) + " of " + std::to_string(cut.reductions.size()) +
              " here)");
  }
  check(cut.right && cut.result == whole.result,
        what + ": right, and the same bytes as without segments");
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Op affine_op = MPI_OP_NULL;
  MPI_Op_create(compose, 0, &affine_op);
  // Ring: the reduce-scatter's blocks; recdoub-lat: the whole vector both ways each step (the
  // reduction of a segment waits for the send of the same elements); recdoub-bw: halving;
  // swing-bw: several lanes (cut, reduced at the end of the step).
  pipeline_case({"allreduce", "ring", Data::ints, 30000}, affine_op, "4KiB", 4096);
  pipeline_case({"allreduce", "recdoub-lat", Data::floats, 12000}, affine_op, "4096", 4096);
  pipeline_case({"allreduce", "recdoub-bw", Data::floats, 30000}, affine_op, "3000B", 3000);
  pipeline_case({"allreduce", "recdoub-lat", Data::affine, 6000}, affine_op, "4K", 4096);
  pipeline_case({"reduce_scatter_block", "ring", Data::floats, 8000}, affine_op, "4KiB", 4096);
  pipeline_case({"allreduce", "swing-bw", Data::ints, 30000, false}, affine_op, "4KiB", 4096);
  pipeline_case({"bcast", "binomial-doubling", Data::ints, 30000}, affine_op, "4KiB", 4096);
  MPI_Op_free(&affine_op);
  if (rank_ == 0) std::printf("%d failed checks on %d ranks\n", failures, size_);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
