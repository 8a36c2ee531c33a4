#pragma once
// An open-addressing hash map from 64-bit keys to small values, for the simulator's hot
// paths (message matching, route lookup): no allocation per entry, and erase by backward
// shift so that long runs do not accumulate tombstones.
#include <cstdint>
#include <vector>

namespace topocoll::sim {

template <typename Value>
class FlatMap {
 public:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};  // reserved key

  FlatMap() { rehash(16); }

  [[nodiscard]] std::size_t size() const { return size_; }

  // The value of `key`, inserted value-initialized when absent.
  Value& operator[](std::uint64_t key) {
    if (2 * (size_ + 1) > slots_.size()) rehash(2 * slots_.size());
    std::size_t i = home(key);
    while (slots_[i].key != kEmpty) {
      if (slots_[i].key == key) return slots_[i].value;
      i = (i + 1) & mask_;
    }
    slots_[i].key = key;
    slots_[i].value = Value{};
    ++size_;
    return slots_[i].value;
  }

  [[nodiscard]] Value* find(std::uint64_t key) {
    for (std::size_t i = home(key); slots_[i].key != kEmpty; i = (i + 1) & mask_)
      if (slots_[i].key == key) return &slots_[i].value;
    return nullptr;
  }

  void erase(std::uint64_t key) {
    std::size_t i = home(key);
    while (slots_[i].key != key) {
      if (slots_[i].key == kEmpty) return;
      i = (i + 1) & mask_;
    }
    // Backward-shift deletion: pull later entries of the probe run into the hole.
    for (std::size_t j = (i + 1) & mask_; slots_[j].key != kEmpty; j = (j + 1) & mask_) {
      const std::size_t h = home(slots_[j].key);
      const bool movable = (j > i) ? (h <= i || h > j) : (h <= i && h > j);
      if (movable) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i].key = kEmpty;
    --size_;
  }

  void clear() {
    for (auto& s : slots_) s.key = kEmpty;
    size_ = 0;
  }

 private:
  struct Slot {
    std::uint64_t key = kEmpty;
    Value value{};
  };

  [[nodiscard]] std::size_t home(std::uint64_t key) const {
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return static_cast<std::size_t>(key) & mask_;
  }

  void rehash(std::size_t capacity) {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    size_ = 0;
    for (const auto& s : old)
      if (s.key != kEmpty) (*this)[s.key] = s.value;
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace topocoll::sim
