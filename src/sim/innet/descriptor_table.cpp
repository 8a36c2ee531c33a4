#include "sim/innet/descriptor_table.hpp"

namespace topocoll::sim::innet {

std::uint64_t mix64(std::uint64_t x) {  // splitmix64 finalizer
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::size_t DescriptorTable::index(std::uint64_t id, int tenant) const {
  const std::uint64_t n = slots_.size();
  const std::uint64_t share = partitioned_ ? n / static_cast<std::uint64_t>(tenants_) : n;
  const std::uint64_t base = partitioned_ ? static_cast<std::uint64_t>(tenant) * share : 0;
  std::uint64_t key = 0;
  switch (mapping_) {
    case TableIndex::static_slots: {
      // the id's sequence number within its tenant: block ids (attempt, block), block-major
      const std::uint64_t attempt = (id >> 40) & 0xff, block = id & 0xffffffffffULL;
      key = attempt * blocks_ + block;
      break;
    }
    case TableIndex::per_switch_hash: key = mix64(id ^ salt_); break;
    case TableIndex::shared_hash: key = mix64(id); break;
  }
  return base + key % share;
}

Descriptor& DescriptorTable::allocate(std::uint64_t id, int tenant) {
  std::uint32_t s;
  if (free_.empty()) {
    s = static_cast<std::uint32_t>(store_.size());
    store_.emplace_back();
  } else {
    s = free_.back();
    free_.pop_back();
    store_[s] = Descriptor{};
  }
  slots_[index(id, tenant)] = s;
  store_[s].id = id;
  return store_[s];
}

void DescriptorTable::free(std::uint64_t id, int tenant) {
  std::uint32_t& s = slots_[index(id, tenant)];
  if (s == kNone) return;
  free_.push_back(s);
  s = kNone;
}

std::vector<std::uint32_t> DescriptorTable::accumulators() const {
  std::vector<std::uint32_t> out;
  for (std::uint32_t s : slots_)
    if (s != kNone && store_[s].accumulator != kNone) out.push_back(store_[s].accumulator);
  return out;
}

}  // namespace topocoll::sim::innet
