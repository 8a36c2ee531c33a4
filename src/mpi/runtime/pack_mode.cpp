#include "pack_mode.hpp"

#include <cctype>
#include <cstdlib>
#include <string>

#include "config.hpp"

namespace topocoll::mpi {
namespace {

// The faster of the two on this project's measurement (docs/calibration.md, "Packing vs
// derived datatype"). Element types that are not contiguous go as a derived datatype in
// either mode (executor.cpp).
constexpr PackMode kDefault = PackMode::copy;

std::string keyword(const char* text) {
  std::string out;
  for (const char* p = text; *p; ++p)
    if (!std::isspace(static_cast<unsigned char>(*p)))
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(*p)));
  return out;
}

bool verbose() {
  const char* v = std::getenv("TOPOCOLL_VERBOSE");
  if (!v) return false;
  const std::string k = keyword(v);
  return k == "1" || k == "on" || k == "yes" || k == "true";
}

}  // namespace

const char* pack_mode_name(PackMode mode) { return mode == PackMode::copy ? "copy" : "datatype"; }

PackMode pack_mode() {
  PackMode mode = kDefault;
  if (const char* value = std::getenv("TOPOCOLL_PACK"); value && *value) {
    const std::string k = keyword(value);
    if (k == "copy")
      mode = PackMode::copy;
    else if (k == "datatype")
      mode = PackMode::datatype;
    else
      warn_once("TOPOCOLL_PACK='" + std::string(value) +
                "' is not valid; accepted: datatype, copy (default " + pack_mode_name(kDefault) +
                " applies)");
  }
  if (verbose())
    warn_once(std::string("messages of several ranges: TOPOCOLL_PACK=") + pack_mode_name(mode) +
              (mode == PackMode::copy ? " (packed into one contiguous message)"
                                      : " (one hindexed datatype per message)"));
  return mode;
}

}  // namespace topocoll::mpi
