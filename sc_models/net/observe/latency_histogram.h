// A log-linear histogram of latencies in core cycles: exact below 128 cycles, then 64 buckets
// per power of two (relative error under 1.6 %), so percentiles of millions of packets cost
// a few kilobytes per flow. Min, max, count and sum are exact.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "common/byte_stream.h"

namespace ibcc::net {

class LatencyHistogram {
 public:
  static constexpr unsigned kSubBits = 6;  // 64 buckets per octave

  // The bucket counts take samples kPending at a time: a sample's bucket is a line of a
  // table of a few kilobytes per flow, rarely in the cache when the packet drains, and the
  // increments of a batch wait for memory together instead of one per packet. Every reader
  // takes the waiting samples in first, so no answer depends on the batching.
  static constexpr unsigned kPending = 16;

  void add(uint64_t v) {
    pending_[npending_++] = v;
    if (npending_ == kPending) take_pending();
    ++count_;
    add_sum(v);
    min_ = std::min(min_, v);
    max_ = std::max(max_, v);
  }

  void merge(const LatencyHistogram& o) {
    take_pending();
    o.take_pending();
    if (o.counts_.size() > counts_.size()) counts_.resize(o.counts_.size(), 0);
    for (size_t i = 0; i < o.counts_.size(); ++i) counts_[i] += o.counts_[i];
    count_ += o.count_;
    add_sum(o.sum_lo_);
    sum_hi_ += o.sum_hi_;
    min_ = std::min(min_, o.min_);
    max_ = std::max(max_, o.max_);
  }

  uint64_t count() const { return count_; }
  uint64_t min() const { return count_ ? min_ : 0; }
  uint64_t max() const { return max_; }
  double mean() const {
    return count_ ? (static_cast<double>(sum_hi_) * 18446744073709551616.0 + static_cast<double>(sum_lo_)) / static_cast<double>(count_)
                  : 0.0;
  }

  // The smallest value v such that at least q of the samples are <= v, to the bucket's
  // resolution (its upper bound, never above the exact max). 0 when empty.
  uint64_t quantile(double q) const {
    if (count_ == 0) return 0;
    take_pending();
    const double target = q * static_cast<double>(count_);
    uint64_t seen = 0;
    for (size_t b = 0; b < counts_.size(); ++b) {
      seen += counts_[b];
      if (static_cast<double>(seen) >= target && counts_[b] > 0) return std::min(upper(b), max_);
    }
    return max_;
  }

  // Non-empty buckets as (upper bound, count), for latency.csv and plots.
  std::vector<std::pair<uint64_t, uint64_t>> buckets() const {
    take_pending();
    std::vector<std::pair<uint64_t, uint64_t>> out;
    for (size_t b = 0; b < counts_.size(); ++b) {
      if (counts_[b]) out.emplace_back(std::min(upper(b), max_), counts_[b]);
    }
    return out;
  }

  // Its bytes (the batch taken in first), and the histogram they hold: merging it gives what
  // merging the original gives (a parallel run's share sent from another process).
  void to_bytes(ByteWriter& w) const {
    take_pending();
    w.put_vector(counts_);
    w.put(count_);
    w.put(sum_lo_);
    w.put(sum_hi_);
    w.put(min_);
    w.put(max_);
  }
  static LatencyHistogram from_bytes(ByteReader& r) {
    LatencyHistogram h;
    r.take_vector(h.counts_, "a latency histogram's buckets");
    h.count_ = r.take<uint64_t>("a latency histogram's count");
    h.sum_lo_ = r.take<uint64_t>("a latency histogram's sum");
    h.sum_hi_ = r.take<uint64_t>("a latency histogram's sum");
    h.min_ = r.take<uint64_t>("a latency histogram's min");
    h.max_ = r.take<uint64_t>("a latency histogram's max");
    return h;
  }
  static size_t bucket(uint64_t v) {
    constexpr uint64_t kLinear = 2u << kSubBits;  // 128
    if (v < kLinear) return static_cast<size_t>(v);
    const unsigned msb = 63u - static_cast<unsigned>(__builtin_clzll(v));
    const unsigned shift = msb - kSubBits;
    return static_cast<size_t>(kLinear + (shift - 1) * (1u << kSubBits) + ((v >> shift) - (1u << kSubBits)));
  }
  // Largest value that falls in bucket b.
  static uint64_t upper(size_t b) {
    constexpr uint64_t kLinear = 2u << kSubBits;
    if (b < kLinear) return b;
    const uint64_t k = b - kLinear;
    const unsigned shift = static_cast<unsigned>(k >> kSubBits) + 1;
    const uint64_t mant = (k & ((1u << kSubBits) - 1)) + (1u << kSubBits);
    return ((mant + 1) << shift) - 1;
  }

 private:
  void take_pending() const {
    for (unsigned i = 0; i < npending_; ++i) {
      const size_t b = bucket(pending_[i]);
      if (b >= counts_.size()) counts_.resize(b + 1, 0);
      ++counts_[b];
    }
    npending_ = 0;
  }

  // (The batch and the counts it goes into are mutable: a reader takes the batch in.) What
  // add() writes first, then the batch.
  mutable std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  // The samples' sum, exact (128 bits, hi:lo): the same whatever order histograms merge in.
  uint64_t sum_lo_ = 0, sum_hi_ = 0;
  void add_sum(uint64_t v) {
    sum_lo_ += v;
    if (sum_lo_ < v) ++sum_hi_;
  }
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
  mutable unsigned npending_ = 0;
  mutable std::array<uint64_t, kPending> pending_{};
};

}  // namespace ibcc::net
