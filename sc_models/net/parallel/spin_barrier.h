// The barrier a parallel run's threads meet at between windows: spinning (a window is a few
// microseconds of work, far less than a sleep and a wake-up), yielding the core after a while
// (more threads than cores), and running a completion on the last thread to arrive while the
// others wait: what the whole run decides at a barrier is decided once, by that thread, from
// what every thread wrote before it arrived, and read by all after.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

namespace ibcc::net {

class SpinBarrier {
 public:
  explicit SpinBarrier(unsigned threads) : threads_(threads) {}

  // Returns once every thread has called wait; the last to arrive runs `completion()` first.
  // Returns the nanoseconds this thread waited.
  template <typename Completion>
  uint64_t wait(Completion&& completion) {
    const auto t0 = std::chrono::steady_clock::now();
    const unsigned gen = generation_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == threads_) {
      completion();
      arrived_.store(0, std::memory_order_relaxed);
      generation_.store(gen + 1, std::memory_order_release);
    } else {
      for (unsigned spins = 0; generation_.load(std::memory_order_acquire) == gen; ++spins) {
        if (spins < kSpins) {
#if defined(__x86_64__) || defined(__i386__)
          __builtin_ia32_pause();
#endif
        } else {
          std::this_thread::yield();
        }
      }
    }
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
  }

 private:
  static constexpr unsigned kSpins = 4000;
  const unsigned threads_;
  alignas(64) std::atomic<unsigned> arrived_{0};
  alignas(64) std::atomic<unsigned> generation_{0};
};

}  // namespace ibcc::net
