// The measurement API (topocoll_mpi.h, docs/calibration.md) on 2 or more ranks: the values are
// sane (positive times and rates, non-negative LogGP parameters, one point per size asked
// for), timed collectives give correct results, and bad arguments return an MPI error code
// with a message instead of aborting. Exits 1 naming each failed check.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "topocoll_mpi.h"

namespace {

int failures = 0;
int rank = 0;

void expect(bool ok, const std::string& what) {
  if (ok) return;
  ++failures;
  std::fprintf(stderr, "rank %d: FAILED: %s\n", rank, what.c_str());
}

// The JSON result of a measurement, released.
nlohmann::json taken(char* text) {
  nlohmann::json out = text ? nlohmann::json::parse(text) : nlohmann::json();
  topocoll_free(text);
  return out;
}

void expects_error(int rc, int expected, const std::string& what) {
  int cls = rc;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  expect(cls == expected,
         what + ": error class " + std::to_string(cls) + ", wanted " + std::to_string(expected));
  expect(std::string(topocoll_measure_error()).size() > 0, what + ": no message");
}

void loggp(int size) {
  const char* options =
      R"({"repetitions": 5, "warmup": 1, "pingpong_sizes": [0, 8, 1024, 65536, 131072],
          "train_sizes": [8, 1024], "train_counts": [1, 4, 8]})";
  char* text = nullptr;
  const int rc = topocoll_measure_loggp(MPI_COMM_WORLD, 0, size - 1, options, &text);
  expect(rc == MPI_SUCCESS, "measure_loggp: " + std::string(topocoll_measure_error()));
  const nlohmann::json r = taken(text);
  if (rc != MPI_SUCCESS) return;
  expect(std::string(topocoll_measure_error()).empty(), "measure_loggp: error after success");
  expect(r["half_round_trip_s"].get<double>() > 0, "half round trip > 0");
  expect(r["latency_s"].get<double>() >= 0, "latency >= 0");
  expect(r["latency_s"].get<double>() <= r["half_round_trip_s"].get<double>(),
         "latency <= half round trip");
  expect(r["send_overhead_s"].get<double>() >= 0, "o_send >= 0");
  expect(r["recv_overhead_s"].get<double>() >= 0, "o_recv >= 0");
  expect(r["gap_s"].get<double>() >= 0, "g >= 0");
  expect(r["per_byte_s"].get<double>() >= 0, "G >= 0");
  expect(r["pingpong_bandwidth_Bps"].is_null() || r["pingpong_bandwidth_Bps"].get<double>() > 0,
         "ping-pong bandwidth > 0");
  expect(r["points"]["pingpong"].size() == 5, "one ping-pong point per size");
  expect(r["points"]["trains"].size() == 6, "one train point per size and count");
  expect(r["peers"] == nlohmann::json::array({0, size - 1}), "peers named");
  expect(r["same_node"].is_boolean(), "same_node");
  for (const auto& p : r["points"]["pingpong"])
    expect(p["half_round_trip_s"].get<double>() > 0, "every ping-pong time > 0");
}

void loggp_errors(int size) {
  char* text = nullptr;
  expects_error(topocoll_measure_loggp(MPI_COMM_NULL, 0, 1, nullptr, &text), MPI_ERR_COMM,
                "MPI_COMM_NULL");
  expects_error(topocoll_measure_loggp(MPI_COMM_SELF, 0, 1, nullptr, &text), MPI_ERR_COMM,
                "one rank");
  expects_error(topocoll_measure_loggp(MPI_COMM_WORLD, 0, size, nullptr, &text), MPI_ERR_RANK,
                "peer out of range");
  expects_error(topocoll_measure_loggp(MPI_COMM_WORLD, 1, 1, nullptr, &text), MPI_ERR_RANK,
                "same peers");
  expects_error(topocoll_measure_loggp(MPI_COMM_WORLD, 0, 1, "{not json", &text), MPI_ERR_ARG,
                "malformed options");
  expects_error(topocoll_measure_loggp(MPI_COMM_WORLD, 0, 1, R"({"reps": 3})", &text), MPI_ERR_ARG,
                "unknown option");
  expects_error(topocoll_measure_loggp(MPI_COMM_WORLD, 0, 1, R"({"train_sizes": [8, 4]})", &text),
                MPI_ERR_ARG, "descending sizes");
  expects_error(topocoll_measure_loggp(MPI_COMM_WORLD, 0, 1, nullptr, nullptr), MPI_ERR_ARG,
                "NULL result");
  // Ranks that disagree get the same error everywhere (no hang).
  expects_error(topocoll_measure_loggp(MPI_COMM_WORLD, 0, rank == 0 ? 1 : 0, nullptr, &text),
                MPI_ERR_ARG, "ranks disagree");
}

void host() {
  char* text = nullptr;
  const int rc =
      topocoll_measure_host(R"({"bytes": 262144, "repetitions": 3, "warmup": 1})", &text);
  expect(rc == MPI_SUCCESS, "measure_host: " + std::string(topocoll_measure_error()));
  const nlohmann::json r = taken(text);
  if (rc != MPI_SUCCESS) return;
  for (const char* k : {"copy", "pack", "unpack"})
    expect(r[k]["rate_Bps"].get<double>() > 0, std::string(k) + " rate > 0");
  for (const char* k : {"char", "int", "int64", "float", "double"})
    expect(r["reduce"][k]["rate_Bps"].get<double>() > 0, std::string("reduce ") + k + " rate > 0");
  expects_error(topocoll_measure_host(R"({"bytes": 0})", &text), MPI_ERR_ARG, "bytes 0");
  expects_error(topocoll_measure_host("[1]", &text), MPI_ERR_ARG, "options not an object");
}

void collectives() {
  const char* all[] = {"allreduce",      "reduce_scatter_block",
                       "reduce_scatter", "allgather",
                       "bcast",          "reduce",
                       "gather",         "scatter",
                       "alltoall"};
  for (const char* c : all)
    for (const char* algorithm : {"auto", "mpi"}) {
      std::vector<double> times(3, -1);
      MPI_Count wrong = -1;
      const int rc = topocoll_time_collective(MPI_COMM_WORLD, c, algorithm, 4096 + 12, 1, 3,
                                              times.data(), &wrong);
      const std::string what = std::string(c) + " " + algorithm;
      expect(rc == MPI_SUCCESS, what + ": " + topocoll_measure_error());
      expect(wrong == 0, what + ": wrong elements " + std::to_string(wrong));
      for (double t : times) expect(t > 0, what + ": time > 0");
    }
  // A named algorithm runs, as TOPOCOLL_ALLREDUCE_ALGORITHM would select it.
  std::vector<double> times(4, -1);
  MPI_Count wrong = -1;
  int rc = topocoll_time_collective(MPI_COMM_WORLD, "allreduce", "ring", 65536, 0, 4, times.data(),
                                    &wrong);
  expect(rc == MPI_SUCCESS && wrong == 0,
         std::string("ring allreduce: ") + topocoll_measure_error());
  expect(std::string(topocoll_last_algorithm()) == "ring", "ring served the calls");
  for (double t : times) expect(t > 0, "ring: time > 0");
  // Zero bytes is a valid call.
  rc = topocoll_time_collective(MPI_COMM_WORLD, "allgather", "auto", 0, 0, 2, times.data(), &wrong);
  expect(rc == MPI_SUCCESS && wrong == 0, "allgather of 0 bytes");

  expects_error(
      topocoll_time_collective(MPI_COMM_WORLD, "allreduse", "auto", 64, 0, 1, times.data(), &wrong),
      MPI_ERR_ARG, "unknown collective");
  expects_error(topocoll_time_collective(MPI_COMM_WORLD, "allreduce", "no-such-algorithm", 64, 0, 1,
                                         times.data(), &wrong),
                MPI_ERR_ARG, "unknown algorithm");
  expects_error(
      topocoll_time_collective(MPI_COMM_WORLD, "allreduce", "auto", 64, 0, 0, times.data(), &wrong),
      MPI_ERR_ARG, "no repetitions");
  expects_error(
      topocoll_time_collective(MPI_COMM_WORLD, "allreduce", "auto", -1, 0, 1, times.data(), &wrong),
      MPI_ERR_COUNT, "negative bytes");
  expects_error(
      topocoll_time_collective(MPI_COMM_WORLD, "allreduce", "auto", 64, 0, 1, nullptr, &wrong),
      MPI_ERR_ARG, "NULL times");
  expects_error(
      topocoll_time_collective(MPI_COMM_NULL, "allreduce", "auto", 64, 0, 1, times.data(), &wrong),
      MPI_ERR_COMM, "MPI_COMM_NULL");
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  loggp(size);
  loggp_errors(size);
  host();
  collectives();
  int total = failures;
  MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("measurement: %d failed check(s)\n", total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
