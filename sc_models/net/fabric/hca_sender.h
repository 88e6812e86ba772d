// An HCA's sender: what goes out on its port, one packet at a time. Control packets first
// (CNPs, ACKs carrying BECN, Go-Back-N's ACKs and NACKs), then ping-pong answers, then its
// flows' data in round robin between flows and their lanes (messages in progress), each
// packet when the host interface is ready, the reaction point's pacing allows it (the
// regime's class: IRD under IB CC, the rate under DCQCN), Go-Back-N's window has room and
// the link has credits. It is the reaction point's notification output: the CNPs it asks
// for are queued here. The Hca composes it with its sink and transport. Methods in
// hca_sender.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <random>
#include <vector>

#include "net/fabric/gbn_transport.h"
#include "net/fabric/hca_sink.h"
#include "net/fabric/link.h"
#include "net/fabric/node_context.h"
#include "net/fabric/reaction_point.h"

namespace ibcc::net {

// What an HCA is built with, from the scenario's fabric.hca settings (from()), read once:
// the units never read the scenario while they run.
struct HcaConfig {
  double inject_bps = 0;  // the host interface's rate (inject_rate); 0: the link's
  double sink_bps = 0;    // the sink's drain rate (sink_rate); 0: the link's
  HcaSink::Config sink;   // its hiccups and the completion latency
  uint64_t send_jitter = 0;        // cycles: a uniform draw in [0, this] delays each data packet's successor
  uint32_t mtu = 0;                // bytes of payload per packet
  uint32_t ack_bytes = 0, cnp_bytes = 0;
  std::array<uint8_t, 16> sl_to_vl{};
  bool ignore_credits = false;     // the fault faults.ignore_credits
  bool count_out_of_order = false; // adaptive routing: the sink counts data arriving out of order
  // RTT probes (set_reaction: the reaction point's): a flow's probe this long after its data
  // (0: none), and the SL of their responses (-1: the probe's).
  uint64_t rtt_probe_cycles = 0;
  int rtt_resp_sl = -1;
  static HcaConfig from(const NodeContext& ctx);
};

class HcaSender final : public NotificationOut {
 public:
  // Sends on port 1 of `node`, an HCA of `ctx`, with `cfg`; `seed` seeds its draws
  // (destinations, jitter).
  HcaSender(NodeContext& ctx, Node& node, const HcaConfig& cfg, uint64_t seed)
      : ctx_(ctx), node_(node), data_wait_(ctx.num_vls()), cfg_(cfg), rng_(seed * 0x9E3779B97F4A7C15ULL + node.index()) {}

  // The regime's reaction point and Go-Back-N (null: none), owned by the Hca.
  void set_reaction(ReactionPoint* r) {
    reaction_ = r;
    const ReactionPoint::RttProbes p = r->rtt_probes();
    cfg_.rtt_probe_cycles = p.interval_cycles;
    cfg_.rtt_resp_sl = p.resp_sl;
  }
  void set_transport(GbnTransport* t) { gbn_ = t; }
  // Cycles per byte of the host interface (set when the port is wired).
  void set_host_cycles_per_byte(double c) { host_cycles_per_byte_ = c; }
  double host_cycles_per_byte() const { return host_cycles_per_byte_; }
  const HcaConfig& config() const { return cfg_; }

  // Sends the next packet if the port is free and one may go; else asks to be woken when
  // one may (a credit return, the end of sending and an ACK call it too).
  void try_send();
  // A wake-up at `cycle` (NotificationOut: also the reaction point's, for a CNP due then).
  void wake(uint64_t cycle) override;
  // The node's kHcaWake at `cycle`: sends if it is the wake-up still asked for.
  void woken(uint64_t cycle) {
    if (wake_at_ != cycle) return;
    wake_at_ = UINT64_MAX;
    try_send();
  }
  // A CNP (or an ACK with BECN, as the reaction point says) to the source of a marked
  // packet, queued ahead of data (NotificationOut).
  void queue_cnp(const Cnp& c) override;
  // Go-Back-N's ACK (or NACK) of `data` up to `psn`, ahead of data, sent at once if it may.
  void queue_transport_ack(const IbExtension& data, uint32_t psn, bool nack);
  // A ping drained whole at the sink: answered with a message of its size.
  void queue_reply(const HcaSink::PingIn& ping);
  // An RTT probe arrived: its response goes back to the probe's source ahead of data.
  void queue_rtt_response(const IbExtension& probe);

  uint64_t control_queue_packets() const { return cnps_.count; }

 private:
  void new_message(Flow& f, Flow::Lane& lane, uint64_t created);

  // A packet from this HCA to `dlid`, made now: its header's addressing, size and flow.
  tlm_generic_payload* new_packet(Opcode op, Lid dlid, unsigned sl, unsigned vl, uint32_t qp, uint32_t payload,
                                  uint32_t wire, int32_t flow) {
    tlm_generic_payload* pkt = ctx_.pool().alloc();
    IbExtension& e = ib(pkt);
    e.slid = ctx_.topology().nodes[node_.index()].lid;
    e.dlid = dlid;
    e.sl = static_cast<uint8_t>(sl);
    e.vl = static_cast<uint8_t>(vl);
    e.opcode = op;
    e.qp = qp;
    e.payload_bytes = payload;
    e.wire_bytes = wire;
    e.credits = NodeContext::credits_of(wire);
    e.inject_cycle = ctx_.now();
    e.flow = flow;
    pkt->set_command(tlm::TLM_WRITE_COMMAND);
    pkt->set_data_length(payload);
    return pkt;
  }

  // A ping-pong answer being sent back to the ping's source.
  struct Reply {
    unsigned flow = 0;
    Lid dlid = 0;
    uint64_t left = 0;         // bytes still to send
    uint64_t ready = 0;        // the answer may start (ping drained + completion latency)
    uint64_t ping_cycle = 0;   // the ping's creation
  };
  void send_reply(Reply& r, unsigned vl, uint32_t payload, uint32_t wire);
  // A data packet of lane `lane`: new (`again` null) or the retransmission of `again`.
  void send_data(Flow& f, Flow::Lane& lane, unsigned flow_index, unsigned vl, uint32_t payload, uint32_t wire,
                 const GbnTransport::Sent* again = nullptr);
  // The packet goes: the port is busy until it is sent; the host interface is ready again
  // after its own time for it (and the jitter).
  void sent(uint64_t now, uint64_t end, uint32_t wire);
  // RTT probes: flow `flow_index` sent data to `dlid` on `qp`: its probe is armed, due
  // rtt_probe_cycles later, unless one is already; probes due by now join the control queue.
  void arm_probe(Flow& f, unsigned flow_index, Lid dlid, uint32_t qp);
  void issue_probes(uint64_t now);
  uint64_t jitter() { return cfg_.send_jitter ? rng_() % (cfg_.send_jitter + 1) : 0; }

  // Laid out by use, in cache lines (an HCA's lines are rarely cached when its next event
  // comes): what sending a packet reads first (with the vtable pointer, one line); then
  // the round robin, the control queue and the credits kept for data; the rest below.
  NodeContext& ctx_;
  Node& node_;
  ReactionPoint* reaction_ = nullptr;
  uint64_t host_ready_ = 0;

 public:
  // The flows it sends (indices into NodeContext::flows()).
  std::vector<unsigned> flows;

 private:
  uint32_t rr_ = 0;
  uint32_t replies_queued_ = 0;  // replies_.size(), beside what sending reads (the deque's ends are not)
  uint64_t wake_at_ = UINT64_MAX;
  PacketFifo cnps_;
  // CNPs (and ACKs carrying BECN) go before data, but not for ever: per VL, a data packet that
  // found too few credits (wait_credits, 0: none) lets the CNPs behind it use
  // kCnpCreditsPerWait times the credits it needs (passed), then the credits are kept for it.
  // When both wait, data gets at least a fifth of the credits: a hotspot receiver's stream of
  // CNPs cannot starve its own data. (With 1: the CNPs of the 648-port hotspot fabric come
  // late enough to halve the sources' CCTI; with 16 a hotspot's own flow still goes 1 ms
  // without delivering; docs/network_model.md.)
  static constexpr uint32_t kCnpCreditsPerWait = 4;
  struct DataWait {
    uint32_t wait_credits = 0;
    uint32_t passed = 0;
  };
  std::vector<DataWait> data_wait_;
  GbnTransport* gbn_ = nullptr;
  SizeCycles host_memo_;  // a packet's cycles at the host's rate
  double host_cycles_per_byte_ = 0;
  HcaConfig cfg_;
  std::deque<Reply> replies_;
  // Armed RTT probes, (due cycle, flow), in the order they fall due (one interval after each
  // flow's data: arming order is due order).
  std::deque<std::pair<uint64_t, unsigned>> probes_;
  std::mt19937_64 rng_;
};

}  // namespace ibcc::net
