// The fabric's calendar: a timing wheel of one bucket per core cycle for the near future
// (where almost every event lands: switch latency, serialization, propagation) and a heap
// beyond it. Events of one cycle come out in the order they were scheduled, so runs are
// reproducible; push and free_node are O(1) for the wheel. An event in the wheel can be
// cancelled in O(1) through the handle push() returned (Event::cancel(): it still comes out,
// marked, and the caller skips it without touching what it was about). Order among events
// of one cycle is the order of push(): a bucket is a FIFO list, and events beyond the wheel
// carry their push number in the heap until they move into their bucket (ahead of any
// pushed there directly, which came later), so Event itself needs no sequence number (the
// pool then holds more events per cache line).
//
// Event: anything with `uint64_t cycle`, `cancel()` and a `uint32_t link` the calendar owns
// (a pool node's next in its bucket or in the free list).
//
// A bucket is a list of nodes taken from one pool and given back as they are handed out: a
// bucket that holds more events than ever before costs one node each, not a copy of the
// bucket (per-bucket vectors spent 3-9 % of a 648-host run copying while they grew).
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

  EventCalendar() {
    head_.fill(kNil);
    tail_.fill(kNil);
  }

  static constexpr uint32_t kNoHandle = UINT32_MAX;

  // Returns a handle for cancel(), valid until the event is released; kNoHandle for an
  // event beyond the wheel (it cannot be cancelled).
  uint32_t push(const Event& e) {
    ++size_;
    if (e.cycle < base_ + kWheel) return put(e);
    far_.push(Far{e, far_pushed_++});
    return kNoHandle;
  }

  // For an event within the wheel (cycle < wheel_end()): a node already in its bucket, for
  // the caller to fill in place (every field but `link`, `cycle` included); its handle in
  // *handle. Same as push() of the filled event, without building it elsewhere first (a
  // copy of an event just built from narrow stores waits for them: store forwarding).
  Event& emplace(uint64_t cycle, uint32_t* handle) {
    ++size_;
    uint32_t n = free_;
    if (n != kNil) {
      free_ = pool_[n].link;
    } else {
      n = static_cast<uint32_t>(pool_.size());
      pool_.emplace_back();
    }
    link(n, cycle);
    *handle = n;
    return pool_[n];
  }
  uint64_t wheel_end() const { return base_ + kWheel; }

  // The event of `handle` (from push; not released yet) is cancelled.
  void cancel(uint32_t handle) { pool_[handle].cancel(); }

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
    return far_.top().event.cycle;
  }

  // Moves the wheel to `cycle` (no event may be earlier). Then take() hands out that cycle's
  // events in order, including those pushed for the same cycle meanwhile.
  void open(uint64_t cycle) {
    base_ = cycle;
    // Far events that entered the window go to their buckets: they were scheduled before any
    // event put directly into those buckets, so order is kept.
    while (!far_.empty() && far_.top().event.cycle < base_ + kWheel) {
      put(far_.top().event);
      far_.pop();
    }
  }

  // The open cycle's events: take() hands over the list of those now in its bucket (events
  // pushed for this cycle meanwhile start a new list: take again once this one is walked,
  // until it returns kEnd); at(n) is a node's event, next_of(n) the node after it, and
  // free_node(n) gives it back. Copy the event before handling it: a push may move the pool.
  // No bookkeeping per event beyond the free list (a bucket is handed over whole).
  static constexpr uint32_t kEnd = UINT32_MAX;
  uint32_t take() {
    const uint64_t slot = base_ & (kWheel - 1);
    const uint32_t n = head_[slot];
    head_[slot] = tail_[slot] = kNil;
    nonempty_[slot / 64] &= ~(uint64_t{1} << (slot % 64));
    return n;
  }
  const Event& at(uint32_t n) const { return pool_[n]; }
  // The node after `n` in the list take() handed over (kEnd after the last).
  uint32_t next_of(uint32_t n) const { return pool_[n].link; }
  // Gives node `n` back (of a list already walked with next_of; its event copied out).
  void free_node(uint32_t n) {
    pool_[n].link = free_;
    free_ = n;
    --size_;
  }

 private:
  static constexpr uint64_t kWords = kWheel / 64;
  static constexpr uint32_t kNil = UINT32_MAX;


  struct Far {
    Event event;
    uint64_t order;  // number among the far events pushed: FIFO among those of one cycle
  };
  struct Later {
    bool operator()(const Far& a, const Far& b) const {
      return a.event.cycle != b.event.cycle ? a.event.cycle > b.event.cycle : a.order > b.order;
    }
  };

  uint32_t put(const Event& e) {
    uint32_t n = free_;
    if (n != kNil) {
      free_ = pool_[n].link;
      pool_[n] = e;
    } else {
      n = static_cast<uint32_t>(pool_.size());
      pool_.push_back(e);
    }
    link(n, e.cycle);
    return n;
  }
  // Node n becomes the last of its cycle's bucket.
  void link(uint32_t n, uint64_t cycle) {
    pool_[n].link = kNil;
    const uint64_t slot = cycle & (kWheel - 1);
    if (tail_[slot] == kNil) {
      head_[slot] = n;
      nonempty_[slot / 64] |= uint64_t{1} << (slot % 64);  // (cleared by take)
    } else {
      pool_[tail_[slot]].link = n;
    }
    tail_[slot] = n;
  }

  std::vector<Event> pool_;  // the wheel's events and free nodes, linked through Event::link
  uint32_t free_ = kNil;
  std::array<uint32_t, kWheel> head_, tail_;
  std::array<uint64_t, kWords> nonempty_{};
  std::priority_queue<Far, std::vector<Far>, Later> far_;
  uint64_t far_pushed_ = 0;
  uint64_t base_ = 0;
  size_t size_ = 0;
};

}  // namespace ibcc::net
