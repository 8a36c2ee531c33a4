// Throughput of the runtime's own local work on this rank: the copy of contiguous elements
// (copy_elements), packing ranges into a contiguous staging buffer and back (pack_elements /
// unpack_elements, what PackMode::copy does per message), and the reductions
// (reduce_elements: MPI_Reduce_local, as the executor calls it) per datatype class.
#include <vector>

#include "element_type.hpp"
#include "measure.hpp"
#include "measure_support.hpp"

namespace topocoll::mpi {
namespace {

using namespace measuring;
using nlohmann::json;

struct HostSettings {
  std::uint64_t bytes = std::uint64_t{4} << 20;
  std::uint64_t range_bytes = 4096;  // packing: ranges of this size, one range apart
  int repetitions = 20, warmup = 2;
};

HostSettings host_settings_of(const char* options_json) {
  const json o = options_object(options_json, {"bytes", "range_bytes", "repetitions", "warmup"});
  HostSettings s;
  s.bytes = static_cast<std::uint64_t>(positive(o, "bytes", 4 << 20, std::int64_t{1} << 32));
  s.range_bytes = static_cast<std::uint64_t>(
      positive(o, "range_bytes", 4096, static_cast<std::int64_t>(s.bytes)));
  s.repetitions = static_cast<int>(positive(o, "repetitions", s.repetitions, 100000));
  s.warmup = static_cast<int>(positive(o, "warmup", s.warmup, 100000));
  return s;
}

// Bytes per second of `once` moving `bytes`, its median over the repetitions.
template <typename F>
json timed(const HostSettings& s, std::uint64_t bytes, F&& once) {
  std::vector<double> t;
  for (int i = 0; i < s.warmup + s.repetitions; ++i) {
    const double t0 = PMPI_Wtime();
    once();
    if (i >= s.warmup) t.push_back(PMPI_Wtime() - t0);
  }
  const double m = median(t);
  return {{"bytes", bytes},
          {"median_s", m},
          {"rate_Bps", m > 0 ? json(static_cast<double>(bytes) / m) : json(nullptr)}};
}

struct TypeClass {
  const char* name;
  MPI_Datatype type;
  const char* mpi_name;
};

json reductions(const HostSettings& s) {
  const TypeClass classes[] = {{"char", MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR"},
                               {"int", MPI_INT, "MPI_INT"},
                               {"int64", MPI_INT64_T, "MPI_INT64_T"},
                               {"float", MPI_FLOAT, "MPI_FLOAT"},
                               {"double", MPI_DOUBLE, "MPI_DOUBLE"}};
  json out = json::object();
  for (const TypeClass& c : classes) {
    const ElementType type = ElementType::of(c.type);
    const std::uint64_t n = s.bytes / type.size;
    std::vector<char> in(n * type.size, 0), inout(n * type.size, 0);  // zeros: no overflow
    json r = timed(s, n * type.size, [&] {
      check(reduce_elements(in.data(), inout.data(), n, type, MPI_SUM), "MPI_Reduce_local");
    });
    r["datatype"] = c.mpi_name;
    r["op"] = "MPI_SUM";
    out[c.name] = r;
  }
  return out;
}

}  // namespace

int measure_host(const char* options_json, char** result_json) {
  return guarded([&] {
    if (!result_json) throw BadArgument(MPI_ERR_ARG, "result_json is NULL");
    *result_json = nullptr;
    int initialized = 0, finalized = 0;
    PMPI_Initialized(&initialized);
    PMPI_Finalized(&finalized);
    if (!initialized || finalized) throw BadArgument(MPI_ERR_OTHER, "MPI is not initialized");
    const HostSettings s = host_settings_of(options_json);
    const ElementType bytes = ElementType::bytes();
    std::vector<char> from(s.bytes, 1), to(s.bytes, 0), staging(s.bytes / 2 + s.range_bytes);
    json result = json::object();
    result["copy"] =
        timed(s, s.bytes, [&] { copy_elements(to.data(), from.data(), s.bytes, bytes); });
    // Every other range of `range_bytes` into the staging buffer, then back.
    const std::uint64_t ranges = s.bytes / (2 * s.range_bytes);
    const std::uint64_t moved = ranges * s.range_bytes;
    result["pack"] = timed(s, moved, [&] {
      for (std::uint64_t r = 0; r < ranges; ++r)
        pack_elements(staging.data() + r * s.range_bytes, from.data() + 2 * r * s.range_bytes,
                      s.range_bytes, bytes);
    });
    result["unpack"] = timed(s, moved, [&] {
      for (std::uint64_t r = 0; r < ranges; ++r)
        unpack_elements(to.data() + 2 * r * s.range_bytes, staging.data() + r * s.range_bytes,
                        s.range_bytes, bytes);
    });
    result["pack"]["range_bytes"] = s.range_bytes;
    result["unpack"]["range_bytes"] = s.range_bytes;
    result["reduce"] = reductions(s);
    result["repetitions"] = s.repetitions;
    *result_json = allocated(result.dump());
    return MPI_SUCCESS;
  });
}

}  // namespace topocoll::mpi
