#pragma once
// Output of topocoll-bench: nccl-tests' columns as text, or one JSON document.
#include <cstdint>
#include <string>
#include <vector>

namespace topocoll::bench {

struct Row {
  std::string algorithm;
  std::string served_by;  // what topocoll_last_algorithm() named (differs for auto)
  std::uint64_t bytes = 0, count = 0;
  std::string type, redop;
  int root = -1;
  double time_us = 0, algbw = 0, busbw = 0;
  double median_us = 0, min_us = 0;  // of the per-iteration maxima (JSON only)
  std::uint64_t wrong = 0;
  bool checked = true;
};

struct Skip {
  std::string algorithm;
  std::uint64_t bytes = 0;
  std::string reason;
};

struct Header {
  std::string collective;
  int ranks = 0;
  int iterations = 0, warmup = 0;
  bool check = true;
};

class Report {
 public:
  Report(Header header, bool json) : header_(std::move(header)), json_(json) {}
  void begin_algorithm(const std::string& name);
  void add(const Row& row);
  void skip(const Skip& skip);
  void finish();  // the JSON document, or the text summary line

 private:
  Header header_;
  bool json_;
  std::vector<Row> rows_;
  std::vector<Skip> skips_;
};

}  // namespace topocoll::bench
