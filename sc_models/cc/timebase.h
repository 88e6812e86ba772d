// The 1.024 us timebase shared by the CC blocks: a prescaler of the core clock and the IB
// TimeStamp counter (rtl/ibcc_timebase.sv).
#pragma once

#include <cstdint>

namespace ibcc::cc {

class Timebase {
 public:
  explicit Timebase(uint32_t tick_cycles) : tick_cycles_(tick_cycles) {}

  void reset() {
    prescale_ = 0;
    timestamp_ = 0;
  }

  // True when the coming rising edge is a 1.024 us tick.
  bool tick() const { return prescale_ == tick_cycles_ - 1; }

  // One rising edge.
  void clock() {
    if (tick()) {
      prescale_ = 0;
      ++timestamp_;
    } else {
      ++prescale_;
    }
  }

  // Edges from now until (and including) the next tick edge: 1 means the coming edge.
  uint64_t edges_to_next_tick() const { return tick_cycles_ - prescale_; }

  // Tick edges among the next `edges` edges.
  uint64_t ticks_within(uint64_t edges) const {
    const uint64_t first = edges_to_next_tick();
    if (edges < first) return 0;
    // (Most spans between a model's events hold at most one tick: no division for them.)
    return edges - first < tick_cycles_ ? 1 : 1 + (edges - first) / tick_cycles_;
  }

  // `edges` rising edges at once (equal to calling clock() that many times).
  void advance(uint64_t edges) {
    const uint64_t total = prescale_ + edges;
    if (total < tick_cycles_) {  // no tick among them (most calls: a division costs tens of cycles)
      prescale_ = static_cast<uint32_t>(total);
      return;
    }
    if (total < uint64_t{2} * tick_cycles_) {  // one tick
      prescale_ = static_cast<uint32_t>(total - tick_cycles_);
      ++timestamp_;
      return;
    }
    timestamp_ = static_cast<uint32_t>(timestamp_ + total / tick_cycles_);
    prescale_ = static_cast<uint32_t>(total % tick_cycles_);
  }

  uint32_t timestamp() const { return timestamp_; }
  uint32_t prescale() const { return prescale_; }
  uint32_t tick_cycles() const { return tick_cycles_; }

 private:
  uint32_t tick_cycles_;
  uint32_t prescale_ = 0;
  uint32_t timestamp_ = 0;
};

}  // namespace ibcc::cc
