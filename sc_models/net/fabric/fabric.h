// The network model: switches and HCAs as SystemC modules exchanging TLM-2.0 payloads over
// credit-controlled links. Event-driven at core-clock resolution: every action (a head
// arriving, a transmission ending, credits coming back, a flow's next packet) is an event at
// an exact cycle in one calendar; an idle port has no events and costs nothing. The SystemC
// kernel's time follows the calendar (one SC_METHOD wakes at each busy cycle; with
// set_run_ahead it runs the busy cycles in one activation).
//
// Walk of one packet (docs/architecture.md has it with line references):
//   HcaSender::try_send -> transmit -> out socket->nb_transport_fw (BEGIN_REQ, delay = propagation)
//   -> Switch::on_arrive (buffer, route by LFT, VoQ, marker fill) -> Switch::arbitrate
//   -> MarkerPort::depart (FECN) -> transmit -> ... -> Hca::on_arrive (sink, CNP on FECN)
//   -> Hca::sink_done (credits back) ; the CNP returns -> CctiPort::becn -> IRD grows.
#pragma once

#include <systemc>
#include <tlm>

#include <cstdint>
#include <atomic>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <tuple>
#include <vector>

#include "net/fabric/cc_adapters.h"
#include "net/fabric/check_rows.h"
#include "net/fabric/node_context.h"
#include "net/fabric/port_counters.h"
#include "net/fabric/port_report.h"
#include "net/fabric/tick_sample.h"
#include "net/parallel/parallel_profile.h"
#include "net/parallel/partition.h"
#include "net/parallel/rank_exchange.h"
#include "net/scenario/scenario.h"

namespace ibcc::net {

class RtlLoop;
class CutLinkEnd;

class Switch;
class Hca;

class Fabric : public sc_core::sc_module, public NodeContext {
 public:
  SC_HAS_PROCESS(Fabric);
  // `rtl` (optional): builds the Verilated blocks for the switch ports ("SWITCH/PORT": the
  // FECN marker) and HCAs (a name: the CCTI block) in `s.cc.rtl`, which then decide in
  // place of the C++ cores (ibcc run --rtl).
  //
  // `threads` > 1: a parallel run. The fabric is split into that many groups (partition.h),
  // each with its own calendar (a shard: NodeContext) on its own thread; the threads run
  // window by window (the partition's window) and exchange what crosses a cut link at the
  // barrier between two windows. Same-cycle events run in the canonical order (run_cycle), so
  // the results are those of one thread, byte for byte. PartitionError when the fabric
  // cannot be split so, or uses what a parallel run does not support yet (named).
  //
  // `ranks` (a run over processes, MPI: every process builds the whole fabric with the same
  // arguments): the fabric is split into threads × ranks groups, the same partition in every
  // process, and each process runs its `threads` of them (rank r: groups r × threads ..).
  // At each barrier the processes exchange what crosses between their groups and agree on
  // the earliest event; rank 0 closes the log intervals and ends the run with every
  // process's samples, flows' counts, ports and check rows (its results are the whole
  // fabric's: the others' are not to be read).
  Fabric(sc_core::sc_module_name name, const Scenario& s, RtlLoop* rtl = nullptr, unsigned threads = 1,
         RankExchange* ranks = nullptr);

  // The Verilated blocks in the loop (cc.rtl): switch ports, then HCAs, with what their
  // waveform views need.
  struct RtlBlock {
    std::string name;  // SWITCH/PORT or the HCA
    bool marker;       // the FECN marker (else the CCTI block)
    RtlEngine* engine;
    unsigned num_inputs = 0, num_vls = 0, fill_width = 0;  // marker
    unsigned num_qps = 0;                                   // CCTI block
  };
  const std::vector<RtlBlock>& rtl_blocks() const { return rtl_blocks_; }
  ~Fabric() override;

  // Runs to the scenario's sim time; throws ModelError on a broken invariant or deadlock.
  // Returns early, at an event boundary with every invariant holding, once *stop_flag (set
  // with set_stop_flag) becomes true: interrupted() then says so and now() how far it got.
  void run();
  // A flag another context may set at any time (a signal handler: a lock-free atomic).
  void set_stop_flag(const std::atomic<bool>* flag) { stop_flag_ = flag; }
  // For a simulation whose only SystemC process is this fabric's (ibcc run): the calendar
  // then runs from busy cycle to busy cycle inside one activation of the kernel instead of
  // waking the kernel for each (the same events in the same order; the kernel's time stays
  // behind). A claimed link (a user's module between the ends) needs the kernel's time:
  // the run then fails before the first event (ModelError from run()).
  void set_run_ahead(bool on) { run_ahead_ = on; }
  // Counts every event for the group of its node (ibcc run --profile-partitions): what a
  // parallel run of that partition could gain. Null: not counted (the default, at no cost).
  void set_parallel_profile(ParallelProfile* p) { profile_ = p; }
  bool interrupted() const { return interrupted_; }

  // A parallel run's partition (parts 1: a sequential run) and what its threads did: events,
  // time spent waiting at barriers and the windows run.
  const PartitionPlan& partition() const { return plan_; }
  struct ParallelStats {
    uint64_t windows = 0;        // windows run (barriers: about two per window)
    uint64_t ticks = 0;          // log intervals closed at a barrier
    std::vector<uint64_t> events;      // per shard
    std::vector<uint64_t> barrier_ns;  // per thread: waiting at barriers (including serial work at one)
    uint64_t serial_ns = 0;            // log intervals (one thread, the others waiting)
  };
  const ParallelStats& parallel_stats() const { return parallel_stats_; }

  uint64_t wall_ns = 0;
  std::vector<std::vector<uint64_t>> interval_bytes;  // per log interval, per flow
  std::vector<uint64_t> interval_end_cycle;
  std::vector<PortSample> port_samples;
  std::vector<std::vector<uint16_t>> interval_ccti;  // per log interval, per flow: CCTI at its end
  // DCQCN reaction points (cc.reaction dcqcn | dcqcn_plus), per log interval, per flow: its
  // QPs' rates at the interval end (empty under IB CC).
  using FlowRates = ibcc::net::FlowRates;
  std::vector<std::vector<FlowRates>> interval_rates;

  // Called after every log interval (progress display).
  std::function<void(uint64_t now_ps)> on_log_tick;

  // Invariants: throws ModelError naming the first that fails. With rows (check_rows of
  // every process of a run over processes, merged), of those.
  void check_invariants() const;
  void check_invariants(CheckRows rows) const;
  // What the invariants read of the nodes this process runs (all of them but in a run over
  // processes).
  CheckRows check_rows() const;
  std::string deadlock_report() const;

  // A switch input buffer (node, input port, VL) and, in a wait-for graph, what it waits on.
  struct BufferId {
    unsigned node = 0, port = 0, vl = 0;
    bool operator<(const BufferId& o) const {
      return std::tie(node, port, vl) < std::tie(o.node, o.port, o.vl);
    }
    bool operator==(const BufferId& o) const { return node == o.node && port == o.port && vl == o.vl; }
  };
  // A cycle of switch input buffers none of which can ever send again: each head packet waits
  // for credits that only the next buffer of the cycle could free, and that buffer is stuck
  // too. Empty if there is none. Not cheap: called only once a buffer has been blocked for
  // the deadlock timeout or flows have stalled.
  std::vector<BufferId> deadlock_cycle() const;
  // Flows that delivered nothing for `cycles` while they had packets in flight (called at
  // the stall checks: it notes which flows have packets in flight since the last).
  std::vector<unsigned> stalled_flows(uint64_t cycles);
  std::string stall_report(const std::vector<unsigned>& stuck) const;
  // The ports as they stand (port_report.h): every output port of every node of one shard
  // (kAllShards: of the fabric), in node and port order.
  static constexpr unsigned kAllShards = UINT32_MAX;
  std::vector<PortReport> port_reports(unsigned shard = kAllShards) const;
  // The trip level of switch `node`'s output `port` (MarkingPoint::trip_level; none without
  // a marking point that watches VoQ fills).
  MarkingPoint::TripLevel trip_level(unsigned node, unsigned port) const;
  // What the build found worth saying about the scenario (a trip level no VoQ can reach).
  const std::vector<std::string>& notes() const { return notes_; }
  std::string cycle_report(const std::vector<BufferId>& cycle) const;

 private:
  RtlLoop* rtl_ = nullptr;
  ParallelProfile* profile_ = nullptr;
  std::vector<std::string> rtl_ports_;
  std::vector<bool> rtl_used_;
  std::vector<RtlBlock> rtl_blocks_;
  // Whether `name` (SWITCH/PORT or an HCA) is one the RTL goes in; marks it used.
  bool rtl_named(const std::string& name) {
    bool hit = false;
    for (size_t i = 0; i < rtl_ports_.size(); ++i) {
      if (rtl_ports_[i] == name) hit = rtl_used_[i] = true;
    }
    return hit;
  }
  void pump();
  void pump_events();
  // A parallel run: the partition's shards, the cut links' ends, the threads' loop
  // (fabric_parallel.cpp).
  PartitionPlan plan_;
  std::vector<std::unique_ptr<NodeContext>> shard_store_;  // shards 1.. (shard 0 is this)
  std::vector<NodeContext*> calendars_;                    // every shard, by number
  std::vector<std::unique_ptr<CutLinkEnd>> cut_ends_;
  ParallelStats parallel_stats_;
  void make_shards(unsigned threads);
  // A run over processes (fabric_ranks.cpp): the window's messages toward other processes'
  // groups sent, theirs for this one's taken in; what this process sends the one that
  // closes a log interval (after its shards' counters are gathered) and what that one does
  // with it; the end of the run (counters, flows, ports, the last check, the failure).
  void exchange_over_ranks();
  std::vector<uint8_t> interval_bytes_for_rank0(bool ok);
  bool take_interval_bytes(const std::vector<uint8_t>& all, const std::vector<size_t>& offsets);  // false: a process failed
  std::vector<PortReport> port_reports_here() const;  // of the nodes this process runs
  std::vector<PortReport> port_reports_of(const std::function<bool(unsigned)>& mine) const;
  void finish_over_ranks(std::exception_ptr& failure);
  unsigned relay_shard_ = 0;          // a group of another process: its outboxes hold what came in
  CheckRows other_rows_;              // (rank 0) the other processes' check rows, for check_invariants
  std::vector<PortReport> end_ports_; // (rank 0) every process's ports at the end
  uint64_t rank_events_in_ = 0;       // (rank 0) events the other processes counted
  void add_flow_bytes(ByteReader& r);
  void put_flow_bytes(ByteWriter& w);
  uint64_t live_here() const;  // the packets in this process's pools
  void install_cut_links();
  void run_parallel();
  // A run over processes (MPI): the ranks' exchange, and the shards this process runs
  // [local_lo_, local_hi_) (every shard otherwise).
  RankExchange* ranks_ = nullptr;
  unsigned local_lo_ = 0, local_hi_ = 1;
  bool ranked() const { return ranks_ != nullptr && ranks_->ranks() > 1; }
  bool runs_here(unsigned node) const {
    return !ranked() || (plan_.part_of[node] >= local_lo_ && plan_.part_of[node] < local_hi_);
  }
  NodeContext& shard_of(unsigned node) { return calendars_.size() > 1 ? *calendars_[plan_.part_of[node]] : *this; }
  void before_end_of_elaboration() override { bind_links(); }
  // A claimed link whose sockets nobody bound fails the run (failure_).
  void start_of_simulation() override;
  // A log interval's end (sequential: the kLogTick event): every node sampled, then closed.
  void log_tick();
  // What a log interval's end at cycle `t` samples of the nodes of one shard (kAllShards:
  // every node): the CCTI or rates of the flows whose source it holds, its switches' port
  // samples (which take their counters' intervals). Touches only that shard's nodes, so the
  // shards of a parallel run sample on their own threads, at once.
  // (TickSample: net/fabric/tick_sample.h, with its bytes.)
  void sample_nodes(unsigned shard, uint64_t t, TickSample& out);
  // Closes the log interval ending at now_ from the shards' samples (`count` of them: one per
  // shard, or one of every node) and the flows' counts (the shards' gathered first): the
  // intervals' rows, then the invariants, the deadlock and stall checks (ModelError,
  // StallError) and on_log_tick.
  void close_interval(TickSample* parts, size_t count);
  std::vector<TickSample> tick_samples_ = std::vector<TickSample>(1);  // per shard
  void build();
  // A random generator's seed of its own for output `port` of switch `node`, from sim.seed:
  // runs repeat, and two seeds differ.
  uint32_t port_seed(unsigned node, unsigned port) const {
    return static_cast<uint32_t>((s_.sim.seed * 0x9E3779B97F4A7C15ULL + node * 1000003ULL + port) >> 17) | 1u;
  }
  void note_shared_ccti_entries();
  std::vector<std::string> notes_;

  uint64_t end_cycle_;
  uint64_t log_cycles_;
  uint64_t deadlock_cycles_;
  uint64_t stall_cycles_;  // a flow with packets in flight delivering nothing for this long: stalled
  uint64_t last_stall_check_ = 0;
  uint64_t last_blocked_check_ = 0;
  // Throws ModelError naming the cycle when a switch input buffer has held packets without
  // sending any for the deadlock timeout and the wait-for graph of the stuck buffers has a
  // cycle (checked every quarter of the timeout, at the log ticks).
  void blocked_buffer_check();
  std::string failure_;
  bool failure_is_stall_ = false;  // failure_ is a StallError's
  const std::atomic<bool>* stop_flag_ = nullptr;
  bool run_ahead_ = false;
  bool interrupted_ = false;
};

}  // namespace ibcc::net
