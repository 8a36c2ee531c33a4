#include "sim/packet/descriptor_table.hpp"

namespace topocoll::sim::packet {

std::uint64_t mix64(std::uint64_t x) {  // splitmix64 finalizer
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

Descriptor& DescriptorTable::slot(std::uint64_t id, int tenant) {
  const std::uint64_t n = slots_.size();
  if (!partitioned_) return slots_[mix64(id) % n];
  const std::uint64_t share = n / static_cast<std::uint64_t>(tenants_);
  return slots_[static_cast<std::uint64_t>(tenant) * share + mix64(id) % share];
}

}  // namespace topocoll::sim::packet
