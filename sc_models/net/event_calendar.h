// The fabric's calendar: a timing wheel of one bucket per core cycle for the near future
// (where almost every event lands: switch latency, serialization, propagation) and a heap
// beyond it. Events of one cycle come out in the order they were scheduled, so runs are
// reproducible; push and pop are O(1) for the wheel.
#pragma once

#include <array>
#include <cstdint>
#include <queue>
#include <vector>

namespace ibcc::net {

template <typename Event>
class EventCalendar {
 public:
  static constexpr uint64_t kWheel = 4096;  // cycles covered by the wheel (a power of two)

  void push(const Event& e) {
    if (e.cycle < base_ + kWheel) {
      put(e);
    } else {
      far_.push(e);
    }
    ++size_;
  }

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

  // The earliest cycle with an event (>= the current base); empty() must be false.
  uint64_t next_cycle() const {
    const uint64_t start = base_ & (kWheel - 1);
    for (uint64_t k = 0; k <= kWords; ++k) {
      const uint64_t word = ((start / 64) + k) % kWords;
      uint64_t bits = nonempty_[word];
      if (k == 0) bits &= ~uint64_t{0} << (start % 64);
      if (k == kWords) bits &= (start % 64) ? ~(~uint64_t{0} << (start % 64)) : 0;
      if (bits) {
        const uint64_t slot = word * 64 + static_cast<uint64_t>(__builtin_ctzll(bits));
        return base_ + ((slot - start) & (kWheel - 1));
      }
    }
    return far_.top().cycle;
  }

  // Moves the wheel to `cycle` (no event may be earlier) and returns that cycle's bucket.
  // The caller handles bucket[i] for i = 0, 1, ... while new events of the same cycle may be
  // appended, then calls done(cycle).
  std::vector<Event>& open(uint64_t cycle) {
    base_ = cycle;
    // Far events that entered the window go to their buckets: they were scheduled before any
    // event put directly into those buckets, so order is kept.
    while (!far_.empty() && far_.top().cycle < base_ + kWheel) {
      put(far_.top());
      far_.pop();
    }
    return buckets_[cycle & (kWheel - 1)];
  }

  void done(uint64_t cycle) {
    auto& b = buckets_[cycle & (kWheel - 1)];
    size_ -= b.size();
    b.clear();
    const uint64_t slot = cycle & (kWheel - 1);
    nonempty_[slot / 64] &= ~(uint64_t{1} << (slot % 64));
  }

 private:
  static constexpr uint64_t kWords = kWheel / 64;

  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      return a.cycle != b.cycle ? a.cycle > b.cycle : a.seq > b.seq;
    }
  };

  void put(const Event& e) {
    const uint64_t slot = e.cycle & (kWheel - 1);
    buckets_[slot].push_back(e);
    nonempty_[slot / 64] |= uint64_t{1} << (slot % 64);
  }

  std::array<std::vector<Event>, kWheel> buckets_;
  std::array<uint64_t, kWords> nonempty_{};
  std::priority_queue<Event, std::vector<Event>, Later> far_;
  uint64_t base_ = 0;
  size_t size_ = 0;
};

}  // namespace ibcc::net
