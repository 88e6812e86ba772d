// Congestion log ring: the Depth most recent events, a saturating 16-bit event counter and a
// clear. Shared by the switch and CA CongestionLogs; model of rtl/ibcc_event_log.sv.
#pragma once

#include <array>
#include <cstdint>

namespace ibcc::cc {

template <typename Event, unsigned Depth>
class EventLog {
 public:
  struct PushResult {
    bool wrapped;    // the oldest event was overwritten
    bool saturated;  // the counter was already at 0xffff
  };

  void reset() {
    events_.fill(Event{});
    clear();
  }
  void clear() {
    head_ = count_ = 0;
    counter_ = 0;
  }
  PushResult push(const Event& e) {
    events_[head_] = e;
    head_ = (head_ + 1u) % Depth;
    const bool wrapped = count_ == Depth;
    if (!wrapped) ++count_;
    const bool saturated = counter_ == 0xffffu;
    if (!saturated) ++counter_;
    return {wrapped, saturated};
  }

  unsigned count() const { return count_; }
  uint32_t counter() const { return counter_; }
  // Event e, 0 = the most recent; e < count().
  const Event& recent(unsigned e) const { return events_[(head_ + Depth - 1u - e) % Depth]; }

 private:
  std::array<Event, Depth> events_{};
  unsigned head_ = 0;  // the next slot to write
  unsigned count_ = 0;
  uint32_t counter_ = 0;
};

}  // namespace ibcc::cc
