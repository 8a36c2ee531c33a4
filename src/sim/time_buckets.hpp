#pragma once
// Events grouped by their exact time: symmetric schedules start and end thousands of flows at
// bit-identical instants, so one heap entry per distinct time (and O(1) per event) replaces a
// heap operation per event. Buckets and their vectors are recycled.
#include <bit>
#include <cstdint>
#include <vector>

#include "sim/event_heap.hpp"
#include "sim/flat_map.hpp"

namespace topocoll::sim {

template <typename Event>
class TimeBuckets {
 public:
  [[nodiscard]] bool empty() const { return heap_.empty(); }
  [[nodiscard]] double next_time() const { return heap_.top().time; }

  void push(double time, const Event& e) {
    const std::uint64_t key = std::bit_cast<std::uint64_t>(time);
    std::uint32_t* found = index_.find(key);
    std::uint32_t b;
    if (found != nullptr) {
      b = *found;
    } else {
      if (free_.empty()) {
        b = static_cast<std::uint32_t>(buckets_.size());
        buckets_.emplace_back();
      } else {
        b = free_.back();
        free_.pop_back();
      }
      index_[key] = b;
      heap_.push({time, b});
    }
    buckets_[b].push_back(e);
  }

  // Appends every event due at or before `end` to `out`.
  void pop_until(double end, std::vector<Event>& out) {
    while (!heap_.empty() && heap_.top().time <= end) {
      const Entry entry = heap_.pop();
      index_.erase(std::bit_cast<std::uint64_t>(entry.time));
      auto& events = buckets_[entry.bucket];
      out.insert(out.end(), events.begin(), events.end());
      events.clear();
      free_.push_back(entry.bucket);
    }
  }

 private:
  struct Entry {
    double time = 0;
    std::uint32_t bucket = 0;
  };
  EventHeap<Entry> heap_;
  FlatMap<std::uint32_t> index_;
  std::vector<std::vector<Event>> buckets_;
  std::vector<std::uint32_t> free_;
};

}  // namespace topocoll::sim
