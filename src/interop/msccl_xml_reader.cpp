// Reads an MSCCL XML algorithm with expat (a streaming parser: no tree, bounded memory per
// element, and its own protection against entity expansion attacks).
#include <expat.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "core/schedule_io.hpp"
#include "core/text.hpp"
#include "interop/msccl_xml.hpp"

namespace topocoll {
namespace {

using Attributes = std::map<std::string, std::string, std::less<>>;

std::string place(int line) { return "MSCCL XML line " + std::to_string(line) + ": "; }

class Reader {
 public:
  MscclAlgo algo;
  std::string error;
  XML_Parser parser = nullptr;

  void start(std::string_view name, const XML_Char** raw) {
    if (!error.empty()) return;
    Attributes attrs;
    for (int i = 0; raw[i] != nullptr; i += 2) attrs.emplace(raw[i], raw[i + 1]);
    line_ = static_cast<int>(XML_GetCurrentLineNumber(parser));
    try {
      refuse_unknown_attributes(name, attrs);
      open(name, attrs);
    } catch (const ScheduleFormatError& e) {
      fail(e.what());
    }
  }
  void end() {
    if (error.empty() && depth_ > 0) --depth_;
  }
  void fail(std::string message) {
    if (error.empty()) error = std::move(message);
    XML_StopParser(parser, XML_FALSE);
  }

 private:
  int depth_ = 0;  // 0 outside <algo>, 1 in algo, 2 in gpu, 3 in tb, 4 in step
  int line_ = 0;
  bool seen_algo_ = false;

  [[noreturn]] void bad(const std::string& what) const {
    throw ScheduleFormatError(place(line_) + what);
  }

  std::int64_t number(const Attributes& a, std::string_view element, const char* key,
                      std::int64_t low, std::int64_t high, std::optional<std::int64_t> fallback) {
    const auto it = a.find(key);
    if (it == a.end()) {
      if (fallback) return *fallback;
      bad("<" + std::string(element) + "> lacks the attribute '" + key + "'");
    }
    const std::string& text = it->second;
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty())
      bad("<" + std::string(element) + "> attribute '" + key + "' = '" + text.substr(0, 40) +
          "' is not an integer; accepted: " + std::to_string(low) + ".." + std::to_string(high));
    if (value < low || value > high)
      bad("<" + std::string(element) + "> attribute '" + key + "' = " + std::to_string(value) +
          " is out of range; accepted: " + std::to_string(low) + ".." + std::to_string(high));
    return value;
  }
  int small(const Attributes& a, std::string_view element, const char* key, int low, int high,
            std::optional<int> fallback = std::nullopt) {
    return static_cast<int>(number(a, element, key, low, high, fallback));
  }
  std::string text(const Attributes& a, std::string_view element, const char* key,
                   std::optional<std::string> fallback = std::nullopt) {
    const auto it = a.find(key);
    if (it != a.end()) return it->second;
    if (fallback) return *fallback;
    bad("<" + std::string(element) + "> lacks the attribute '" + key + "'");
  }
  char buffer(const Attributes& a, const char* key) {
    const std::string b = text(a, "step", key, "i");
    if (b == "i" || b == "o" || b == "s") return b[0];
    bad("<step> attribute '" + std::string(key) + "' = '" + b.substr(0, 40) +
        "' is not a buffer; accepted: i, o, s");
  }

  // An attribute the reader does not know is refused rather than skipped: a misspelt one
  // ("maxbytes") would otherwise silently drop what it says (the byte range note).
  void refuse_unknown_attributes(std::string_view element, const Attributes& a) const {
    static const std::map<std::string_view, std::vector<std::string_view>> kKnown = {
        {"algo",
         {"name", "proto", "coll", "ngpus", "nchannels", "nchunksperloop", "inplace", "minBytes",
          "maxBytes"}},
        {"gpu", {"id", "i_chunks", "o_chunks", "s_chunks"}},
        {"tb", {"id", "send", "recv", "chan"}},
        {"step",
         {"s", "type", "srcbuf", "srcoff", "dstbuf", "dstoff", "cnt", "depid", "deps", "hasdep"}},
    };
    const auto known = kKnown.find(element);
    if (known == kKnown.end()) return;  // an unexpected element: open() names it
    for (const auto& [key, value] : a) {
      if (std::find(known->second.begin(), known->second.end(), key) != known->second.end())
        continue;
      std::string accepted;
      for (std::string_view k : known->second)
        accepted += (accepted.empty() ? "" : ", ") + std::string(k);
      bad("<" + std::string(element) + "> has an unknown attribute '" +
          printable(key.substr(0, 40)) + "'; accepted: " + accepted);
    }
  }

  void open(std::string_view name, const Attributes& a) {
    static constexpr std::string_view kExpected[] = {"algo", "gpu", "tb", "step"};
    if (depth_ >= 4) bad("<" + std::string(name) + "> inside <step>; a step has no children");
    if (name != kExpected[depth_] || (depth_ == 0 && seen_algo_))
      bad("unexpected <" + std::string(name) + ">; accepted here: <" +
          std::string(kExpected[depth_]) + ">" + (depth_ == 0 ? " (one, the root)" : ""));
    const std::int64_t big = kMscclMaxChunks;
    if (depth_ == 0) {
      seen_algo_ = true;
      algo.name = text(a, name, "name", "");
      algo.proto = text(a, name, "proto", "Simple");
      algo.coll = text(a, name, "coll");
      algo.ngpus = small(a, name, "ngpus", 1, kMscclMaxGpus);
      algo.nchannels = small(a, name, "nchannels", 0, 1 << 16, -1);
      algo.nchunksperloop = number(a, name, "nchunksperloop", 1, big, -1);
      algo.inplace = small(a, name, "inplace", 0, 1, 0) == 1;
      algo.min_bytes = number(a, name, "minBytes", 0, std::numeric_limits<std::int64_t>::max(), -1);
      algo.max_bytes =
          number(a, name, "maxBytes", -1, std::numeric_limits<std::int64_t>::max(), -1);
    } else if (depth_ == 1) {
      if (static_cast<int>(algo.gpus.size()) >= algo.ngpus)
        bad("more <gpu> elements than ngpus = " + std::to_string(algo.ngpus));
      MscclGpu g;
      g.line = line_;
      g.id = small(a, name, "id", 0, algo.ngpus - 1);
      g.i_chunks = number(a, name, "i_chunks", 0, big, 0);
      g.o_chunks = number(a, name, "o_chunks", 0, big, 0);
      g.s_chunks = number(a, name, "s_chunks", 0, big, 0);
      algo.gpus.push_back(std::move(g));
    } else if (depth_ == 2) {
      MscclThreadblock tb;
      tb.line = line_;
      tb.id = small(a, name, "id", 0, 1 << 16);
      tb.send = small(a, name, "send", -1, algo.ngpus - 1);
      tb.recv = small(a, name, "recv", -1, algo.ngpus - 1);
      tb.chan = small(a, name, "chan", 0, 1 << 16, 0);
      algo.gpus.back().tbs.push_back(std::move(tb));
    } else {
      MscclStep st;
      st.line = line_;
      st.s = small(a, name, "s", 0, std::numeric_limits<int>::max());
      st.type = text(a, name, "type").substr(0, 40);
      st.srcbuf = buffer(a, "srcbuf");
      st.dstbuf = buffer(a, "dstbuf");
      st.srcoff = number(a, name, "srcoff", -1, big, -1);
      st.dstoff = number(a, name, "dstoff", -1, big, -1);
      st.cnt = number(a, name, "cnt", 0, big, std::nullopt);
      st.depid = small(a, name, "depid", -1, 1 << 16, -1);
      st.deps = small(a, name, "deps", -1, std::numeric_limits<int>::max(), -1);
      st.hasdep = small(a, name, "hasdep", 0, 1, 0) == 1;
      algo.gpus.back().tbs.back().steps.push_back(std::move(st));
    }
    ++depth_;
  }
};

void XMLCALL on_start(void* data, const XML_Char* name, const XML_Char** attrs) {
  static_cast<Reader*>(data)->start(name, attrs);
}
void XMLCALL on_end(void* data, const XML_Char*) { static_cast<Reader*>(data)->end(); }

}  // namespace

MscclAlgo parse_msccl_xml(std::string_view text) {
  Reader reader;
  std::unique_ptr<XML_ParserStruct, decltype(&XML_ParserFree)> parser(XML_ParserCreate("UTF-8"),
                                                                      &XML_ParserFree);
  if (!parser) throw ScheduleFormatError("MSCCL XML: out of memory creating the parser");
  reader.parser = parser.get();
  XML_SetUserData(parser.get(), &reader);
  XML_SetElementHandler(parser.get(), on_start, on_end);
  constexpr std::size_t kPiece = 1 << 20;  // expat takes int lengths
  std::size_t at = 0;
  do {
    const std::size_t n = std::min(kPiece, text.size() - at);
    const bool last = at + n == text.size();
    if (XML_Parse(parser.get(), text.data() + at, static_cast<int>(n), last) == XML_STATUS_ERROR) {
      if (!reader.error.empty()) throw ScheduleFormatError(reader.error);
      throw ScheduleFormatError(place(static_cast<int>(XML_GetCurrentLineNumber(parser.get()))) +
                                "not well-formed XML (" +
                                XML_ErrorString(XML_GetErrorCode(parser.get())) + ")");
    }
    at += n;
  } while (at < text.size());
  if (!reader.error.empty()) throw ScheduleFormatError(reader.error);
  if (reader.algo.ngpus == 0) throw ScheduleFormatError("MSCCL XML: no <algo> element");
  return std::move(reader.algo);
}

}  // namespace topocoll
