#pragma once
// What the measurement functions share: their errors, their options (JSON objects whose
// unknown keys are refused), a private communicator whose errors return, and statistics.
#include <mpi.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace topocoll::mpi::measuring {

// A bad argument: the call returns `code` with the message as measure_error().
struct BadArgument : std::runtime_error {
  BadArgument(int code, const std::string& what) : std::runtime_error(what), code(code) {}
  int code;
};

void set_error(const std::string& message);
[[nodiscard]] const char* error_text();

// Runs `body`, turning exceptions into error codes and messages; clears the error first.
template <typename F>
int guarded(F&& body) {
  set_error("");
  try {
    return body();
  } catch (const BadArgument& e) {
    set_error(e.what());
    return e.code;
  } catch (const std::bad_alloc&) {
    set_error("out of memory");
    return MPI_ERR_NO_MEM;
  } catch (const std::exception& e) {
    set_error(e.what());
    return MPI_ERR_INTERN;
  }
}

// Parses `text` (nullptr or "" for {}) as a JSON object with only the keys `accepted`.
nlohmann::json options_object(const char* text, const std::vector<std::string>& accepted);
// options[key] as a positive integer, or `fallback` when absent.
std::int64_t positive(const nlohmann::json& options, const char* key, std::int64_t fallback,
                      std::int64_t largest);
// options[key] as a non-empty, ascending list of non-negative integers, or `fallback`.
std::vector<std::uint64_t> sizes(const nlohmann::json& options, const char* key,
                                 std::vector<std::uint64_t> fallback, std::uint64_t largest);

// `text` copied into memory from malloc (released with topocoll_free).
char* allocated(const std::string& text);

// A duplicate of a user's intracommunicator whose errors are returned to the caller.
class PrivateComm {
 public:
  // Throws BadArgument for MPI_COMM_NULL, an intercommunicator, or fewer than `min_ranks`.
  PrivateComm(MPI_Comm user, int min_ranks);
  ~PrivateComm();
  PrivateComm(const PrivateComm&) = delete;
  PrivateComm& operator=(const PrivateComm&) = delete;
  [[nodiscard]] MPI_Comm get() const { return comm_; }
  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 0;
};

// Throws BadArgument(MPI_ERR_ARG) unless every rank of comm passed the same `values`.
void require_agreement(MPI_Comm comm, const std::vector<std::int64_t>& values,
                       const std::string& what);
// Throws std::runtime_error naming `what` unless rc is MPI_SUCCESS.
void check(int rc, const char* what);

[[nodiscard]] double median(std::vector<double> values);
// Least squares fit y = intercept + slope * x.
struct Line {
  double intercept = 0, slope = 0;
};
[[nodiscard]] Line fit(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace topocoll::mpi::measuring
