#pragma once
// A switch's Canary descriptor table (canary-fgcs24 3.1.3, 3.2): a fixed array indexed by a
// hash of the block id, so two blocks can collide. Optionally partitioned statically among
// tenants (3.2.1, 5.2.4) so that tenants never collide with each other. An entry holds only
// the index of a live descriptor: a table of 32768 entries costs 128 KiB per switch, not a
// descriptor each.
#include <array>
#include <cstdint>
#include <vector>

#include "sim/packet/packet.hpp"

namespace topocoll::sim::packet {

struct Descriptor {
  bool fired = false;  // timer expired: the partial result left; later packets are stragglers
  std::uint64_t id = 0;
  double created_s = 0;
  int counter = 0;
  int hosts = 0;
  int dst = 0;                              // leader host
  std::array<std::uint64_t, 4> children{};  // bitmap of ports (radix <= 256)
  std::uint32_t accumulator = kNone;        // payload handle
};

class DescriptorTable {
 public:
  DescriptorTable(int entries, int tenants, bool partitioned)
      : slots_(static_cast<std::size_t>(entries), kNone),
        tenants_(tenants),
        partitioned_(partitioned) {}
  // The descriptor in the entry block `id` of `tenant` maps to (maybe another block's), or
  // nullptr when the entry is free.
  Descriptor* at(std::uint64_t id, int tenant) {
    const std::uint32_t s = slots_[index(id, tenant)];
    return s == kNone ? nullptr : &store_[s];
  }
  // Takes the (free) entry of `id` for a new descriptor.
  Descriptor& allocate(std::uint64_t id, int tenant);
  // Frees the entry of `id`; the caller releases the accumulator.
  void free(std::uint64_t id, int tenant);
  // Payload handles of every live descriptor (to release them when the switch fails).
  [[nodiscard]] std::vector<std::uint32_t> accumulators() const;

 private:
  [[nodiscard]] std::size_t index(std::uint64_t id, int tenant) const;
  std::vector<std::uint32_t> slots_;  // kNone or an index into store_
  std::vector<Descriptor> store_;
  std::vector<std::uint32_t> free_;
  int tenants_;
  bool partitioned_;
};

std::uint64_t mix64(std::uint64_t x);

}  // namespace topocoll::sim::packet
