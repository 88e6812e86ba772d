// A run over processes (MPI ranks): every process builds the whole fabric and runs its own
// groups of the partition (Fabric::make_shards); what it adds to the parallel run of one
// process (fabric_parallel.cpp) is here.
//
// At the barrier after each window, the messages a group sent toward a group of another
// process go there as bytes (RankExchange::exchange) and what came in is put in the outbox
// of one of the other process's groups here (relay_shard_), whose nodes this process never
// runs: the workers hand it over with the rest, and the canonical order of a cycle's events
// makes the order they are handed over in irrelevant.
//
// At a log interval each process sends rank 0 (one gather) whether it is sound, its groups'
// samples, its counters since the last interval (zeroed here, as a group's are when gathered
// into its process), the packets in its pools, its latest progress, its flows' shares and
// the counts of the flows whose source it runs, and its check rows. Rank 0 adds them to its
// own and closes the interval as one process would, with the whole fabric's rows checked.
// At the end the same again, with the ports' reports, the events and barrier times per
// group and the failure, if any; rank 0 makes the last check and every process ends with
// rank 0's verdict.
#include <algorithm>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "net/fabric/fabric.h"
#include "net/fabric/hca.h"

namespace ibcc::net {

namespace {

// The counters a process adds to rank 0's (as a group's are added to its process's).
struct RankCounts {
  uint64_t injected, delivered, on_wire, hops, cnps, events, dropped, discarded;
};
static_assert(std::is_trivially_copyable_v<RankCounts>);

// A process's counters, taken (zeroed there) and added at rank 0.
RankCounts take_counts(NodeContext& c) {
  const RankCounts n{c.injected, c.delivered, c.on_wire, c.hops, c.cnps, c.events, c.dropped, c.discarded};
  c.injected = c.delivered = c.on_wire = c.hops = c.cnps = c.events = c.dropped = c.discarded = 0;
  return n;
}

void add_counts(NodeContext& c, const RankCounts& n) {
  c.injected += n.injected;
  c.delivered += n.delivered;
  c.on_wire += n.on_wire;
  c.hops += n.hops;
  c.cnps += n.cnps;
  c.events += n.events;
  c.dropped += n.dropped;
  c.discarded += n.discarded;
}

}  // namespace

void Fabric::exchange_over_ranks() {
  const unsigned parts = static_cast<unsigned>(calendars_.size());
  const unsigned per_rank = local_hi_ - local_lo_;
  std::vector<std::vector<WireMessage>> out(ranks_->ranks());
  for (unsigned k = local_lo_; k < local_hi_; ++k) {
    for (unsigned to = 0; to < parts; ++to) {
      if (to >= local_lo_ && to < local_hi_) continue;
      std::vector<WireMessage>& box = calendars_[k]->outbox[to];
      std::vector<WireMessage>& dest = out[to / per_rank];
      dest.insert(dest.end(), box.begin(), box.end());
      box.clear();
    }
  }
  const std::vector<WireMessage> in = ranks_->exchange(out);
  NodeContext& relay = *calendars_[relay_shard_];
  for (const WireMessage& m : in) relay.outbox[plan_.part_of[m.node]].push_back(m);
}

void Fabric::put_flow_bytes(ByteWriter& w) {
  // Every flow's share (what this process's destinations counted since the last), then the
  // source counts of the flows whose source runs here.
  for (Flow& f : flows_) f.stats.take_share().share_to_bytes(w);
  uint64_t sources = 0;
  for (const Flow& f : flows_) sources += runs_here(f.src) ? 1 : 0;
  w.put(sources);
  for (uint32_t i = 0; i < flows_.size(); ++i) {
    if (!runs_here(flows_[i].src)) continue;
    w.put(i);
    flows_[i].stats.source_to_bytes(w);
  }
}

void Fabric::add_flow_bytes(ByteReader& r) {
  for (Flow& f : flows_) {
    FlowStats share = FlowStats::share_from_bytes(r);
    f.stats.add_share(share);
  }
  const uint64_t sources = r.take<uint64_t>("the count of a process's flow sources");
  for (uint64_t k = 0; k < sources; ++k) {
    const uint32_t i = r.take<uint32_t>("a flow's number");
    if (i >= flows_.size()) throw std::runtime_error("a process sent the source counts of flow " + std::to_string(i) + ", which is none");
    flows_[i].stats.take_source_bytes(r);
  }
}

uint64_t Fabric::live_here() const {
  uint64_t n = pool().live();  // the fabric's own pool, then its groups' after group 0
  for (unsigned k = std::max(local_lo_, 1u); k < local_hi_; ++k) n += calendars_[k]->pool().live();
  return n;
}

std::vector<uint8_t> Fabric::interval_bytes_for_rank0(bool ok) {
  std::vector<uint8_t> out;
  ByteWriter w(out);
  w.put(static_cast<uint8_t>(ok));
  if (!ok || ranks_->rank() == 0) return out;
  // The groups' samples.
  for (unsigned k = local_lo_; k < local_hi_; ++k) {
    std::vector<uint8_t> sample;
    to_bytes(tick_samples_[k], sample);
    w.put(static_cast<uint32_t>(k));
    w.put_vector(sample);
  }
  // The counters since the last interval, zeroed here.
  w.put(take_counts(*this));
  w.put(live_here());
  w.put(last_progress());
  put_flow_bytes(w);
  check_rows().to_bytes(w);
  return out;
}

bool Fabric::take_interval_bytes(const std::vector<uint8_t>& all, const std::vector<size_t>& offsets) {
  const unsigned per_rank = local_hi_ - local_lo_;
  other_rows_ = CheckRows{};
  other_ranks_live = 0;
  for (unsigned rank = 1; rank + 1 < offsets.size(); ++rank) {
    ByteReader r(all.data() + offsets[rank], offsets[rank + 1] - offsets[rank]);
    // (A process that failed says so at the agreement that follows, and its failure at the end.)
    if (!r.take<uint8_t>("whether a process is sound")) return false;
    for (unsigned j = 0; j < per_rank; ++j) {
      const uint32_t k = r.take<uint32_t>("a group's number");
      if (k / per_rank != rank) throw std::runtime_error(fmt::format("rank {} sent the sample of group {}, not its own", rank, k));
      std::vector<uint8_t> sample;
      r.take_vector(sample, "a group's sample");
      tick_samples_[k] = from_bytes(sample.data(), sample.size());
    }
    const RankCounts c = r.take<RankCounts>("a process's counters");
    add_counts(*this, c);
    rank_events_in_ += c.events;
    other_ranks_live += r.take<uint64_t>("a process's packets in flight");
    set_progress_at_least(r.take<uint64_t>("a process's progress"));
    add_flow_bytes(r);
    other_rows_.add_bytes(r);
    if (r.left()) throw std::runtime_error(fmt::format("rank {} sent {} bytes more than an interval's", rank, r.left()));
  }
  return true;
}

void Fabric::finish_over_ranks(std::exception_ptr& failure) {
  // The failure here, as its kind and message.
  uint8_t kind = 0;  // 0 none, 1 model, 2 stall
  std::string message;
  auto note = [&](std::exception_ptr e) {
    try {
      std::rethrow_exception(e);
    } catch (const StallError& ex) {
      kind = 2;
      message = ex.what();
    } catch (const std::exception& ex) {
      kind = 1;
      message = ex.what();
    }
  };
  if (failure) note(failure);
  // The last cycle any process ran.
  now_ = UINT64_MAX - ranks_->min(UINT64_MAX - now_);
  std::vector<uint8_t> mine;
  {
    ByteWriter w(mine);
    w.put(kind);
    w.put_vector(std::vector<char>(message.begin(), message.end()));
    if (ranks_->rank() != 0) {
      w.put(take_counts(*this));
      w.put(live_here());
      w.put(last_progress());
      put_flow_bytes(w);
      std::vector<uint64_t> ev, wait;
      for (unsigned k = local_lo_; k < local_hi_; ++k) {
        ev.push_back(parallel_stats_.events[k] + calendars_[k]->events);
        wait.push_back(parallel_stats_.barrier_ns[k]);
      }
      w.put_vector(ev);
      w.put_vector(wait);
      std::vector<uint8_t> ports;
      to_bytes(port_reports_here(), ports);
      w.put_vector(ports);
      check_rows().to_bytes(w);
    }
  }
  std::vector<size_t> offsets;
  const std::vector<uint8_t> all = ranks_->gather(mine, &offsets);
  if (ranks_->rank() == 0) {
    try {
      const unsigned per_rank = local_hi_ - local_lo_;
      other_rows_ = CheckRows{};
      other_ranks_live = 0;
      end_ports_ = port_reports_here();
      for (unsigned rank = 1; rank + 1 < offsets.size(); ++rank) {
        ByteReader r(all.data() + offsets[rank], offsets[rank + 1] - offsets[rank]);
        const uint8_t k = r.take<uint8_t>("a process's verdict");
        std::vector<char> text;
        r.take_vector(text, "a process's failure");
        if (k && !kind) {
          kind = k;
          message = fmt::format("(rank {}) {}", rank, std::string(text.begin(), text.end()));
        }
        add_counts(*this, r.take<RankCounts>("a process's counters"));
        other_ranks_live += r.take<uint64_t>("a process's packets in flight");
        set_progress_at_least(r.take<uint64_t>("a process's progress"));
        add_flow_bytes(r);
        std::vector<uint64_t> ev, wait;
        r.take_vector(ev, "a process's events per group");
        r.take_vector(wait, "a process's barrier times");
        if (ev.size() != per_rank || wait.size() != per_rank) throw std::runtime_error("a process sent the events of another count of groups");
        for (unsigned j = 0; j < per_rank; ++j) {
          parallel_stats_.events[rank * per_rank + j] = ev[j];
          parallel_stats_.barrier_ns[rank * per_rank + j] = wait[j];
        }
        std::vector<uint8_t> ports;
        r.take_vector(ports, "a process's port reports");
        const std::vector<PortReport> rows = port_reports_from_bytes(ports.data(), ports.size());
        end_ports_.insert(end_ports_.end(), rows.begin(), rows.end());
        other_rows_.add_bytes(r);
        if (r.left()) throw std::runtime_error(fmt::format("rank {} sent {} bytes more than its end's", rank, r.left()));
      }
      std::stable_sort(end_ports_.begin(), end_ports_.end(), [](const PortReport& a, const PortReport& b) {
        return a.node != b.node ? a.node < b.node : a.port < b.port;
      });
      if (!kind) check_invariants();
    } catch (const std::exception& ex) {
      if (!kind) {
        kind = dynamic_cast<const StallError*>(&ex) ? 2 : 1;
        message = ex.what();
      }
    }
  }
  // Rank 0's verdict, everywhere.
  std::vector<uint8_t> verdict;
  {
    ByteWriter w(verdict);
    w.put(kind);
    w.put_vector(std::vector<char>(message.begin(), message.end()));
  }
  verdict = ranks_->broadcast(verdict);
  ByteReader r(verdict.data(), verdict.size());
  kind = r.take<uint8_t>("the run's verdict");
  std::vector<char> text;
  r.take_vector(text, "the run's failure");
  message.assign(text.begin(), text.end());
  failure = nullptr;
  if (kind == 2) failure = std::make_exception_ptr(StallError(message));
  if (kind == 1) failure = std::make_exception_ptr(ModelError(message));
}

}  // namespace ibcc::net
