// A fabric and its traffic, as the network model consumes them: the in-memory form of a
// topologies/*.yaml scenario (sc_models/net/scenario/scenario_yaml.cpp reads it; the topology
// generators in topology_gen.cpp emit it). All times in picoseconds, rates in bits/s,
// sizes in bytes unless a name says otherwise. docs/configuration.md lists every YAML key.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cc/cc_policies.h"
#include "net/scenario/lid.h"
#include "net/scenario/shared_seq.h"

namespace ibcc::net {

// Bad input: the message is complete ("file:line: key: expected ..., got ...").
class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// IB VLArbitration tables of an output port (IBA 7.6.9), as fabric.switch.vlarb gives them;
// VlArbiter (fabric/vl_arbiter.h) serves them.
struct VlArbTables {
  std::vector<std::pair<unsigned, unsigned>> high, low;  // (vl, weight in 64-byte units)
  unsigned high_limit = 0;                               // LimitOfHighPriority, 4 KiB units
};

// A physical link: both ends, rate and propagation delay.
struct LinkSpec {
  std::string a_node;
  unsigned a_port = 0;  // 1-based as in IB; HCAs have port 1
  std::string b_node;
  unsigned b_port = 0;
  double signal_bps = 0;   // width x lane rate
  double data_bps = 0;     // after the encoding overhead
  uint64_t propagation_ps = 0;
  int line = 0;            // where it was declared (0: generated)
};

struct SwitchSpec {
  std::string name;
  unsigned ports = 0;
  Lid lid = 0;
  std::vector<uint16_t> lft;  // explicit forwarding table [dlid] -> port (0: drop/unset)
  int line = 0;
};

struct HcaSpec {
  std::string name;
  Lid lid = 0;
  int line = 0;
};

// Switch-port CC settings (SwitchCongestionSetting / SwitchPortCongestionSetting) and the
// implementation choices of the FECN marker.
struct SwitchCcSpec {
  unsigned threshold = 0;      // 0..15
  unsigned packet_size = 0;    // 64-byte credits, 0..255
  unsigned marking_rate = 0;   // 0..65535
  cc::ThresholdMapping mapping = cc::ThresholdMapping::kPerVoq;
  cc::MarkingMode marking_mode = cc::MarkingMode::kCounter;
  unsigned hysteresis = 0;     // sixteenths of the buffer, 0..15
  bool victim_mask_hca_ports = true;  // set Victim_Mask on ports that face CAs
  std::vector<unsigned> victim_ports; // or on these port numbers of every switch (OpenSM's mask)
};

struct PortCcOverride {
  std::string switch_name;
  unsigned port = 0;
  std::optional<unsigned> threshold, packet_size, marking_rate;
  std::optional<bool> victim_mask;
  int line = 0;
};

struct SlCcSpec {
  unsigned ccti_timer = 0;        // 1.024 us units, 0..65535 (a scenario may give a time: rounded to units)
  unsigned ccti_increase = 0;     // 0..255
  unsigned trigger_threshold = 0; // 0..255
  unsigned ccti_min = 0;          // 0..255
};

struct CaCcSpec {
  bool sl_based = false;            // Port_Control bit 0
  unsigned control_map = 0xffff;    // SLs with CC on
  SlCcSpec sl_default;
  std::vector<std::pair<unsigned, SlCcSpec>> per_sl;  // (sl, settings) overrides
  unsigned ccti_limit = 127;
  std::vector<uint16_t> cct;        // entries, CCT_Shift:CCT_Multiplier
  cc::IrdFormula ird_formula = cc::IrdFormula::kOmniPath;
  unsigned num_qps = 64;            // CCTI table entries (16..1024); QPs share entry qp % num_qps
  bool becn_in_ack = false;         // answer FECN with an ACK carrying BECN instead of a CNP
};

// How switches signal congestion (a named strategy, `cc.marking`).
enum class Marking : uint8_t {
  kFecn,  // IB CC's FECN marker (Threshold, Marking_Rate, Victim_Mask) on every output
  kEcn,   // DCQCN's congestion point: ECN with a RED profile on each output's egress queue
  kNvidia,  // NVIDIA-style: a WRED profile per VL on an averaged queue (cc/aqs_marker.h)
};
inline constexpr cc::PolicyName<Marking> kMarkings[] = {
    {Marking::kFecn, "fecn", "IB CC's FECN marker on every switch output (cc.switch)"},
    {Marking::kEcn, "ecn", "ECN with Kmin/Kmax/Pmax on each output's egress queue (cc.ecn)"},
    {Marking::kNvidia, "nvidia", "NVIDIA-style: a marking profile per VL on an averaged queue (cc.nvidia)"},
};

// What a source does with congestion notices (a named strategy, `cc.reaction`), and the
// notification point that goes with it at the destination.
enum class Reaction : uint8_t {
  kIbcc,       // CCTI per QP or SL, IRD from the CCT; every FECN answered with a CNP
  kDcqcn,      // DCQCN rate limiter per QP; CNPs at most once per interval per flow
  kDcqcnPlus,  // DCQCN+: timers and CNP interval scaled with the incast
};
inline constexpr cc::PolicyName<Reaction> kReactions[] = {
    {Reaction::kIbcc, "ibcc", "IB CC: CCTI, CCT and IRD (cc.ca)"},
    {Reaction::kDcqcn, "dcqcn", "DCQCN's reaction and notification points (cc.dcqcn)"},
    {Reaction::kDcqcnPlus, "dcqcn_plus", "DCQCN+: DCQCN with the flow-count-aware CNP interval and timers (cc.dcqcn)"},
};

// DCQCN's congestion point (cc.ecn).
struct EcnSpec {
  uint64_t kmin_bytes = 5000;    // the DCQCN paper's 5 KB
  uint64_t kmax_bytes = 200000;  // 200 KB
  double pmax = 0.01;            // 1 %
};

// The NVIDIA-style marking point's switch settings (cc.nvidia): the averaged queue and the
// marking profile {percent, min, max} of each VL (cc/aqs_marker.h).
struct NvidiaProfileSpec {
  unsigned percent = 1;          // marking probability at max, %
  uint64_t min_bytes = 5000;     // at or below: no mark
  uint64_t max_bytes = 200000;   // above: every data packet marked
};
struct NvidiaMarkingSpec {
  unsigned aqs_weight = 3;           // AQS += (queue - AQS) / 2^aqs_weight at each sample
  uint64_t aqs_time_ps = 1024000;    // one sample per this
  NvidiaProfileSpec profile;         // every VL's, unless vl_profiles gives its own
  std::vector<std::pair<unsigned, NvidiaProfileSpec>> vl_profiles;  // (VL, profile)
};

// DCQCN's and DCQCN+'s NIC parameters (cc.dcqcn): the DCQCN paper's values by default.
struct DcqcnSpec {
  uint64_t cnp_interval_ps = 50000000;      // NP: at most one CNP per flow per this
  uint64_t cnp_generation_ps = 1000000;     // NP: the NIC makes at most one CNP per this (0: unlimited)
  uint64_t active_window_ps = 100000000;    // NP (DCQCN+): a flow counts as congested this long after a mark
  uint64_t alpha_timer_ps = 55000000;       // RP: K, alpha decays when no CNP came for this long
  uint64_t rate_timer_ps = 55000000;        // RP: T, the rate-increase timer
  uint64_t byte_counter_bytes = 10000000;   // RP: B (0: none)
  unsigned fast_recovery_steps = 5;         // RP: F
  double ai_rate_bps = 40e6;                // RP: R_AI
  double hai_rate_bps = 100e6;              // RP: R_HAI
  double min_rate_bps = 10e6;               // RP: no cut goes below
  unsigned g_shift = 8;                     // RP: g = 1/2^g_shift
  double alpha_init = 1.0;
  uint64_t reduce_period_ps = 0;            // RP: at most one cut per this (0: every CNP)
  unsigned gd_log2 = 1;                     // RP: a cut takes Rc alpha / 2^gd_log2
  double min_dec_factor = 0;                // RP: a cut leaves at least Rc times this (0: no floor)
  double first_cnp_rate_bps = 0;            // RP: the first cut sets Rc to this (0: a cut like any other)
  double max_rate_bps = 0;                  // RP: the flow's rate never exceeds this (0: the line rate)
  int cnp_sl = -1;                          // NP: CNPs travel on this SL (-1: their flow's)
  uint64_t rtt_probe_ps = 0;                // RP: an RTT probe per flow per this while it sends (0: none)
  int rtt_resp_sl = -1;                     // NP: RTT responses travel on this SL (-1: the probe's)
  double lambda = 1.0;                      // RP (DCQCN+): K = lambda max(tau, MTU/Rc)
  double increase_bound_bps = 0;            // RP (DCQCN+): R_l (0: the line rate)
};

struct CcSpec {
  bool enabled = true;
  Marking marking = Marking::kFecn;
  Reaction reaction = Reaction::kIbcc;
  EcnSpec ecn;
  NvidiaMarkingSpec nvidia;
  DcqcnSpec dcqcn;
  SwitchCcSpec sw;
  std::vector<PortCcOverride> ports;
  CaCcSpec ca;
  std::vector<std::string> rtl;  // RTL in the loop: SWITCH/PORT (FECN marker) or HCA (CCTI block)
  std::vector<int> rtl_lines;    // each one's line in the file (0: from the command line)
  // The reaction is DCQCN's, either variant (cc.dcqcn is its section).
  bool dcqcn_reaction() const { return reaction == Reaction::kDcqcn || reaction == Reaction::kDcqcnPlus; }
};

// Which QP a flow's messages use (what the CCTI table is indexed by with `control: qp`).
enum class QpPolicy : uint8_t {
  kPerFlow,         // one QP for all the flow's messages, whatever their destination
  kPerDestination,  // one QP per (flow, destination): a QP throttled toward one node holds up no other
  kPerSl,           // one QP per SL on the HCA, shared by all its flows of that SL
};

// How a drawn-destination flow picks the destination of each message.
enum class DstOrder : uint8_t {
  kRandom,    // drawn per message (uniform, or a hotspot with probability hot_share)
  kSequence,  // the next one in dst_list, cyclically (all-to-all: starting after the source)
};

// One traffic flow: a QP on a source HCA. dst empty means "chosen per message" from
// uniform_dsts / hot_dsts (see DstOrder).
struct FlowSpec {
  // (What a sender reads per packet and per message first: Flow keeps this struct from a
  // cache line of its own.)
  unsigned sl = 0;
  unsigned qp = 0;
  DstOrder dst_order = DstOrder::kRandom;
  QpPolicy qp_policy = QpPolicy::kPerFlow;
  // Ping-pong probe: one message at a time to dst, which answers each with a message of the
  // same size; the next ping leaves `pingpong_gap_ps` after the answer is in. Round trips
  // are measured (summary.json, metrics pingpong_*).
  bool pingpong = false;
  uint64_t message_bytes = 65536;
  double hot_share = 0;  // the probability of a draw from hot_dsts
  uint64_t pingpong_gap_ps = 0;
  std::string name;
  std::string group;     // e.g. victim, contributors (for metrics)
  std::string src;
  std::string dst;
  SharedSeq<std::string> uniform_dsts;    // drawn uniformly when dst is empty (a view of a shared list)
  std::vector<std::string> hot_dsts;      // drawn with probability hot_share
  uint64_t start_ps = 0;
  uint64_t stop_ps = UINT64_MAX;
  double rate_bps = 0;   // offered rate; 0 = saturating
  // Messages in progress at once (drawn-destination flows): each goes to its own QP
  // (qp + destination LID), so a QP throttled toward a hotspot does not hold up the others.
  unsigned outstanding = 1;
  int line = 0;
};

struct SinkHiccup {
  uint64_t period_ps = 0;    // 0 = none
  uint64_t duration_ps = 0;
};

struct FabricParams {
  uint64_t core_clock_hz = 250000000;  // cycle of the whole model (IB TimeStamp: 256 cycles)
  unsigned mtu = 2048;                 // payload bytes per packet
  unsigned vls = 2;                    // data VLs per port
  std::vector<unsigned> sl_to_vl;      // [sl] -> vl (default sl % vls)
  // The VL of an SL (an SL the table does not list: VL 0).
  unsigned vl_of_sl(size_t sl) const { return sl < sl_to_vl.size() ? sl_to_vl[sl] : 0; }
  // Switch
  uint64_t switch_latency_ps = 100000;
  uint64_t switch_buffer_per_vl = 16384;  // bytes of each input port's VL
  double crossbar_speedup = 1.0;
  // When a packet starts to count in its VoQ's fill (what the FECN marker compares with the
  // threshold): "tail" once fully received and still waiting (a packet cutting straight
  // through never counts; a lower bound of the bytes resident), "head" from its head's
  // arrival until it starts to leave (an upper bound).
  bool fill_from_head = false;
  // An output's arbiter, when the head its round-robin pointer reaches lacks credits on its
  // VL: "first_fit" lets a later head that fits (a small packet) go first; "in_order" holds
  // the VL for that head until its credits are back (a small packet waits its turn).
  bool credit_in_order = false;
  // Among the inputs with a packet for an output (on the VL chosen): round robin, or the
  // head that arrived first ("oldest_first", an output-queued switch's service order).
  bool oldest_first = false;
  bool vlarb_tables = false;              // IB VLArbitration high/low tables (else round robin)
  VlArbTables vlarb;                      // the tables (with vlarb_tables)
  // Link-level flow control: IB's credits, or Ethernet's PFC (per-priority pause frames; a
  // VL is a priority). With PFC an input buffer at or above `pfc_xoff_bytes` pauses its
  // upstream sender on that VL, and at or below `pfc_xon_bytes` resumes it; 0 picks them
  // from the buffer and the headroom the link needs (Fabric: NodeContext::wire_ports).
  bool pfc = false;
  // Lossy (fabric.flow_control: none): no credits and no pauses; a switch or HCA drops a
  // packet its buffer cannot take, and counts it.
  bool lossy = false;
  // IB's credits (neither PFC nor lossy): an IB fabric, whose node addresses are LIDs of one
  // subnet (lid.h); else an Ethernet one.
  bool credited() const { return !pfc && !lossy; }
  // Where a lossy switch's buffer limit applies: each input's VL (input-buffered, the
  // buffer_per_vl of every input), each output's VL (output-buffered: the bytes waiting for
  // that output in all VoQs, up to `switch_output_buffer`), or a pool shared by the switch
  // (`switch_shared_buffer`, each output's VL still at most `switch_output_buffer`).
  enum class Buffering : uint8_t { kInput, kOutput, kShared } buffering = Buffering::kInput;
  uint64_t switch_output_buffer = 0;  // 0: buffer_per_vl
  uint64_t switch_shared_buffer = 0;  // 0: buffer_per_vl x ports
  uint64_t pfc_xoff_bytes = 0;
  uint64_t pfc_xon_bytes = 0;
  unsigned pfc_pause_bytes = 64;
  // HCA
  // The transport of data flows: none (the fabric is trusted: lossless), or Go-Back-N with a
  // window of `gbn_window` packets per QP and a retransmission timeout; `gbn` also NACKs the
  // first out-of-order packet (fast retransmit), `simple_gbn` only times out.
  enum class Transport : uint8_t { kNone, kGbn, kSimpleGbn } transport = Transport::kNone;
  unsigned gbn_window = 16;
  uint64_t hca_send_jitter_ps = 0;  // host timing noise per packet (uniform in [0, this])
  uint64_t gbn_timeout_ps = 100000000;  // 100 us
  uint64_t hca_buffer_per_vl = 16384;
  // Bytes a packet carries besides its payload, per packet type (LRH 8 + BTH 12 + ICRC 4 +
  // VCRC 2 = 26 for RC data; a CNP adds padding to 32; an ACK the AETH).
  unsigned data_header_bytes = 26;
  unsigned cnp_bytes = 32;
  unsigned ack_bytes = 30;
  double hca_inject_bps = 0;    // host interface (PCIe) limit; 0 = the link rate
  double hca_sink_bps = 0;      // drain rate; 0 = the link rate
  // From a message's last packet drained to the completion its application sees (host
  // interface, driver, MPI): counts in message completion times and ping-pong round trips.
  uint64_t hca_completion_latency_ps = 0;
  SinkHiccup sink_hiccup;
  std::string routing = "shortest";  // shortest | updown | dor | explicit
  std::vector<std::string> updown_roots;
  // Adaptive routing: a switch picks each packet's output among the equal-cost ports of its
  // AR group (the up*/down* candidates of the routing) by their occupancy; `bounded` keeps the
  // forwarding table's port unless it holds more than ar_bound_bytes over the least occupied.
  enum class AdaptiveRouting : uint8_t { kOff, kLeastOccupancy, kBounded } adaptive_routing = AdaptiveRouting::kOff;
  uint64_t ar_bound_bytes = 4096;
};

struct SimParams {
  uint64_t sim_time_ps = 1000000000;      // 1 ms
  uint64_t log_interval_ps = 1000000000;  // 1 ms
  uint64_t seed = 1;
  uint64_t deadlock_timeout_ps = 0;  // no packet moves for this long while some wait: deadlock (0: 1 ms or 4 log intervals)
  // A flow delivers nothing for this long while packets of it are in flight: stalled (a
  // partial deadlock or starvation), the run fails naming it (0: 10 x the deadlock timeout).
  uint64_t stall_timeout_ps = 0;
};

// Faults built into the model on purpose, for the tests that prove the invariant checks and
// the deadlock detector catch them. Never set by a scenario unless asked for under `debug`.
struct FaultInjection {
  bool leak_credit_return = false;  // one credit return is dropped
  bool ignore_credits = false;      // senders transmit without credits (overflows)
  bool lose_packet = false;         // one sink forgets a packet
};

struct Scenario {
  std::string name;
  std::string file;
  SimParams sim;
  FabricParams fabric;
  std::vector<SwitchSpec> switches;
  std::vector<HcaSpec> hcas;
  std::vector<LinkSpec> links;
  // For dimension-order routing: the mesh/torus shape the generator produced.
  unsigned mesh_x = 0, mesh_y = 0;
  bool torus = false;
  CcSpec cc;
  std::vector<FlowSpec> flows;
  FaultInjection faults;
  // What the reader converted or chose for the user (a CCTI_Timer time rounded to 1.024 us
  // units, ...): ibcc run prints them and keeps them in summary.json.
  std::vector<std::string> notes;

  // Switch outputs mark ECN on their egress queues (cc.marking: ecn).
  bool ecn_marking() const { return cc.enabled && cc.marking == Marking::kEcn; }
  // Lossy switches drop at the output (or the shared pool) rather than at the input.
  bool egress_drop_tail() const { return fabric.lossy && fabric.buffering != FabricParams::Buffering::kInput; }
  // Either way the switches measure their egress queues (Switch::track_egress), and
  // metrics.json has their peak.
  bool adaptive_routing() const { return fabric.adaptive_routing != FabricParams::AdaptiveRouting::kOff; }
  bool egress_measured() const { return ecn_marking() || egress_drop_tail() || adaptive_routing(); }
};

// A full data packet's time at the lowest rate of the fabric (its links, fabric.hca.inject_rate
// and sink_rate), in ps: the least a deadlock timeout may be.
inline uint64_t slowest_packet_ps(const Scenario& s) {
  double rate = 0;
  auto lower = [&](double r) {
    if (r > 0 && (rate == 0 || r < rate)) rate = r;
  };
  for (const auto& l : s.links) lower(l.data_bps);
  lower(s.fabric.hca_inject_bps);
  lower(s.fabric.hca_sink_bps);
  if (rate == 0) return 0;
  return static_cast<uint64_t>(std::ceil((s.fabric.mtu + s.fabric.data_header_bytes) * 8.0 / rate * 1e12));
}

}  // namespace ibcc::net
