#pragma once
// A switch's Canary descriptor table (canary-fgcs24 3.1.3, 3.2): a fixed array of entries, each
// block id mapped to one entry, so two blocks can collide. How ids map to entries (TableIndex):
// statically (3.2.1 last paragraph and section 6: a share of the table per tenant, consecutive
// sequence numbers in consecutive entries, so blocks collide only when more of them are live
// than the share holds), by a hash salted per switch (collisions independent across switches),
// or by one hash shared by every switch (a colliding block collides at every switch it
// crosses). Hash tables may be partitioned statically among tenants (3.2.1, 5.2.4). An entry
// holds only the index of a live descriptor: a table of 32768 entries costs 128 KiB per switch,
// not a descriptor each.
#include <array>
#include <cstdint>
#include <vector>

#include "sim/innet/innet_config.hpp"
#include "sim/innet/packet.hpp"

namespace topocoll::sim::innet {

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
  // `switch_salt` seeds the per-switch hash; `blocks` is the number of blocks per attempt (the
  // static index numbers a block's attempts after each other: attempt x blocks + block).
  DescriptorTable(int entries, int tenants, bool partitioned, TableIndex mapping,
                  std::uint64_t switch_salt, int blocks)
      : slots_(static_cast<std::size_t>(entries), kNone),
        tenants_(tenants),
        partitioned_(partitioned || mapping == TableIndex::static_slots),
        mapping_(mapping),
        salt_(switch_salt),
        blocks_(static_cast<std::uint64_t>(blocks)) {}
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
  TableIndex mapping_;
  std::uint64_t salt_;
  std::uint64_t blocks_;
};

std::uint64_t mix64(std::uint64_t x);

}  // namespace topocoll::sim::innet
