#pragma once
// Chrome trace-event JSON (loadable in Perfetto and chrome://tracing): one track per rank,
// one complete ("X") slice per message from its posting to the arrival of its last byte.
// Written as the run goes, so memory does not grow with the trace; bounded by a slice limit
// that is checked as slices arrive.
#include <cstdint>
#include <fstream>
#include <string>

namespace topocoll::sim {

class TraceWriter {
 public:
  static constexpr std::uint64_t kMaxSlices = 2'000'000;  // ~200 MB of JSON

  // Throws UnsupportedRequest when the file cannot be written.
  TraceWriter(const std::string& path, int ranks);
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // Throws UnsupportedRequest past kMaxSlices (and removes the partial file).
  void message(int sender, int receiver, double bytes, double start_s, double end_s);
  void close();

 private:
  std::string path_;
  std::ofstream out_;
  std::uint64_t slices_ = 0;
  bool closed_ = false;
};

}  // namespace topocoll::sim
