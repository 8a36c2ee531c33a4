#include "measure_support.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace topocoll::mpi::measuring {
namespace {

thread_local std::string last_error;

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

void set_error(const std::string& message) { last_error = message; }
const char* error_text() { return last_error.c_str(); }

nlohmann::json options_object(const char* text, const std::vector<std::string>& accepted) {
  if (!text || !*text) return nlohmann::json::object();
  nlohmann::json options = nlohmann::json::parse(text, nullptr, false);
  if (options.is_discarded() || !options.is_object())
    throw BadArgument(MPI_ERR_ARG,
                      "options_json is not a JSON object; accepted keys: " + joined(accepted));
  for (const auto& item : options.items())
    if (std::find(accepted.begin(), accepted.end(), item.key()) == accepted.end())
      throw BadArgument(MPI_ERR_ARG,
                        "unknown option '" + item.key() + "'; accepted: " + joined(accepted));
  return options;
}

std::int64_t positive(const nlohmann::json& options, const char* key, std::int64_t fallback,
                      std::int64_t largest) {
  if (!options.contains(key)) return fallback;
  const auto& v = options[key];
  if (!v.is_number_integer() || v.get<std::int64_t>() < 1 || v.get<std::int64_t>() > largest)
    throw BadArgument(MPI_ERR_ARG, std::string("option '") + key +
                                       "' must be an integer from 1 to " + std::to_string(largest));
  return v.get<std::int64_t>();
}

std::vector<std::uint64_t> sizes(const nlohmann::json& options, const char* key,
                                 std::vector<std::uint64_t> fallback, std::uint64_t largest) {
  if (!options.contains(key)) return fallback;
  const auto& v = options[key];
  std::vector<std::uint64_t> out;
  const std::string rule = std::string("option '") + key +
                           "' must be a non-empty ascending list of integers from 0 to " +
                           std::to_string(largest);
  if (!v.is_array() || v.empty()) throw BadArgument(MPI_ERR_ARG, rule);
  for (const auto& x : v) {
    if (!x.is_number_integer() || x.get<std::int64_t>() < 0 || x.get<std::uint64_t>() > largest ||
        (!out.empty() && x.get<std::uint64_t>() <= out.back()))
      throw BadArgument(MPI_ERR_ARG, rule);
    out.push_back(x.get<std::uint64_t>());
  }
  return out;
}

char* allocated(const std::string& text) {
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (!out) throw std::bad_alloc();
  std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
}

PrivateComm::PrivateComm(MPI_Comm user, int min_ranks) {
  if (user == MPI_COMM_NULL) throw BadArgument(MPI_ERR_COMM, "comm is MPI_COMM_NULL");
  int inter = 0;
  if (PMPI_Comm_test_inter(user, &inter) != MPI_SUCCESS || inter)
    throw BadArgument(MPI_ERR_COMM, "comm must be an intracommunicator");
  PMPI_Comm_size(user, &size_);
  if (size_ < min_ranks)
    throw BadArgument(MPI_ERR_COMM, "comm has " + std::to_string(size_) +
                                        " rank(s); this measurement needs at least " +
                                        std::to_string(min_ranks));
  check(PMPI_Comm_dup(user, &comm_), "MPI_Comm_dup");
  PMPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  PMPI_Comm_rank(comm_, &rank_);
}

PrivateComm::~PrivateComm() {
  if (comm_ != MPI_COMM_NULL) PMPI_Comm_free(&comm_);
}

void require_agreement(MPI_Comm comm, const std::vector<std::int64_t>& values,
                       const std::string& what) {
  std::vector<std::int64_t> low(values), high(values);
  const int n = static_cast<int>(values.size());
  check(PMPI_Allreduce(MPI_IN_PLACE, low.data(), n, MPI_INT64_T, MPI_MIN, comm), "MPI_Allreduce");
  check(PMPI_Allreduce(MPI_IN_PLACE, high.data(), n, MPI_INT64_T, MPI_MAX, comm), "MPI_Allreduce");
  if (low != high) throw BadArgument(MPI_ERR_ARG, "the ranks passed different " + what);
}

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  PMPI_Error_string(rc, text, &length);
  throw std::runtime_error(std::string(what) + " failed: " + text);
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  if (values.size() % 2) return *middle;
  const double upper = *middle;
  return (*std::max_element(values.begin(), middle) + upper) / 2;
}

Line fit(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
  }
  const double d = n * sxx - sx * sx;
  if (n == 0 || d == 0) return {n > 0 ? sy / n : 0, 0};
  const double slope = (n * sxy - sx * sy) / d;
  return {(sy - slope * sx) / n, slope};
}

}  // namespace topocoll::mpi::measuring
