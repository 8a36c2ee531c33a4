#include "topology/input_file.hpp"

#include "core/bounded_file.hpp"
#include "core/registry.hpp"

namespace topocoll::topo {

std::string read_input_file(const std::string& path, std::string_view what,
                            std::uint64_t max_bytes) {
  std::string text = read_bounded_file(path, what, max_bytes);
  std::size_t bad_at = 0;
  if (!is_utf8(text, &bad_at)) {
    throw UnsupportedRequest(std::string(what) + " '" + printable(path) +
                             "': not UTF-8 text (byte " + std::to_string(bad_at) +
                             "); accepted: a UTF-8 text file");
  }
  return text;
}

}  // namespace topocoll::topo
