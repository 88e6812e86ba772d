// What every node of the network model shares and works through: the event calendar and
// the current cycle, the packet pool, the scenario, the topology, the flows, the node table
// and the fabric-wide counters. Fabric (fabric.h) is one: it adds the builder, the SystemC
// process that runs the calendar, statistics, invariants and the deadlock report. A unit test
// makes a NodeContext of its own, adds one Switch or Hca and probe nodes around it, and runs
// the calendar itself (run_until) without SystemC's scheduler (tests/net/test_switch.cpp).
// Also here: the events, the two sides of a port, Node (a switch or an HCA) and Flow.
#pragma once

#include <systemc>
#include <tlm>

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "net/fabric/canonical_round.h"
#include "net/fabric/event_calendar.h"
#include "net/fabric/input_unit.h"
#include "net/observe/latency_histogram.h"
#include "net/fabric/link_socket.h"
#include "net/fabric/packet.h"
#include "net/scenario/scenario.h"
#include "net/scenario/shared_seq.h"
#include "net/scenario/topology.h"
#include "net/fabric/vl_array.h"
#include "net/fabric/vl_arbiter.h"
#include "net/parallel/wire_message.h"

namespace ibcc::net {

class Probe;
class NodeContext;

// Failed invariant or deadlock: the run stops and the message says what broke where.
class ModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// Flows that delivered nothing for sim.stall_timeout while packets of theirs were in flight:
// the run stops, and what it measured up to there is its result (status `stalled`).
class StallError : public ModelError {
 public:
  using ModelError::ModelError;
};

enum class EventKind : uint8_t {
  kArrive,       // a packet's head reaches an input port
  kTailIn,       // its tail is in: if it still waits in its VoQ it now counts in the fill
  kArbitrate,    // an output port may be able to send
  kTxDone,       // an output port finished a packet (its tail left the input buffer)
  kCredit,       // credits come back to an output port
  kSinkDone,     // an HCA finished draining a packet
  kHcaWake,      // an HCA's flow may send again (IRD, rate, start time)
  kLogTick,      // statistics interval, invariant and deadlock checks
  kPfc,          // a PFC pause frame reaches an output port (value 1: XOFF, 0: XON)
  kCancelled,    // cancelled after it was scheduled (EventCalendar::cancel): nobody handles it
};

// 32 bytes: the calendar's pool holds millions of these under load, and each event handled
// reads one (FIFO order among events of one cycle is the order they were scheduled in:
// EventCalendar keeps it).
struct Event {
  uint64_t cycle;
  tlm::tlm_generic_payload* pkt;
  uint32_t node;
  uint32_t value;
  uint8_t port;   // (ports are at most 255)
  uint8_t age;    // cycles from when it was scheduled to its cycle, at most 255 (run_cycle's order)
  uint8_t vl;
  EventKind kind;
  uint32_t link = 0;  // EventCalendar's
  void cancel() {
    kind = EventKind::kCancelled;
    pkt = nullptr;
  }
};
static_assert(sizeof(Event) == 32, "Event is meant to fill half a cache line");
static_assert(EventCalendar<Event>::kNoHandle == InputUnit::PendingTail{}.event, "a tail with no event is kNoHandle");

// The cycles a size takes at a fixed rate, kept for the last size asked: a port's or a
// sink's packets mostly have one size, so most packets cost no floating-point ceiling.
// get(size, compute) returns compute(size), computing it only for a new size.
struct SizeCycles {
  uint32_t size = UINT32_MAX;
  uint32_t cycles = 0;
  template <typename Compute>
  uint64_t get(uint32_t s, Compute&& compute) {
    if (s == size) return cycles;
    const uint64_t c = compute(s);
    if (c <= UINT32_MAX) {  // (kept only if it fits)
      size = s;
      cycles = static_cast<uint32_t>(c);
    }
    return c;
  }
  // A packet of `s` bytes at a rate of `cycles_per_byte`, in whole cycles (rounded up).
  uint64_t at_rate(uint32_t s, double cycles_per_byte) {
    return get(s, [cycles_per_byte](uint32_t w) { return static_cast<uint64_t>(std::ceil(w * cycles_per_byte)); });
  }
};

// The transmit side of a port: the link toward the peer's input buffer and its credits.
// Laid out by use: what a hop reads and writes (sending, the credits of its VL) first.
struct alignas(64) OutPort {
  // Line 0: sending (transmit) and what a head's arrival at a switch reads (the output
  // exists, is it busy, when its next head is eligible, its pending arbitration).
  int peer = -1;             // node, -1: unconnected
  unsigned peer_port = 0;
  PortEnd::FwIf* fw = nullptr;       // what the port's initiator socket is bound to (after elaboration)
  uint64_t busy_until = 0;
  uint64_t arb_at = UINT64_MAX;      // cycle of the pending arbitration event
  uint64_t wait_eligible = 0;        // the last arbitration that sent nothing: when its next head is eligible
  sc_core::sc_time prop_delay;       // prop_cycles as a TLM delay (made once, not per packet)
  SizeCycles ser;                    // ser_cycles of the last packet size sent
  bool tx_active = false;
  bool user_bound = false;           // claimed: a user's module binds this link's sockets
  // PFC or a lossy link (no credits): the sender is never short of credits unless its peer
  // paused the VL; `credits[vl]` is then 0, else kPfcOpen, and a transmission takes none.
  bool uncredited = false;
  // Credits that come back while the port is sending (before busy_until) to a VL that has
  // credits are not an event: their handler would only count them (a switch output arbitrates
  // when done sending, and the FECN marker sees only whether a VL has credits; an HCA, not
  // DCQCN's, asks for the next packet when done sending). They wait in OutPortVl::deferred
  // (still counted as returning) until take_deferred_credits(), which the node calls when
  // it is done sending, before it reads its credits. Set by the fabric where that holds: a
  // credited link, no waveforms (they show credits as they change), no ignore_credits fault.
  bool defer_credits = false;
  bool has_deferred = false;
  // Line 1: the rest of sending. A switch output's packet being sent (its input, VL and
  // credits; it takes the port's rate of its input's crossbar port); the port's counters.
  uint64_t prop_cycles = 0;
  double cycles_per_byte = 0;
  uint32_t capacity = 0;             // the peer's per-VL buffer, credits
  unsigned tx_input = 0, tx_vl = 0, tx_credits = 0;
  double rate_bytes_per_cycle = 0;
  uint64_t packets = 0, bytes = 0, marked = 0;
  // Per VL (OutPortVl: credits, need, sent, returning, deferred).
  using Vl = OutPortVl;
  VlArray<Vl> vls;
  void set_all_credits(uint32_t c) {
    for (Vl& v : vls) v.credits = c;
  }
  void take_deferred_credits() {
    if (!has_deferred) return;
    has_deferred = false;
    for (Vl& v : vls) {
      v.credits += v.deferred;
      v.returning -= v.deferred;
      v.deferred = 0;
    }
  }
  uint64_t pauses = 0;               // XOFF frames received
  uint64_t drops = 0;                // lossy: packets dropped at this output's limit (output/shared buffers)
  static constexpr uint32_t kPfcOpen = 1u << 30;
  VlArbiter vlarb;                   // with VLArbitration tables
};

// A switch or an HCA: a SystemC module with one PortEnd (two TLM-2.0 sockets, link_socket.h)
// per port of its topology node, made in the constructor.
class Node : public sc_core::sc_module {
 public:
  Node(sc_core::sc_module_name name, NodeContext& ctx, unsigned index);
  ~Node() override;
  virtual void handle(const Event& e) = 0;
  // Its ports are wired (NodeContext::wire_ports): what depends on their links is set here.
  virtual void wired() {}
  // Notes each port's bound interfaces (OutPort::fw, InputUnit::bw).
  void end_of_elaboration() override;

  // Port `p`'s sockets (1-based).
  PortEnd& end(unsigned p) { return *ends_[p]; }
  const PortEnd& end(unsigned p) const { return *ends_[p]; }
  unsigned num_ends() const { return static_cast<unsigned>(ends_.size() - 1); }
  NodeContext& context() { return ctx_; }
  unsigned index() const { return index_; }

  // What every event of the node reads (its ports, the context, its index) in one cache
  // line: sc_module's members before them end mid-line.
  alignas(64) std::vector<OutPort> out;  // [port], 1-based
  std::vector<InputUnit> in;  // [port], 1-based

 protected:
  NodeContext& ctx_;
  unsigned index_;

 private:
  std::vector<std::unique_ptr<PortEnd>> ends_;
};

// Laid out by use: what every delivered packet updates first (one cache line), its latency
// histograms next, the rest after.
struct FlowStats {
  uint64_t injected_packets = 0;
  uint64_t injected_bytes = 0;
  uint64_t delivered_bytes = 0;
  uint64_t delivered_packets = 0;
  uint64_t dropped_packets = 0;  // lossy fabrics: its packets a buffer dropped
  uint64_t answer_bytes = 0;     // ping-pong: the answers delivered back to the source
  uint64_t answer_packets = 0;
  uint64_t discarded_packets = 0;  // Go-Back-N: see below
  // Last time the flow moved: a packet delivered (written where it is), or the first stall
  // check that found packets in flight after one that found none (Fabric::stalled_flows:
  // the source does not read what its destination counts, which a parallel run keeps on
  // another thread).
  uint64_t progress_cycle = 0;
  bool idle_at_check = true;  // none in flight at the last stall check
  uint64_t interval_bytes = 0;
  // Inside the statistics window (NodeContext::set_stats_window): each data packet from its
  // message's creation to the end of its drain at the sink (source queueing, IRD waits, the
  // fabric, the sink); each message from creation to its completion (last packet drained +
  // the HCA's completion latency); each ping-pong round trip. Core cycles.
  LatencyHistogram packet_latency;
  LatencyHistogram message_latency;
  uint64_t fecn_marked = 0;    // data packets that arrived with FECN
  uint64_t out_of_order = 0;   // adaptive routing: data packets that arrived after a later one of the flow
  uint64_t becn_received = 0;  // BECNs the source took for this flow
  // Go-Back-N: packets the receiver took out of order (and discarded: discarded_packets),
  // packets sent again, timeouts and NACKs that sent the sender back.
  uint64_t retransmitted_packets = 0, timeouts = 0, nacks = 0;
  // ... and the sender's events as the seed chapter's 3-state chain sees them: Pack (an ACK
  // that advanced its window), Nack (a NACK that sent it back), timeout; `packs` counts the
  // first, `chain[from][to]` the transitions between consecutive events.
  enum GbnEvent : uint8_t { kPack, kNack, kTimeout, kNoEvent };
  static constexpr char kGbnEventLetter[] = "PNT";  // summary.json names a transition "PN", ...
  uint64_t packs = 0;
  uint64_t chain[kNoEvent][kNoEvent] = {};
  LatencyHistogram pingpong_rtt;
  // RTT probes (cc.dcqcn.rtt_probe_interval): each probe's round trip as its source measures
  // it, from the probe leaving to its response arriving; probes sent. Counted at the source.
  LatencyHistogram probe_rtt;
  uint64_t probes_sent = 0;

  // Adds what a flow's destination counts (deliveries, answers, discards, their latencies,
  // FECN seen, progress) and what switches dropped of it (a lossy fabric) from `share` (a
  // parallel run's shard counts its own: add_share, at every log interval) and clears it there.
  void add_share(FlowStats& share);
  // A share as bytes and back (what a parallel run's process sends the one that writes the
  // results): the same fields add_share adds.
  void share_to_bytes(ByteWriter& w) const;
  static FlowStats share_from_bytes(ByteReader& r);
  // What the flow's source counts (injections, BECNs, Go-Back-N's sender, RTT probes) as
  // bytes, and those bytes taken in place of this one's (the process that writes the results
  // holds a copy of the flow whose source ran in another). With the share's fields these
  // are every field the results read; idle_at_check belongs to the stall checks of the
  // process that runs them.
  // The share's fields moved out (this flow's left at zero; its progress kept): what a
  // process of a run over processes sends at a log interval of what its destinations
  // counted since the last.
  FlowStats take_share();
  void source_to_bytes(ByteWriter& w) const;
  void take_source_bytes(ByteReader& r);

 private:
  // The counts a share adds (add_share, the bytes), listed once.
  static constexpr uint64_t FlowStats::* kShareSums[] = {
      &FlowStats::delivered_bytes, &FlowStats::delivered_packets, &FlowStats::answer_bytes,
      &FlowStats::answer_packets,  &FlowStats::discarded_packets, &FlowStats::dropped_packets,
      &FlowStats::interval_bytes,  &FlowStats::fecn_marked,       &FlowStats::out_of_order};
  static constexpr LatencyHistogram FlowStats::* kShareHistograms[] = {
      &FlowStats::packet_latency, &FlowStats::message_latency, &FlowStats::pingpong_rtt};
  // The counts the source keeps (source_to_bytes), listed once; with `chain`.
  static constexpr uint64_t FlowStats::* kSourceCounts[] = {
      &FlowStats::injected_packets, &FlowStats::injected_bytes, &FlowStats::becn_received,
      &FlowStats::retransmitted_packets, &FlowStats::timeouts, &FlowStats::nacks,
      &FlowStats::packs, &FlowStats::probes_sent};
  static constexpr LatencyHistogram FlowStats::* kSourceHistograms[] = {&FlowStats::probe_rtt};
};

// Laid out by use, as FlowStats, in cache lines: what sending a packet reads first (one
// line), then the rest of the sender's state, the statistics (their hot line first), the
// specification (FlowSpec: the fields read per packet and per message first) and the
// destination lists (read per message).
struct alignas(64) Flow {
  unsigned src = 0;            // node
  int dst = -1;                // node, -1: drawn per message
  uint64_t start_cycle = 0, stop_cycle = UINT64_MAX;
  // A message in progress: its destination, QP, bytes left, creation and IRD pacing.
  struct Lane {
    Lid dlid = 0;
    uint32_t qp = 0;
    uint64_t message_left = 0;
    uint64_t create_cycle = 0;
  };
  std::vector<Lane> lanes;
  unsigned lane_rr = 0;
  uint32_t psn = 0;
  uint8_t sl = 0;  // spec.sl, in the line sending reads (set with spec; every packet needs it)
  // (line 1) Offered rate; 0 saturating. Offered-rate flows: the application creates a
  // message every message_bytes at the rate (open loop: messages the source cannot send
  // yet wait, and their wait counts in latency).
  double rate_cycles_per_byte = 0;
  double next_message_cycle = 0;
  // Ping-pong: a ping is out (waiting for its answer); the next may leave at pp_next.
  bool pp_waiting = false;
  uint64_t pp_next = 0;
  // RTT probes: one is due (HcaSender's probe queue) to the destination and QP of the flow's
  // last data packet.
  bool probe_armed = false;
  Lid probe_dlid = 0;
  uint32_t probe_qp = 0;
  alignas(64) FlowStats stats;
  alignas(64) FlowSpec spec;
  SharedSeq<Lid> uniform_lids;  // the LIDs of spec.uniform_dsts, a view of a shared list
  std::vector<Lid> hot_lids;
  size_t next_dst = 0;              // DstOrder::kSequence: index into uniform_lids
};

// What the nodes of every calendar share: the topology, the node table and the flows (held by
// the first NodeContext, the one the others are shards of).
struct NodeWorld {
  Topology topo;
  std::vector<std::unique_ptr<Node>> nodes;
  std::vector<Flow> flows;
};

class NodeContext {
 public:
  // The clock from s.fabric.core_clock_hz; `topo` is the fabric the nodes will stand for.
  NodeContext(const Scenario& s, Topology topo);
  // A shard of `primary` (a parallel run): its scenario, clock, topology, nodes and flows,
  // with a calendar, a time, a packet pool, counters and a credit payload of its own. Nodes
  // made with a shard schedule on its calendar.
  explicit NodeContext(NodeContext& primary);
  virtual ~NodeContext();
  NodeContext(const NodeContext&) = delete;
  NodeContext& operator=(const NodeContext&) = delete;

  // Returns a handle for cancel() (EventCalendar::push).
  uint32_t schedule(uint64_t cycle, EventKind k, uint32_t node, uint32_t port = 0, uint32_t vl = 0, uint32_t value = 0,
                    tlm::tlm_generic_payload* pkt = nullptr) {
    if (cycle >= queue_.wheel_end()) {
      return queue_.push(Event{cycle, pkt, node, value, static_cast<uint8_t>(port), 255, static_cast<uint8_t>(vl), k});
    }
    // (Filled in place: EventCalendar::emplace.)
    uint32_t handle;
    Event& e = queue_.emplace(cycle, &handle);
    e.cycle = cycle;
    e.pkt = pkt;
    e.node = node;
    e.value = value;
    e.port = static_cast<uint8_t>(port);
    const uint64_t age = cycle - (scheduled_at_ == kNow ? now_ : scheduled_at_);
    e.age = static_cast<uint8_t>(age < 255 ? age : 255);
    e.vl = static_cast<uint8_t>(vl);
    e.kind = k;
    return handle;
  }
  // An event scheduled and not yet handled will not be: it was a no-op by now.
  void cancel(uint32_t handle) { queue_.cancel(handle); }
  static constexpr uint32_t kNoEvent = EventCalendar<Event>::kNoHandle;
  uint64_t now() const { return now_; }
  PacketPool& pool() { return pool_; }
  const PacketPool& pool() const { return pool_; }
  const Scenario& scenario() const { return s_; }
  const Topology& topology() const { return topo_; }
  // The packets in flight, over every shard's pool (a packet freed in another shard than the
  // one it was taken from counts there: only the sum means something).
  uint64_t live_packets() const {
    uint64_t n = pool_.live() + other_ranks_live;
    for (const NodeContext* sh : shards_) n += sh->pool_.live();
    return n;
  }
  std::vector<Flow>& flows() { return flows_; }
  // What a flow's destination counts, and a lossy switch's drops of its packets, go here: the
  // flow's statistics, or in a shard of a parallel run (other than the first) that shard's
  // share of them, which fold_shares() adds to the flow's (several destinations of one flow
  // may lie in different shards).
  FlowStats& sink_stats(unsigned flow) {
    if (shares_.empty()) return flows_[flow].stats;
    if (!shared_[flow]) {
      shared_[flow] = true;
      shared_list_.push_back(flow);
    }
    return shares_[flow];
  }
  // This shard counts its destinations' statistics apart (a parallel run's shards 1..).
  void keep_shares() {
    shares_.resize(flows_.size());
    shared_.assign(flows_.size(), false);
  }
  void fold_shares() {
    for (uint32_t f : shared_list_) {
      flows_[f].stats.add_share(shares_[f]);
      shared_[f] = false;
    }
    shared_list_.clear();
  }
  const std::vector<Flow>& flows() const { return flows_; }
  Node& node(unsigned i) { return *nodes_[i]; }
  const Node& node(unsigned i) const { return *nodes_[i]; }
  size_t num_nodes() const { return nodes_.size(); }
  uint64_t cycles(uint64_t ps) const { return (ps + ps_per_cycle_ - 1) / ps_per_cycle_; }
  uint64_t ps(uint64_t cycles) const { return cycles * ps_per_cycle_; }
  uint64_t ps_per_cycle() const { return ps_per_cycle_; }
  // A link's delay in the TLM calls (SystemC time, resolution 1 ps) and the cycle it ends at.
  sc_core::sc_time link_delay(uint64_t cycles) const { return sc_core::sc_time::from_value(cycles * ps_per_cycle_); }
  // The cycle a head, credit or pause sent through a port's socket with `delay` arrives at:
  // the cycle in which the time of the call plus `delay` falls (a delay of a fraction of a
  // cycle is rounded down with it). Called by the fabric's own events, the time of the call is
  // the current cycle; called from a user's SystemC process (a module bound into a link that
  // holds a packet and forwards it later), it is sc_time_stamp(), and the fabric is woken for
  // that cycle; a cycle the fabric already ran is run again in a later delta, the new events
  // after its others.
  uint64_t arrival_cycle(const sc_core::sc_time& delay) {
    return from_kernel_ ? arrival_from_kernel(delay) : cycle_after(delay);
  }
  uint64_t cycle_after(const sc_core::sc_time& delay) const {
    // Links pass their propagation delay (most fabrics have one or two): the last one's
    // cycles are kept, as a division per packet and per credit return costs tens of cycles.
    if (delay.value() != last_delay_ps_) {
      last_delay_ps_ = delay.value();
      last_delay_cycles_ = last_delay_ps_ / ps_per_cycle_;
    }
    return now() + last_delay_cycles_;
  }
  unsigned num_vls() const { return s_.fabric.vls; }
  uint32_t wire_bytes(uint32_t payload) const { return payload + s_.fabric.data_header_bytes; }
  // Latencies are recorded for deliveries in [from, to) only (the metrics window).
  void set_stats_window(uint64_t from_ps, uint64_t to_ps) {
    stats_from_ = cycles(from_ps);
    stats_to_ = to_ps ? cycles(to_ps) : UINT64_MAX;
    for (NodeContext* sh : shards_) sh->set_stats_window(from_ps, to_ps);
  }
  bool in_stats_window() const { return now_ >= stats_from_ && now_ < stats_to_; }
  static uint32_t credits_of(uint32_t wire_bytes) { return (wire_bytes + 63) / 64; }
  void progress() { last_progress_ = now_; }

  // Node `index` of the topology; nodes are added in index order.
  Node& add_node(std::unique_ptr<Node> n);
  // Sets up every added node's ports from the topology's wiring and the scenario's links and
  // buffers: rates, propagation, buffer capacities, and full credits toward each peer (with
  // PFC: the thresholds of each buffer, ScenarioError if one cannot hold its headroom).
  void wire_ports();

  // Binds the sockets of every link not claimed (claim_link): each port's initiator socket
  // to its peer's target socket. Fabric calls it before the end of elaboration; a unit test
  // calls it, then sc_start(SC_ZERO_TIME) to complete the binding.
  void bind_links();
  // Leaves the link at port `port` of node `node` (both its directions) for the caller to
  // bind: node(node).end(port) and its peer's end. After wire_ports, before bind_links.
  // Throws std::invalid_argument for an unconnected port.
  void claim_link(unsigned node, unsigned port);

  // A parallel run (Fabric): this shard's number and its messages toward each shard, by number.
  unsigned shard_index = 0;
  // A run over processes: the packets in flight in the other processes' pools, as the last
  // log interval found them (live_packets adds them; set in the process that closes it).
  uint64_t other_ranks_live = 0;
  std::vector<std::vector<WireMessage>> outbox;
  // The packets this shard sent over cut links in the current window (copied into their
  // messages), given back to its pool when the window ends (release_crossed): until then a
  // tail event of theirs that could not be cancelled still finds each where it left it.
  std::vector<tlm::tlm_generic_payload*> crossed;
  void release_crossed() {
    for (tlm::tlm_generic_payload* p : crossed) p->release();
    crossed.clear();
  }
  // Runs the calendar's events of the cycles before `end` (the parallel run's window), each
  // handed to its node.
  void run_window(uint64_t end) {
    while (!queue_.empty()) {
      const uint64_t c = queue_.next_cycle();
      if (c >= end) break;
      now_ = c;
      run_cycle<true>(c, [this](const Event& e) { nodes_[e.node]->handle(e); });
    }
  }
  // The earliest cycle with an event, UINT64_MAX with none.
  uint64_t next_event_cycle() const { return queue_.empty() ? UINT64_MAX : queue_.next_cycle(); }
  // A message from another shard (CutLinkEnd), handed to its end as the link would (its
  // delay: what remains from this shard's time to its arrival; the event it makes counts as
  // scheduled when it was sent); a head's packet is taken from this shard's pool.
  void deliver(const WireMessage& m);
  // Adds a shard's counters (its events included) to this context's and zeroes them there;
  // the later progress of the two is kept.
  void absorb(NodeContext& shard);
  void set_now(uint64_t cycle) { now_ = cycle; }
  uint64_t last_progress() const { return last_progress_; }
  void set_progress_at_least(uint64_t cycle) { last_progress_ = std::max(last_progress_, cycle); }

  // Runs the calendar's events up to and including cycle `last` in order, each at its cycle,
  // with no SystemC scheduler (unit tests of single nodes); returns how many ran.
  uint64_t run_until(uint64_t last);
  bool idle() const { return queue_.empty(); }

  // Counters (summary.json).
  uint64_t injected = 0, delivered = 0, on_wire = 0, hops = 0, cnps = 0, events = 0;
  uint64_t dropped = 0;    // lossy fabrics: packets a buffer could not take
  uint64_t discarded = 0;  // Go-Back-N: data taken out of order, discarded at the sink

  // The payload every port's credits travel in (one at a time: a credit call returns before
  // the next is made).
  CreditPayload credit_payload;

  // What observes the model as it acts (ibcc run --waves: NetWaves); null when nothing does.
  Probe* probe = nullptr;

  static constexpr uint32_t kHeaderBytes = 26;  // default data header: LRH 8 + BTH 12 + ICRC 4 + VCRC 2

 protected:
  // PFC on the link into `receiver`'s input `port` from `sender`: its thresholds and pause time.
  void pfc_link(const Node& receiver, unsigned port, const OutPort& sender, InputUnit::Link& l) const;
  uint64_t arrival_from_kernel(const sc_core::sc_time& delay);
  // True while SystemC runs the fabric and its pump is not handling events: a call through a
  // port's socket then comes from a user's process (arrival_cycle).
  bool from_kernel_ = false;
  // Notified for the cycle of an event scheduled from outside the pump; the pump waits on it
  // as well as on its next cycle.
  sc_core::sc_event wake_{"wake"};
  // Opens cycle `cycle` and hands each of its events that was not cancelled to `handle`, in
  // the canonical order, those scheduled for it meanwhile included; counts them in `events`.
  // With `prefetch`, the memory of the next event is asked for while one is handled
  // (prefetch_for: its node must exist).
  //
  // The canonical order of one cycle's events, the same however the nodes are spread over
  // calendars (a parallel run): in rounds, round 0 holding the events scheduled before the
  // cycle opened and round k + 1 those an event of round k scheduled for the same cycle;
  // within a round, each node's events by order_key (the log tick first of all), and events of
  // one key in the order they were scheduled. Only the order of one origin's events at one
  // node is kept from scheduling: they all come from one node (the node itself, or the peer
  // at the link's other end), which scheduled them in its own canonical order. The order
  // among origins and ages does not depend on when a calendar learnt of an event. Nodes do
  // not act on each other within a cycle, so the order across nodes is left as it came
  // (CanonicalRound sorts only what is out of order).
  template <bool prefetch, typename Handle>
  void run_cycle(uint64_t cycle, Handle&& handle) {
    queue_.open(cycle);
    using Calendar = EventCalendar<Event>;
    for (uint32_t n = queue_.take(); n != Calendar::kEnd; n = queue_.take()) {
      round_.begin();
      for (uint32_t k = n; k != Calendar::kEnd; k = queue_.next_of(k)) {
        const Event& ev = queue_.at(k);
        round_.add(order_key(ev), ev.node, ev.kind == EventKind::kLogTick, k);
      }
      round_.finish();
      for (size_t i = 0; i < round_.size(); ++i) {
        const uint32_t k = round_.handle(i);
        const Event e = queue_.at(k);
        queue_.free_node(k);
        if (prefetch && i + 1 < round_.size()) prefetch_for(queue_.at(round_.handle(i + 1)));
        if (e.kind == EventKind::kCancelled) continue;
        ++events;
        handle(e);
      }
    }
  }
  // An event's rank in its round (run_cycle): 0 for the log tick, then node by node; within a
  // node the events scheduled earlier first (by age, as a calendar that keeps the order of
  // scheduling would have them), and those of one age by origin (0: the node itself, else
  // the port of the link it came through). The origins' order is drawn afresh for each node
  // and cycle: a fixed one (port 1 first, always) would favour some inputs in every cycle.
  // The draw is a bijection of 0..255 (origin times an odd number plus an offset, mod 256)
  // from a hash of the cycle and the node: the same in every run and for any partition.
  static uint64_t order_key(const Event& e) {
    if (e.kind == EventKind::kLogTick) return 0;
    const bool from_link = e.kind == EventKind::kArrive || e.kind == EventKind::kCredit || e.kind == EventKind::kPfc;
    const uint32_t origin = from_link ? e.port : 0u;
    const uint64_t h = (e.cycle * 0x9E3779B97F4A7C15ULL + e.node * 0xC2B2AE3D27D4EB4FULL) >> 40;
    const uint32_t rank = (origin * (static_cast<uint32_t>(h) | 1u) + static_cast<uint32_t>(h >> 8)) & 0xFFu;
    return (uint64_t{e.node + 1} << 16) | (uint64_t{255u - e.age} << 8) | rank;
  }
  CanonicalRound round_;  // run_cycle's
  // Asks the memory for what handling `e` will touch first (its packet, its node's port),
  // while the event before it is handled: under load most of these are cache misses.
  void prefetch_for(const Event& e) const {
    if (e.pkt) __builtin_prefetch(&ib(e.pkt));
    // (Every event's port indexes its node's ports; a prefetch beyond them would not fault.)
    __builtin_prefetch(nodes_[e.node]->out.data() + e.port);
  }
  const Scenario& s_;
  std::shared_ptr<NodeWorld> world_;
  Topology& topo_;
  uint64_t ps_per_cycle_;
  uint64_t now_ = 0;
  uint64_t stats_from_ = 0, stats_to_ = UINT64_MAX;
  uint64_t last_progress_ = 0;
  mutable uint64_t last_delay_ps_ = 0, last_delay_cycles_ = 0;  // cycle_after's
  // When the event being scheduled counts as scheduled (its age): now, unless deliver() hands
  // over a message sent earlier by another shard.
  static constexpr uint64_t kNow = UINT64_MAX;
  uint64_t scheduled_at_ = kNow;
  EventCalendar<Event> queue_;
  PacketPool pool_;
  std::vector<std::unique_ptr<Node>>& nodes_;
  std::vector<Flow>& flows_;
  std::vector<FlowStats> shares_;      // sink_stats, per flow (a shard of a parallel run)
  std::vector<bool> shared_;
  std::vector<uint32_t> shared_list_;  // the flows with a share to fold
  // The shards of this context (a parallel run; none otherwise), which it does not own.
  std::vector<NodeContext*> shards_;
};

}  // namespace ibcc::net
