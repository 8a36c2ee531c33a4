#include "options.hpp"

#include <charconv>
#include <functional>
#include <limits>
#include <map>

#include "runtime/byte_size.hpp"

namespace topocoll::bench {
namespace {

constexpr std::uint64_t kMaxBytes = 1ull << 40;

int parse_int(const std::string& text, const std::string& flag, int min_value) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min_value)
    throw BadFlag(flag + " '" + text + "' is not an integer in " + std::to_string(min_value) +
                  ".." + std::to_string(std::numeric_limits<int>::max()));
  return value;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    parts.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return parts;
}

}  // namespace

std::uint64_t parse_size(const std::string& text, const std::string& flag) {
  // One reading of sizes everywhere (runtime/byte_size.hpp): K, M, G are powers of 2 as in
  // nccl-tests, KB, MB, GB powers of 10.
  const auto bytes = mpi::parse_byte_size(text);
  if (!bytes)
    throw BadFlag(flag + " '" + text + "' is not a size; accepted: " + mpi::kByteSizeSyntax);
  if (*bytes == 0)
    throw BadFlag(flag + " '" + text + "' is not a size the benchmark can run; accepted: " +
                  "at least 1 byte (e.g. 8, 4K, 64MiB)");
  if (*bytes > kMaxBytes)
    throw BadFlag(flag + " '" + text + "' is larger than the 1 TiB the benchmark accepts");
  return *bytes;
}

std::string usage() {
  return "usage: topocoll-bench [-C COLLECTIVE] [--algorithm NAME[,NAME...]] [-b MINBYTES] "
         "[-e MAXBYTES] [-f FACTOR] [-n ITERS] [-w WARMUP] [-d TYPE] [-o OP] [-r ROOT] [-c 0|1] "
         "[--interleave] [--json]\n"
         "  -C, --collective   allreduce, reduce_scatter_block, reduce_scatter, allgather, bcast, "
         "reduce, gather, scatter, alltoall (default allreduce)\n"
         "  --algorithm        topocoll names (`topocoll algorithms`), auto, mpi (the MPI "
         "library's own), file:PATH (a schedule file), ompi-ring, ompi-recdoub, ompi-rabenseifner, "
         "ompi-<coll_tuned name> "
         "(default auto)\n"
         "  -b, --minbytes     smallest message, e.g. 8, 4K, 1M (K/M/G = 2^10/2^20/2^30; default "
         "8)\n"
         "  -e, --maxbytes     largest message (default 64M)\n"
         "  -f, --stepfactor   multiplication factor between sizes (default 2)\n"
         "  -n, --iters        measured iterations per size (default 20)\n"
         "  -w, --warmup_iters discarded iterations per size (default 5)\n"
         "  -d, --datatype     int8, uint8, int16, uint16, int32, uint32, int64, uint64, float, "
         "double (default float)\n"
         "  -o, --op           sum, prod, max, min (default sum)\n"
         "  -r, --root         root of bcast, reduce, gather, scatter (default 0)\n"
         "  -c, --check        1: validate every call (default), 0: no validation\n"
         "  --interleave       alternate the algorithms call by call at each size (fairer on a "
         "shared machine; the tables are printed at the end)\n"
         "  --json             one JSON document instead of the table\n";
}

Options parse_options(const std::vector<std::string>& args) {
  Options options;
  using Setter = std::function<void(const std::string& flag, const std::string& value)>;
  const std::map<std::string, Setter> with_value{
      {"-b", [&](auto& f, auto& v) { options.min_bytes = parse_size(v, f); }},
      {"-e", [&](auto& f, auto& v) { options.max_bytes = parse_size(v, f); }},
      {"-f", [&](auto& f, auto& v) { options.factor = parse_int(v, f, 1); }},
      {"-n", [&](auto& f, auto& v) { options.iterations = parse_int(v, f, 1); }},
      {"-w", [&](auto& f, auto& v) { options.warmup = parse_int(v, f, 0); }},
      {"-d", [&](auto&, auto& v) { options.datatype = v; }},
      {"-o", [&](auto&, auto& v) { options.op = v; }},
      {"-r", [&](auto& f, auto& v) { options.root = parse_int(v, f, 0); }},
      {"-c",
       [&](auto& f, auto& v) {
         if (v != "0" && v != "1") throw BadFlag(f + " '" + v + "' is not 0 or 1");
         options.check = v == "1";
       }},
      {"-C", [&](auto&, auto& v) { options.collective = v; }},
      {"--algorithm",
       [&](auto& f, auto& v) {
         options.algorithms = split_commas(v);
         for (const auto& name : options.algorithms)
           if (name.empty()) throw BadFlag(f + " '" + v + "' has an empty name");
       }},
  };
  const std::map<std::string, std::string> long_names{
      {"--minbytes", "-b"},     {"--maxbytes", "-e"},  {"--stepfactor", "-f"}, {"--iters", "-n"},
      {"--warmup_iters", "-w"}, {"--datatype", "-d"},  {"--op", "-o"},         {"--root", "-r"},
      {"--check", "-c"},        {"--collective", "-C"}};

  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i];
    std::string value;
    bool has_value = false;
    if (flag == "--json") {
      options.json = true;
      continue;
    }
    if (flag == "--interleave") {
      options.interleave = true;
      continue;
    }
    if (flag == "-h" || flag == "--help") {
      options.help = true;
      continue;
    }
    if (auto eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
      has_value = true;
    } else if (flag.size() > 2 && flag[0] == '-' && flag[1] != '-') {
      value = flag.substr(2);  // -b8, as getopt accepts
      flag = flag.substr(0, 2);
      has_value = true;
    }
    const std::string shown = flag;
    if (auto alias = long_names.find(flag); alias != long_names.end()) flag = alias->second;
    auto setter = with_value.find(flag);
    if (setter == with_value.end())
      throw BadFlag(
          "unknown flag '" + args[i] +
          "'; accepted: -b -e -f -n -w -d -o -r -c -C --algorithm --interleave --json --help");
    if (!has_value) {
      if (i + 1 >= args.size()) throw BadFlag(shown + " needs a value");
      value = args[++i];
    }
    setter->second(shown, value);
  }
  if (options.min_bytes > options.max_bytes)
    throw BadFlag("-b " + std::to_string(options.min_bytes) + " is larger than -e " +
                  std::to_string(options.max_bytes));
  // Factor 1 would measure -b alone, not the sizes up to -e that were asked for.
  if (options.factor == 1 && options.min_bytes < options.max_bytes)
    throw BadFlag("-f 1 never grows -b " + std::to_string(options.min_bytes) + " to -e " +
                  std::to_string(options.max_bytes) +
                  "; accepted: -f 2 or more, or -b equal to -e");
  return options;
}

}  // namespace topocoll::bench
