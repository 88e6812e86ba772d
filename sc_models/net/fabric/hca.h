// HCA: flows paced by its reaction point (ReactionPoint, reaction_point.h: the regime's
// class), CNPs ahead of data, ping-pong answers; its sink (HcaSink) and Go-Back-N
// (GbnTransport) are units of their own. Methods in hca.cpp.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_map>
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
  uint64_t hiccup_period = 0, hiccup_duration = 0;  // cycles (sink_hiccup; period 0: none)
  uint64_t completion_cycles = 0;  // a message's completion latency after its last packet drained
  uint64_t send_jitter = 0;        // cycles: a uniform draw in [0, this] delays each data packet's successor
  uint32_t mtu = 0;                // bytes of payload per packet
  uint32_t ack_bytes = 0, cnp_bytes = 0;
  std::array<uint8_t, 16> sl_to_vl{};
  bool ignore_credits = false;     // the fault faults.ignore_credits
  static HcaConfig from(const NodeContext& ctx);
};

class Hca final : public Node, private NotificationOut {
 public:
  // Configured from the context's scenario, or by `cfg`; `seed` (sim.seed) seeds its draws.
  Hca(sc_core::sc_module_name name, NodeContext& ctx, unsigned index, uint64_t seed)
      : Hca(name, ctx, index, seed, HcaConfig::from(ctx)) {}
  Hca(sc_core::sc_module_name name, NodeContext& ctx, unsigned index, uint64_t seed, const HcaConfig& cfg)
      : Node(name, ctx, index), reaction_(std::make_unique<NoReaction>()), data_wait_(ctx.num_vls()),
        sink_(ctx, *this, {cfg.hiccup_period, cfg.hiccup_duration, cfg.completion_cycles}), cfg_(cfg),
        rng_(seed * 0x9E3779B97F4A7C15ULL + index) {
    out.resize(2);
    in.resize(2);
  }

  // Laid out by use, in cache lines (an HCA's lines are rarely cached when its next event
  // comes): what sending a packet reads first, with the private members it reads, in one
  // line; then the queues and the IRD pacing; then draining; the rest below.
  alignas(64) std::vector<unsigned> flows;  // indices into NodeContext::flows()

 private:
  std::unique_ptr<ReactionPoint> reaction_;  // cc.reaction's class (NoReaction: CC off)
  uint64_t host_ready_ = 0;
  uint64_t wake_at_ = UINT64_MAX;
  uint32_t rr_ = 0;
  uint32_t replies_queued_ = 0;  // replies_.size(), beside what sending reads (the deque's ends are not)
  // (line 2)
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

 private:
  std::unique_ptr<GbnTransport> gbn_;  // fabric.hca.transport (null: none)
  // (line 3)
  HcaSink sink_;
  SizeCycles host_memo_;  // a packet's cycles at the host's rate

  HcaConfig cfg_;
  double host_cycles_per_byte_ = 0;  // from cfg_ and the link (wired)

  // A ping-pong answer being sent back to the ping's source.
  struct Reply {
    unsigned flow = 0;
    uint16_t dlid = 0;
    uint64_t left = 0;         // bytes still to send
    uint64_t ready = 0;        // the answer may start (ping drained + completion latency)
    uint64_t ping_cycle = 0;   // the ping's creation
  };
  std::deque<Reply> replies_;

 public:
  void handle(const Event& e) override;

  // The reaction and notification points of cc.reaction (until then: none, CC off).
  void set_reaction(std::unique_ptr<ReactionPoint> r) { reaction_ = std::move(r); }
  ReactionPoint& reaction() { return *reaction_; }
  const ReactionPoint& reaction() const { return *reaction_; }
  // Go-Back-N, both ends (fabric.hca.transport; until then: none, a lossless fabric's).
  void set_transport(std::unique_ptr<GbnTransport> t) { gbn_ = std::move(t); }

  void wake(uint64_t cycle) override;
  void wired() override;
  const HcaConfig& config() const { return cfg_; }
  // Cycles per byte of its host interface and its sink (the link's where not limited).
  double host_cycles_per_byte() const { return host_cycles_per_byte_; }
  double sink_cycles_per_byte() const { return sink_.cycles_per_byte(); }
  // Faults (faults.leak_credit_return, faults.lose_packet): the next packet drained returns
  // none of its credits, or vanishes uncounted.
  void arm_faults(bool leak_one_credit, bool lose_one_packet) { sink_.arm_faults(leak_one_credit, lose_one_packet); }

  void try_send();

  uint64_t sink_queue_packets() const { return sink_.queue_packets(); }
  uint64_t cnp_queue_packets() const { return cnps_.count; }

 private:
  void new_message(Flow& f, Flow::Lane& lane, uint64_t created);

  // A packet from this HCA to `dlid`, made now: its header's addressing, size and flow.
  tlm_generic_payload* new_packet(Opcode op, uint16_t dlid, unsigned sl, unsigned vl, uint32_t qp, uint32_t payload,
                                  uint32_t wire, int32_t flow) {
    tlm_generic_payload* pkt = ctx_.pool().alloc();
    IbExtension& e = ib(pkt);
    e.slid = ctx_.topology().nodes[index_].lid;
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
  // A data packet from this HCA, leaving now (send_data and ping-pong answers).
  tlm_generic_payload* data_packet(uint16_t dlid, unsigned sl, unsigned vl, uint32_t qp, uint32_t payload, uint32_t wire,
                                   unsigned flow) {
    return new_packet(Opcode::kData, dlid, sl, vl, qp, payload, wire, static_cast<int32_t>(flow));
  }

  void send_reply(Reply& r, unsigned vl, uint32_t payload, uint32_t wire);
  uint64_t jitter() { return cfg_.send_jitter ? rng_() % (cfg_.send_jitter + 1) : 0; }

  void send_transport_ack(const IbExtension& data, uint32_t psn, bool nack);

  // A data packet of lane `lane`: new (`again` null) or the retransmission of `again`.
  void send_data(Flow& f, Flow::Lane& lane, unsigned flow_index, unsigned vl, uint32_t payload, uint32_t wire,
                 const GbnTransport::Sent* again = nullptr);

  void on_arrive(tlm_generic_payload* pkt);

  // A CNP (or an ACK with BECN, as the reaction point says) to the source of a marked
  // packet, queued ahead of data (the notification point's output).
  void queue_cnp(const Cnp& c) override;

  // The sink's head has drained: a ping drained whole is answered.
  void sink_done();

  std::mt19937_64 rng_;
};

}  // namespace ibcc::net
