#pragma once
// One pending time per id (a flow's next activation or completion), in a 4-ary min-heap that
// knows where each id sits: a new prediction moves the id's entry instead of leaving a stale
// one behind. The flow model re-predicts a completion every time a rate changes; stale
// entries used to outnumber the live ones many times over on runs without symmetry, and
// skipping them was a third of the run time (cache misses on a heap of dead entries).
//
// EventHeap (event_heap.hpp) is the plain queue the other engines use; it cannot find an entry
// again, which moving and removing need, hence the position index kept here.
//
// Ties on time pop in the order the times were last set, as a queue of events would: the
// flow model's results do not depend on that order, but bit-identical runs do.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace topocoll::sim {

class DeadlineHeap {
 public:
  [[nodiscard]] bool empty() const { return items_.empty(); }
  [[nodiscard]] double next_time() const { return items_.front().time; }
  [[nodiscard]] bool contains(int id) const {
    return static_cast<std::size_t>(id) < where_.size() &&
           where_[static_cast<std::size_t>(id)] != kAbsent;
  }

  // Sets (or moves) the pending time of `id`.
  void set(int id, double time) {
    if (static_cast<std::size_t>(id) >= where_.size())
      where_.resize(static_cast<std::size_t>(id) + 1, kAbsent);
    const Item item{time, next_order_++, id};
    std::size_t& at = where_[static_cast<std::size_t>(id)];
    if (at == kAbsent) {
      at = items_.size();
      items_.push_back(item);
      sift_up(at, item);
      return;
    }
    const bool earlier = before(item, items_[at]);
    if (earlier)
      sift_up(at, item);
    else
      sift_down(at, item);
  }

  void remove(int id) {
    if (!contains(id)) return;
    const std::size_t at = where_[static_cast<std::size_t>(id)];
    where_[static_cast<std::size_t>(id)] = kAbsent;
    const Item last = items_.back();
    items_.pop_back();
    if (at == items_.size()) return;
    if (before(last, items_[at]))
      sift_up(at, last);
    else
      sift_down(at, last);
  }

  // Appends, in time order, every id due at or before `end`, and forgets their times.
  void pop_until(double end, std::vector<int>& out) {
    while (!items_.empty() && items_.front().time <= end) {
      const int id = items_.front().id;
      out.push_back(id);
      remove(id);
    }
  }

 private:
  struct Item {
    double time = 0;
    std::uint64_t order = 0;
    int id = 0;
  };
  static constexpr std::size_t kAbsent = ~std::size_t{0};

  static bool before(const Item& a, const Item& b) {
    return a.time < b.time || (a.time == b.time && a.order < b.order);
  }
  void place(std::size_t at, const Item& item) {
    items_[at] = item;
    where_[static_cast<std::size_t>(item.id)] = at;
  }
  void sift_up(std::size_t at, const Item& item) {
    while (at > 0) {
      const std::size_t parent = (at - 1) / 4;
      if (!before(item, items_[parent])) break;
      place(at, items_[parent]);
      at = parent;
    }
    place(at, item);
  }
  void sift_down(std::size_t at, const Item& item) {
    const std::size_t n = items_.size();
    for (;;) {
      const std::size_t first = 4 * at + 1;
      if (first >= n) break;
      std::size_t best = first;
      const std::size_t last = first + 4 < n ? first + 4 : n;
      for (std::size_t c = first + 1; c < last; ++c)
        if (before(items_[c], items_[best])) best = c;
      if (!before(items_[best], item)) break;
      place(at, items_[best]);
      at = best;
    }
    place(at, item);
  }

  std::vector<Item> items_;
  std::vector<std::size_t> where_;  // per id: its position in items_, or kAbsent
  std::uint64_t next_order_ = 0;
};

}  // namespace topocoll::sim
