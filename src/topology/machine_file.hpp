#pragma once
// Machine files (format "topocoll-machine/1", docs/host-costs.md): a machine's network
// parameters, host costs and default topology, each value with the source it comes from. A
// file that is not exactly that format is refused with one UnsupportedRequest line naming the
// file, the key and the accepted values.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topology/node_spec.hpp"
#include "topology/topology.hpp"

namespace topocoll::topo {

// Rates measured at one working set (docs/machines.md, "Rates by working set"): the bytes of
// the call's vector per rank and, by the engine's field names, the rates the file gives there
// as seconds per byte (`copy_s_per_byte`, `reduce_s_per_byte` or `reduce_s_per_byte:CLASS`,
// `lent_copy_s_per_byte`, `lent_reduce_s_per_byte`) or
// bytes per second (`bandwidth_bytes_per_s`, `fabric_bandwidth`, `memory_bandwidth`).
struct WorkingSetPoint {
  std::uint64_t bytes = 0;
  std::map<std::string, double, std::less<>> values;
};

struct Machine {
  std::string name;                     // [a-z0-9-]+
  std::string description;              // one line
  std::optional<std::string> topology;  // the default topology spec, when the file gives one
  // The file's values over topocoll's defaults. reduce_s_per_byte holds the single reduction
  // rate when the file gives one; with rates per datatype class it stays 0 and the caller
  // picks a class with params_for().
  NetworkParams params;
  // Seconds per byte of a reduction per datatype class ("float", "double", "int"); empty when
  // the file gives one rate for all (or none).
  std::map<std::string, double, std::less<>> reduce_s_per_byte_by_class;
  // The `nodes` section (docs/nodes.md); unset when the file has none or gives {}.
  std::optional<NodeSpec> nodes;
  // The rates by working set, by increasing bytes; empty when the file gives none.
  std::vector<WorkingSetPoint> working_set;
  // Per value read, its key ("network.bandwidth", "host.gap", "topology") and its source.
  std::map<std::string, std::string, std::less<>> sources;

  // params with the reduction cost of `datatype_class` (one of the classes of the file, when
  // it gives rates per class; anything when it gives one rate). Throws UnsupportedRequest for
  // a class the file does not give.
  [[nodiscard]] NetworkParams params_for(std::string_view datatype_class) const;
};

// The largest machine file read (a machine file is a few kilobytes).
inline constexpr std::uint64_t kMaxMachineFileBytes = std::uint64_t{1} << 20;

// Reads the machine file at `path`. Throws UnsupportedRequest naming the file and the problem.
[[nodiscard]] Machine read_machine_file(const std::string& path);
// The same from text already read; `origin` names it in messages.
[[nodiscard]] Machine parse_machine(std::string_view text, std::string_view origin);

}  // namespace topocoll::topo
