// HCA: one port and the units behind it, composed: its sender (HcaSender: control packets,
// ping-pong answers and data, paced by the reaction point), its sink (HcaSink), Go-Back-N
// (GbnTransport, when the fabric is lossy) and the regime's reaction point (ReactionPoint,
// reaction_point.h: chosen by cc.reaction). The Hca hands each event to the unit it is for
// and what arrives to the transport, the reaction point and the sink. Methods in hca.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>

#include "net/fabric/gbn_transport.h"
#include "net/fabric/hca_sender.h"
#include "net/fabric/hca_sink.h"
#include "net/fabric/link.h"
#include "net/fabric/node_context.h"
#include "net/fabric/reaction_point.h"

namespace ibcc::net {

class Hca final : public Node {
 public:
  // Configured from the context's scenario, or by `cfg`; `seed` (sim.seed) seeds its draws.
  Hca(sc_core::sc_module_name name, NodeContext& ctx, unsigned index, uint64_t seed)
      : Hca(name, ctx, index, seed, HcaConfig::from(ctx)) {}
  Hca(sc_core::sc_module_name name, NodeContext& ctx, unsigned index, uint64_t seed, const HcaConfig& cfg)
      : Node(name, ctx, index), sender_(ctx, *this, cfg, seed), sink_(ctx, *this, cfg.sink),
        reaction_(std::make_unique<NoReaction>()) {
    out.resize(2);
    in.resize(2);
    sender_.set_reaction(reaction_.get());
  }

  void handle(const Event& e) override;
  void wired() override;

  // The flows it sends (indices into NodeContext::flows()).
  std::vector<unsigned>& flows() { return sender_.flows; }
  const std::vector<unsigned>& flows() const { return sender_.flows; }

  // The reaction and notification points of cc.reaction (until then: none, CC off).
  void set_reaction(std::unique_ptr<ReactionPoint> r) {
    reaction_ = std::move(r);
    sender_.set_reaction(reaction_.get());
  }
  ReactionPoint& reaction() { return *reaction_; }
  const ReactionPoint& reaction() const { return *reaction_; }
  // Go-Back-N, both ends (fabric.hca.transport; until then: none, a lossless fabric's).
  void set_transport(std::unique_ptr<GbnTransport> t) {
    gbn_ = std::move(t);
    sender_.set_transport(gbn_.get());
  }

  // Sends what may go now; asks to be woken at `cycle`.
  void try_send() { sender_.try_send(); }
  void wake(uint64_t cycle) { sender_.wake(cycle); }
  const HcaConfig& config() const { return sender_.config(); }
  // Cycles per byte of its host interface and its sink (the link's where not limited).
  double host_cycles_per_byte() const { return sender_.host_cycles_per_byte(); }
  double sink_cycles_per_byte() const { return sink_.cycles_per_byte(); }
  // Faults (faults.leak_credit_return, faults.lose_packet): the next packet drained returns
  // none of its credits, or vanishes uncounted.
  void arm_faults(bool leak_one_credit, bool lose_one_packet) { sink_.arm_faults(leak_one_credit, lose_one_packet); }

  uint64_t sink_queue_packets() const { return sink_.queue_packets(); }
  uint64_t cnp_queue_packets() const { return sender_.control_queue_packets(); }

 private:
  void on_arrive(tlm_generic_payload* pkt);
  // Adaptive routing: a data packet of flow `flow` with `psn` arrived; counts it out of order
  // if a later one of the flow (a higher PSN) arrived before it.
  void note_order(unsigned flow, uint32_t psn);

  // Laid out by use: the sender (what an HCA's events mostly run) from a line of its own.
  alignas(64) HcaSender sender_;
  HcaSink sink_;
  std::unique_ptr<ReactionPoint> reaction_;  // cc.reaction's class (NoReaction: CC off)
  std::unique_ptr<GbnTransport> gbn_;        // fabric.hca.transport (null: none)
  std::unordered_map<uint32_t, uint32_t> highest_psn_;  // [flow]: the highest PSN arrived (adaptive routing)
};

}  // namespace ibcc::net
