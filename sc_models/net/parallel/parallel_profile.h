// What a window-synchronous parallel run of a partition could gain, measured on a sequential
// run: each event is counted for the group of the node it happens at, window by window (the
// partition's window, PartitionPlan::window_cycles). Within a window the groups would run at
// once and wait at its end for the busiest, so the run's critical path is the sum over the
// windows of the busiest group's events, plus the events only one thread can handle (a log
// interval's sampling of the whole fabric). Events over that critical path is the speed-up
// no engine on this partition and window can exceed, if each event costs the same; how busy
// the windows are says what a barrier costs against the work between two.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace ibcc::net {

class ParallelProfile {
 public:
  // part_of: [node] -> group (< parts); window_cycles: 0 (one group) counts per cycle.
  ParallelProfile(std::vector<uint32_t> part_of, unsigned parts, uint64_t window_cycles)
      : part_of_(std::move(part_of)), window_(window_cycles ? window_cycles : 1), now_(parts, 0), total_(parts, 0) {}

  // An event of `node` at `cycle` (cycles never decrease).
  void count(uint64_t cycle, unsigned node) {
    roll(cycle);
    ++now_[part_of_[node]];
  }
  // An event that sees the whole fabric (one thread, at a barrier).
  void count_serial(uint64_t cycle) {
    roll(cycle);
    ++serial_;
  }

  struct Result {
    uint64_t events = 0;          // all counted
    uint64_t critical = 0;        // the busiest group's per window, summed, plus the serial ones
    uint64_t serial = 0;
    uint64_t busy_windows = 0;    // windows with at least one event
    uint64_t window_cycles = 0;
    std::vector<uint64_t> per_group;
    double bound() const { return critical ? static_cast<double>(events) / static_cast<double>(critical) : 1.0; }
    double events_per_busy_window() const {
      return busy_windows ? static_cast<double>(events) / static_cast<double>(busy_windows) : 0.0;
    }
  };
  Result result() {
    close();
    Result r;
    r.critical = critical_ + serial_;
    r.serial = serial_;
    r.busy_windows = busy_;
    r.window_cycles = window_;
    r.per_group = total_;
    r.events = serial_;
    for (uint64_t n : total_) r.events += n;
    return r;
  }

 private:
  void roll(uint64_t cycle) {
    const uint64_t w = cycle / window_;
    if (w != window_index_) {
      close();
      window_index_ = w;
    }
  }
  void close() {
    uint64_t most = 0, any = 0;
    for (size_t g = 0; g < now_.size(); ++g) {
      most = now_[g] > most ? now_[g] : most;
      any += now_[g];
      total_[g] += now_[g];
      now_[g] = 0;
    }
    critical_ += most;
    busy_ += any != 0;
  }

  std::vector<uint32_t> part_of_;
  uint64_t window_;
  uint64_t window_index_ = 0;
  std::vector<uint64_t> now_, total_;  // [group]: this window's events, all so far
  uint64_t critical_ = 0, serial_ = 0, busy_ = 0;
};

}  // namespace ibcc::net
