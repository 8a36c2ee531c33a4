#pragma once
// A switch's Canary descriptor table (canary-fgcs24 3.1.3, 3.2): a fixed array indexed by a
// hash of the block id, so two blocks can collide. Optionally partitioned statically among
// tenants (3.2.1, 5.2.4) so that tenants never collide with each other.
#include <array>
#include <cstdint>
#include <vector>

namespace topocoll::sim::packet {

struct Descriptor {
  bool used = false;
  bool fired = false;  // timer expired: the partial result left; later packets are stragglers
  std::uint64_t id = 0;
  double created_s = 0;
  int counter = 0;
  int hosts = 0;
  int dst = 0;                              // leader host
  std::array<std::uint64_t, 4> children{};  // bitmap of ports (radix <= 256)
  std::vector<std::int32_t> accumulator;
};

class DescriptorTable {
 public:
  DescriptorTable(int entries, int tenants, bool partitioned)
      : slots_(static_cast<std::size_t>(entries)), tenants_(tenants), partitioned_(partitioned) {}
  // The entry block `id` of `tenant` maps to.
  Descriptor& slot(std::uint64_t id, int tenant);

 private:
  std::vector<Descriptor> slots_;
  int tenants_;
  bool partitioned_;
};

std::uint64_t mix64(std::uint64_t x);

}  // namespace topocoll::sim::packet
