// The fabric's parallel run: its shards (one calendar per group of the partition), the ends
// of the links that join two shards, and the threads' window-synchronous loop.
//
// Each thread owns one shard and repeats: hand the messages the other shards sent it to
// their ports (their events enter its calendar); say its earliest event; meet the others at
// a barrier, where the last to arrive closes any log interval due before the earliest event
// of all (the whole fabric sampled and checked by one thread: the others wait) and sets the
// next window [earliest, earliest + window), cut short at the next log interval; run its
// events of that window; meet again. Nothing a shard does in a window can reach another
// within it (every cut link takes at least a window), so each shard's events are those of a
// sequential run, in the same order (run_cycle's canonical order), and so are the results.
#include <algorithm>
#include <chrono>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "net/fabric/fabric.h"
#include "net/fabric/hca.h"
#include "net/parallel/cut_link.h"
#include "net/parallel/spin_barrier.h"
#include "net/scenario/expected_load.h"

namespace ibcc::net {

void Fabric::make_shards(unsigned threads) {
  calendars_.assign(1, this);
  // Over processes: threads groups per process, the same plan in each.
  const unsigned ranks = ranked() ? ranks_->ranks() : 1;
  const unsigned parts = std::max(1u, threads) * ranks;
  local_lo_ = ranked() ? ranks_->rank() * std::max(1u, threads) : 0;
  local_hi_ = ranked() ? local_lo_ + std::max(1u, threads) : parts;
  if (parts <= 1) return;
  // What keeps the fabric from this many groups, named before any work is done.
  if (const std::string why = parallel_refusal(s_, parts); !why.empty()) throw PartitionError(why);
  plan_ = partition_fabric(topo_, s_, expected_loads(topo_, s_), parts, ps_per_cycle_);
  relay_shard_ = local_lo_ == 0 ? local_hi_ % parts : 0;
  for (unsigned k = 1; k < plan_.parts; ++k) {
    shard_store_.push_back(std::make_unique<NodeContext>(*this));
    calendars_.push_back(shard_store_.back().get());
  }
  for (unsigned k = 0; k < calendars_.size(); ++k) {
    calendars_[k]->shard_index = k;
    calendars_[k]->outbox.resize(calendars_.size());
  }
  parallel_stats_.events.assign(calendars_.size(), 0);
  parallel_stats_.barrier_ns.assign(calendars_.size(), 0);
}

void Fabric::install_cut_links() {
  for (unsigned n = 0; n < nodes_.size(); ++n) {
    Node& node = *nodes_[n];
    NodeContext& from = shard_of(n);
    for (unsigned p = 1; p < node.out.size() && p < node.in.size(); ++p) {
      OutPort& o = node.out[p];
      if (o.peer < 0) continue;
      const unsigned peer = static_cast<unsigned>(o.peer);
      const unsigned to = plan_.part_of[peer];
      if (to == from.shard_index) continue;
      // Heads out of this port, and the credits and pauses of this port's input back upstream
      // (the link's other direction: the same peer).
      cut_ends_.push_back(std::make_unique<CutLinkEnd>(from, nodes_[peer]->end(o.peer_port), peer, o.peer_port, from.outbox[to]));
      o.fw = cut_ends_.back().get();
      InputUnit& in = node.in[p];
      const unsigned up = static_cast<unsigned>(in.upstream);
      cut_ends_.push_back(std::make_unique<CutLinkEnd>(from, nodes_[up]->end(in.upstream_port), up, in.upstream_port,
                                                       from.outbox[plan_.part_of[up]]));
      in.bw = cut_ends_.back().get();
    }
  }
}

void Fabric::run_parallel() {
  const unsigned parts = static_cast<unsigned>(calendars_.size());
  // (No link cut, which a partition of a small fabric may leave: the groups never meet but
  // at the log intervals.)
  const uint64_t window = plan_.window_cycles ? plan_.window_cycles : UINT64_MAX / 4;
  // This process's groups (all of them but over processes).
  const unsigned lo = local_lo_, hi = local_hi_;
  const bool over_ranks = ranked();
  SpinBarrier barrier(hi - lo);
  struct alignas(64) Next {
    uint64_t cycle = 0;
  };
  std::vector<Next> next(parts);
  // Decided at a barrier by its last thread, read by all after it.
  bool done = false;
  uint64_t window_end = 0;
  // The log intervals' ends, as a sequential run schedules them (Fabric::run): every
  // log_cycles_ up to the end, and the end itself.
  auto after = [this](uint64_t t) -> uint64_t {
    if (t >= end_cycle_) return UINT64_MAX;
    if (t + log_cycles_ <= end_cycle_) return t + log_cycles_;
    return end_cycle_ % log_cycles_ ? end_cycle_ : UINT64_MAX;
  };
  uint64_t tick = log_cycles_ <= end_cycle_ ? log_cycles_ : (end_cycle_ % log_cycles_ ? end_cycle_ : UINT64_MAX);
  // Shards 1.. give their counters to this context's (summary, invariants), their events
  // counted per shard first.
  auto gather = [&]() {
    for (unsigned k = std::max(lo, 1u); k < hi; ++k) {
      parallel_stats_.events[k] += calendars_[k]->events;
      absorb(*calendars_[k]);
    }
  };
  // The first failure (a thread's exception), and whether a thread has failed.
  std::mutex failure_mu;
  std::exception_ptr failure;
  std::atomic<bool> failed{false};
  auto fail = [&](std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(failure_mu);
    if (!failure) failure = e;
    failed.store(true, std::memory_order_relaxed);
  };
  // The first barrier of a window (its last thread): the earliest event of all and the log
  // intervals due before it. Each is then sampled by every thread on its own shard
  // (sample_nodes) and closed at a barrier by the last (close_tick: the counters gathered,
  // the samples merged, the whole fabric checked, the others waiting); after the last,
  // decide() ends the run or sets the next window.
  uint64_t start = 0;
  std::vector<uint64_t> due;
  bool stop_ticks = false;  // a failure while the due intervals are closed (set at a barrier)
  tick_samples_.resize(parts);
  // Over processes, what every process must agree on is agreed at the barriers' serial
  // steps, which every process takes in the same order: a failure anywhere, the earliest
  // event, a stop asked for anywhere.
  auto agree_failed = [&]() {
    if (!over_ranks) return;
    try {
      if (ranks_->any(failed.load(std::memory_order_relaxed))) failed.store(true, std::memory_order_relaxed);
    } catch (...) {
      fail(std::current_exception());
    }
  };
  auto decide = [&]() {
    if (failed.load(std::memory_order_relaxed)) {
      done = true;
      return;
    }
    bool stop = stop_flag_ && stop_flag_->load(std::memory_order_relaxed);
    if (over_ranks) {
      try {
        stop = ranks_->any(stop);
      } catch (...) {
        fail(std::current_exception());
        done = true;
        return;
      }
    }
    if (stop) {
      interrupted_ = true;
      done = true;
      return;
    }
    if (start > end_cycle_) {
      done = true;
      return;
    }
    window_end = std::min({start + window, tick, end_cycle_ + 1});
    ++parallel_stats_.windows;
  };
  auto plan_window = [&]() {
    due.clear();
    stop_ticks = false;
    agree_failed();
    if (failed.load(std::memory_order_relaxed)) {
      done = true;
      return;
    }
    start = UINT64_MAX;
    for (unsigned k = lo; k < hi; ++k) start = std::min(start, next[k].cycle);
    if (over_ranks) {
      try {
        start = ranks_->min(start);
      } catch (...) {
        fail(std::current_exception());
        done = true;
        return;
      }
    }
    // A log interval ends before the first event of its cycle, as in a sequential run.
    for (; tick != UINT64_MAX && start >= tick; tick = after(tick)) due.push_back(tick);
    if (due.empty()) decide();
  };
  // Over processes: every process gathers its groups' counters and sends rank 0 its
  // samples, flows' counts and check rows (whether or not it failed: the gather is
  // collective); rank 0 closes the interval; the others check their own buffers for a
  // partial deadlock.
  auto close_tick_over_ranks = [&](size_t i) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<uint8_t> mine;
    try {
      gather();
      now_ = due[i];
      mine = interval_bytes_for_rank0(!failed.load(std::memory_order_relaxed));
    } catch (...) {
      fail(std::current_exception());
      mine = interval_bytes_for_rank0(false);
    }
    try {
      std::vector<size_t> offsets;
      const std::vector<uint8_t> all = ranks_->gather(mine, &offsets);
      if (!failed.load(std::memory_order_relaxed)) {
        if (ranks_->rank() == 0) {
          if (take_interval_bytes(all, offsets)) close_interval(tick_samples_.data(), parts);
        } else {
          blocked_buffer_check();
        }
        ++parallel_stats_.ticks;
      }
    } catch (...) {
      fail(std::current_exception());
    }
    agree_failed();
    parallel_stats_.serial_ns += static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
    stop_ticks = failed.load(std::memory_order_relaxed);
    if (i + 1 == due.size() || stop_ticks) decide();
  };
  auto close_tick = [&](size_t i) {
    if (over_ranks) {
      close_tick_over_ranks(i);
      return;
    }
    if (!failed.load(std::memory_order_relaxed)) {
      try {
        const auto t0 = std::chrono::steady_clock::now();
        gather();
        now_ = due[i];
        close_interval(tick_samples_.data(), parts);
        ++parallel_stats_.ticks;
        parallel_stats_.serial_ns += static_cast<uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
      } catch (...) {
        fail(std::current_exception());
      }
    }
    stop_ticks = failed.load(std::memory_order_relaxed);
    if (i + 1 == due.size() || stop_ticks) decide();
  };
  auto worker = [&](unsigned k) {
    NodeContext& c = *calendars_[k];
    PacketPool::home() = &c.pool();
    uint64_t waited = 0;
    for (;;) {
      try {
        for (unsigned from = 0; from < parts; ++from) {
          std::vector<WireMessage>& box = calendars_[from]->outbox[k];
          for (const WireMessage& m : box) c.deliver(m);
          box.clear();
        }
      } catch (...) {
        fail(std::current_exception());
      }
      next[k].cycle = c.next_event_cycle();
      waited += barrier.wait(plan_window);
      // (`due` and `stop_ticks` change only at barriers: every thread takes the same turns.)
      for (size_t i = 0; i < due.size() && !stop_ticks; ++i) {
        try {
          sample_nodes(k, due[i], tick_samples_[k]);
        } catch (...) {
          fail(std::current_exception());
        }
        waited += barrier.wait([&close_tick, i] { close_tick(i); });
      }
      if (done) break;
      try {
        c.run_window(window_end);
        c.release_crossed();
      } catch (...) {
        fail(std::current_exception());
      }
      waited += barrier.wait([&] {
        if (!over_ranks) return;
        try {
          exchange_over_ranks();
        } catch (...) {
          fail(std::current_exception());
        }
      });
    }
    parallel_stats_.barrier_ns[k] = waited;
    PacketPool::home() = nullptr;
  };
  std::vector<std::thread> threads;
  for (unsigned k = lo + 1; k < hi; ++k) threads.emplace_back(worker, k);
  worker(lo);
  for (std::thread& t : threads) t.join();
  uint64_t last = now_;
  for (unsigned k = std::max(lo, 1u); k < hi; ++k) last = std::max(last, calendars_[k]->now());
  gather();
  now_ = last;
  if (lo == 0) {
    uint64_t others = rank_events_in_;
    for (unsigned k = 1; k < hi; ++k) others += parallel_stats_.events[k];
    parallel_stats_.events[0] = events - others;
  }
  if (over_ranks) finish_over_ranks(failure);
  if (failure) std::rethrow_exception(failure);
}

}  // namespace ibcc::net
