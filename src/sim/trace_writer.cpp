#include "sim/trace_writer.hpp"

#include <cstdio>

#include "core/registry.hpp"

namespace topocoll::sim {

TraceWriter::TraceWriter(const std::string& path, int ranks) : path_(path), out_(path) {
  if (!out_) throw UnsupportedRequest("cannot write the trace file '" + path + "'");
  out_ << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  out_ << R"({"ph":"M","pid":0,"name":"process_name","args":{"name":"topocoll simulation"}})";
  for (int r = 0; r < ranks; ++r)
    out_ << ",\n{\"ph\":\"M\",\"pid\":0,\"tid\":" << r
         << ",\"name\":\"thread_name\",\"args\":{\"name\":\"rank " << r << "\"}}";
}

TraceWriter::~TraceWriter() {
  if (!closed_) {  // abandoned run (an exception): leave no half-written file behind
    out_.close();
    std::remove(path_.c_str());
  }
}

void TraceWriter::message(int sender, int receiver, double bytes, double start_s, double end_s) {
  if (++slices_ > kMaxSlices) {
    out_.close();
    std::remove(path_.c_str());
    closed_ = true;
    throw UnsupportedRequest("the trace would hold more than " + std::to_string(kMaxSlices) +
                             " messages; trace a smaller run (fewer ranks or a shorter "
                             "schedule) or leave the trace out");
  }
  char buf[192];
  // Trace timestamps are microseconds.
  std::snprintf(buf, sizeof buf,
                ",\n{\"ph\":\"X\",\"pid\":0,\"tid\":%d,\"ts\":%.6f,\"dur\":%.6f,"
                "\"name\":\"to %d, %.0f B\"}",
                sender, start_s * 1e6, (end_s - start_s) * 1e6, receiver, bytes);
  out_ << buf;
}

void TraceWriter::close() {
  if (closed_) return;
  out_ << "\n]}\n";
  out_.close();
  closed_ = true;
  if (!out_) throw UnsupportedRequest("could not finish writing the trace file '" + path_ + "'");
}

}  // namespace topocoll::sim
