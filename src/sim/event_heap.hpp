#pragma once
// A 4-ary min-heap on `time`: half the depth of a binary heap and sibling keys on one cache
// line, for the simulator's event queues (millions of pushes and pops per run).
#include <cstddef>
#include <utility>
#include <vector>

namespace topocoll::sim {

template <typename Event>  // Event has a `double time`
class EventHeap {
 public:
  [[nodiscard]] bool empty() const { return items_.empty(); }
  [[nodiscard]] std::size_t size() const { return items_.size(); }
  [[nodiscard]] const Event& top() const { return items_.front(); }

  void push(const Event& e) {
    std::size_t i = items_.size();
    items_.push_back(e);
    while (i > 0) {
      const std::size_t parent = (i - 1) / 4;
      if (!(e.time < items_[parent].time)) break;
      items_[i] = items_[parent];
      i = parent;
    }
    items_[i] = e;
  }

  Event pop() {
    Event out = items_.front();
    const Event last = items_.back();
    items_.pop_back();
    const std::size_t n = items_.size();
    if (n == 0) return out;
    std::size_t i = 0;
    for (;;) {
      const std::size_t first = 4 * i + 1;
      if (first >= n) break;
      std::size_t best = first;
      const std::size_t end = first + 4 < n ? first + 4 : n;
      for (std::size_t c = first + 1; c < end; ++c)
        if (items_[c].time < items_[best].time) best = c;
      if (!(items_[best].time < last.time)) break;
      items_[i] = items_[best];
      i = best;
    }
    items_[i] = last;
    return out;
  }

 private:
  std::vector<Event> items_;
};

}  // namespace topocoll::sim
