#include "report.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace topocoll::bench {

void Report::begin_algorithm(const std::string& name) {
  if (json_) return;
  if (rows_.empty() && skips_.empty())
    std::printf(
        "# topocoll-bench: %s on %d ranks, %d iterations after %d warm-up, check %d\n"
        "# time: average over iterations of the slowest rank's time\n",
        header_.collective.c_str(), header_.ranks, header_.iterations, header_.warmup,
        header_.check ? 1 : 0);
  std::printf("#\n# algorithm %s\n", name.c_str());
  std::printf("# %10s %12s %8s %6s %6s %12s %12s %12s %8s\n", "size", "count", "type", "redop",
              "root", "time(us)", "algbw(GB/s)", "busbw(GB/s)", "#wrong");
  std::fflush(stdout);
}

void Report::add(const Row& row) {
  rows_.push_back(row);
  if (json_) return;
  if (row.served_by != row.algorithm)
    std::printf("# %s ran %s at %llu bytes\n", row.algorithm.c_str(), row.served_by.c_str(),
                static_cast<unsigned long long>(row.bytes));
  const std::string wrong = row.checked ? std::to_string(row.wrong) : "N/A";
  std::printf("  %10llu %12llu %8s %6s %6d %12.2f %12.3f %12.3f %8s\n",
              static_cast<unsigned long long>(row.bytes),
              static_cast<unsigned long long>(row.count), row.type.c_str(), row.redop.c_str(),
              row.root, row.time_us, row.algbw, row.busbw, wrong.c_str());
  std::fflush(stdout);
}

void Report::skip(const Skip& skip) {
  skips_.push_back(skip);
  if (json_) return;
  std::printf("# %s at %llu bytes not run: %s\n", skip.algorithm.c_str(),
              static_cast<unsigned long long>(skip.bytes), skip.reason.c_str());
  std::fflush(stdout);
}

void Report::finish() {
  std::uint64_t wrong = 0;
  for (const auto& r : rows_) wrong += r.wrong;
  if (!json_) {
    std::printf("#\n# %s: %zu measurements, %zu not run, %llu wrong elements\n",
                wrong ? "FAIL" : "OK", rows_.size(), skips_.size(),
                static_cast<unsigned long long>(wrong));
    return;
  }
  nlohmann::json doc{{"collective", header_.collective}, {"ranks", header_.ranks},
                     {"iterations", header_.iterations}, {"warmup", header_.warmup},
                     {"check", header_.check},           {"wrong", wrong}};
  doc["results"] = nlohmann::json::array();
  for (const auto& r : rows_)
    doc["results"].push_back({{"algorithm", r.algorithm},
                              {"served_by", r.served_by},
                              {"size", r.bytes},
                              {"count", r.count},
                              {"type", r.type},
                              {"redop", r.redop},
                              {"root", r.root},
                              {"time_us", r.time_us},
                              {"time_median_us", r.median_us},
                              {"time_min_us", r.min_us},
                              {"algbw_gbps", r.algbw},
                              {"busbw_gbps", r.busbw},
                              {"wrong", r.checked ? nlohmann::json(r.wrong) : nlohmann::json()}});
  doc["not_run"] = nlohmann::json::array();
  for (const auto& s : skips_)
    doc["not_run"].push_back({{"algorithm", s.algorithm}, {"size", s.bytes}, {"reason", s.reason}});
  std::printf("%s\n", doc.dump(2).c_str());
}

}  // namespace topocoll::bench
