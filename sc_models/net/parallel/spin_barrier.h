// The barrier a parallel run's threads meet at between windows: spinning (a window is a few
// microseconds of work, far less than a sleep and a wake-up), then yielding the core a few
// times, then sleeping on a condition variable until the last thread arrives (more threads
// than free cores: a spinning or yielding waiter would take the core from the thread it
// waits for, and from every other process on the machine). The last thread to arrive runs a
// completion while the others wait: what the whole run decides at a barrier is decided once,
// by that thread, from what every thread wrote before it arrived, and read by all after.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
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
      {
        // Under the lock: a waiter that checked the generation under it and went to sleep is
        // counted in sleepers_ before this store, so it is woken below.
        std::lock_guard<std::mutex> lock(mutex_);
        generation_.store(gen + 1, std::memory_order_release);
      }
      if (sleepers_.load(std::memory_order_acquire) > 0) wake_.notify_all();
    } else {
      unsigned spins = 0;
      for (; spins < kSpins + kYields && generation_.load(std::memory_order_acquire) == gen; ++spins) {
        if (spins < kSpins) {
#if defined(__x86_64__) || defined(__i386__)
          __builtin_ia32_pause();
#endif
        } else {
          std::this_thread::yield();
        }
      }
      if (generation_.load(std::memory_order_acquire) == gen) {
        std::unique_lock<std::mutex> lock(mutex_);
        sleepers_.fetch_add(1, std::memory_order_acq_rel);
        wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != gen; });
        sleepers_.fetch_sub(1, std::memory_order_acq_rel);
      }
    }
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
  }

 private:
  static constexpr unsigned kSpins = 4000;
  static constexpr unsigned kYields = 2000;
  const unsigned threads_;
  alignas(64) std::atomic<unsigned> arrived_{0};
  alignas(64) std::atomic<unsigned> generation_{0};
  std::atomic<unsigned> sleepers_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
};

}  // namespace ibcc::net
