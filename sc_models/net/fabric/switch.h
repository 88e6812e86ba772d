// Switch: input buffers with VoQs per (output, VL), output arbitration round robin or
// oldest first over the inputs (VoqArbiter, voq_arbiter.h) and VLArbitration between VLs
// (VlArbiter, vl_arbiter.h), a marking point on every output (MarkingPoint,
// marking_point.h: the regime's class). Methods in switch.cpp.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "net/fabric/crossbar.h"
#include "net/fabric/marking_point.h"
#include "net/fabric/node_context.h"
#include "net/fabric/link.h"
#include "common/small_div.h"
#include "net/fabric/voq_arbiter.h"

namespace ibcc::net {

// What a switch is built with, from the scenario's fabric.switch settings (from()), read
// once: the units never read the scenario while they run.
struct SwitchConfig {
  uint64_t latency = 0;          // cycles from a head's arrival to its eligibility (switch_latency)
  bool fill_from_head = false;   // a packet counts in its VoQ's fill from its head (fill_count: head)
  bool credit_in_order = false;  // a head that lacks credits holds its VL (credit_order: in_order)
  bool oldest_first = false;     // the oldest eligible head goes first (arbitration: oldest_first)
  bool ignore_credits = false;   // the fault faults.ignore_credits
  double crossbar_speedup = 1;   // an input's crossbar read side, in multiples of its link rate
  const VlArbTables* vlarb = nullptr;  // VLArbitration tables between VLs (null: round robin)
  static SwitchConfig from(const NodeContext& ctx);
};

class Switch : public Node {
 public:
  // `ports` ports, configured from the context's scenario or by `cfg`.
  Switch(sc_core::sc_module_name name, NodeContext& ctx, unsigned index, unsigned ports)
      : Switch(name, ctx, index, ports, SwitchConfig::from(ctx)) {}
  Switch(sc_core::sc_module_name name, NodeContext& ctx, unsigned index, unsigned ports, const SwitchConfig& cfg)
      : Node(name, ctx, index), cfg_(cfg), nports_(ports), nvl_(ctx.num_vls()), by_vl_(nvl_),
        voq_((ports + 1) * nvl_ * (ports + 1)), pending_(ports + 1, 0),
        voq_arb_(ports + 1, VoqArbiter(ports * nvl_)), reserve_((ports + 1) * nvl_), marking_(ports + 1),
        marker_input_(ports + 1, 0), xbar_(ports) {
    out.resize(ports + 1);
    in.resize(ports + 1);
  }

  // Output `port`'s marking point (cc.marking). One that watches the egress queues makes the
  // switch measure them.
  void attach_marking(unsigned port, std::unique_ptr<MarkingPoint> m) {
    if (m->watches().egress_bytes) track_egress();
    marking_[port] = std::move(m);
  }
  MarkingPoint* marking(unsigned port) { return marking_[port].get(); }
  const MarkingPoint* marking(unsigned port) const { return marking_[port].get(); }
  // A lossy output-buffered or shared switch (fabric.switch.buffering): a packet whose head
  // finds its output's VL at `output_limit` bytes, or the switch at `shared_limit` (0: no
  // pool), is dropped.
  void set_egress_limits(uint64_t output_limit, uint64_t shared_limit) {
    output_limit_ = output_limit;
    shared_limit_ = shared_limit;
    track_egress();
  }
  uint64_t egress_bytes(unsigned port, unsigned vl) const { return egress_bytes_.empty() ? 0 : egress_bytes_[port * nvl_ + vl]; }
  // The largest egress queue of `port` (bytes, all VLs) inside the statistics window.
  uint64_t egress_peak(unsigned port) const { return egress_peak_.empty() ? 0 : egress_peak_[port]; }
  // The marker sees the VoQs of linked input ports only, numbered in port order.
  unsigned number_marker_inputs();
  unsigned ports() const { return nports_; }
  const SwitchConfig& config() const { return cfg_; }

  // Packets in the VoQs (counted in those the arbiters list as non-empty).
  uint64_t queued_packets() const;

  // For the wait-for graph: each non-empty VoQ of input `in_port`, VL `vl` whose head can
  // not leave now for want of credits, as the output it waits on; `can_move` is set if some
  // head of that buffer could leave (credits free or on their way back, or its output is
  // sending from it).
  void waits_of(unsigned in_port, unsigned vl, std::vector<unsigned>* outputs, bool* can_move) const;

  // Where the packets of flow `flow` wait in this switch: a line per VoQ that holds some
  // (input, VL, output, their places in the queue, what its head needs and the output has),
  // at most `max_lines`. For the stall report.
  std::vector<std::string> where_flow_waits(int32_t flow, unsigned max_lines) const;

  void handle(const Event& e) override;
  // Each input's crossbar read side from its link's rate.
  void wired() override;

 private:
  SwitchConfig cfg_;
  // One output's VoQs lie together (the arbiter scans them), in (input, VL) order.
  size_t voq_index(unsigned in_port, unsigned vl, unsigned out_port) const {
    return (static_cast<size_t>(out_port) * (nports_ + 1) + in_port) * nvl_ + vl;
  }
  PacketFifo& voq(unsigned in_port, unsigned vl, unsigned out_port) { return voq_[voq_index(in_port, vl, out_port)]; }

  void wake(unsigned port, uint64_t cycle);
  void track_egress() {
    if (egress_bytes_.empty()) {
      egress_bytes_.assign((nports_ + 1) * nvl_, 0);
      egress_peak_.assign(nports_ + 1, 0);
    }
  }

  void on_arrive(unsigned port, tlm_generic_payload* pkt);
  [[noreturn, gnu::noinline, gnu::cold]] void no_route(unsigned dlid) const;  // (out of on_arrive's way)

  // The VoQ fill the FECN marker sees counts the packets that are fully received and still
  // waiting: a packet that cuts straight through never adds to it (docs/network_model.md).
  void on_tail_in(unsigned o, uint32_t hop, tlm_generic_payload* pkt);

  // Picks the next packet for output `o` (round robin over inputs and VLs, or the oldest
  // head; VLArbitration tables between VLs) and starts it.
  void arbitrate(unsigned o) {
    // (Checked here, inline: half the calls find the output busy or nothing queued.)
    const OutPort& op = out[o];
    if (op.tx_active || op.busy_until > ctx_.now() || pending_[o] == 0) return;
    arbitrate_now(o);
  }
  void arbitrate_now(unsigned o);

  // oldest_first: per VL, the oldest head that may go and the oldest that lacks credits
  // (head_eligible = arrival + switch latency orders heads by age).
  struct HeadAges {
    std::array<int, kMaxVls> ready;
    std::array<uint64_t, kMaxVls> ready_t, short_t;
    std::array<int, kMaxVls> short_idx;  // the head short_t is the age of
    HeadAges() {
      ready.fill(-1);
      ready_t.fill(UINT64_MAX);
      short_t.fill(UINT64_MAX);
      short_idx.fill(-1);
    }
  };
  void oldest_head(unsigned o, unsigned idx, bool ignore_credits, uint64_t* next_eligible, HeadAges* age);
  HeadAges age_;  // oldest_first: this arbitration's oldest heads

  // May the head of VoQ (idx -> input, VL) toward `o` go now? Notes what it waits for;
  // short_ says whether the answer was no for want of credits.
  bool may_go(unsigned o, unsigned idx, bool ignore_credits, uint64_t* next_eligible);
  bool short_ = false;
  // Per VL, the head a grant in this arbitration would pass by for want of its credits (round
  // robin: the first short one before it in the scan; oldest first: the oldest short one, if
  // older than the granted head): begin() reserves the credits for it.
  std::array<int, kMaxVls> passed_;

  void begin(unsigned o, unsigned idx);

  void start(unsigned o, unsigned ip, unsigned vl, PacketFifo& q);

  void on_tx_done(unsigned o);
  // After input `ip`'s crossbar port fell free: may output `p`, whose last arbitration
  // found no head to send, find one now?
  bool may_unblock(unsigned p, unsigned ip) const;

  void on_credit(unsigned o, unsigned vl, uint32_t credits);
  // PFC: the peer paused (or resumed) VL `vl` of output `o`.
  void on_pfc(unsigned o, unsigned vl, bool pause);

  unsigned nports_;
  unsigned nvl_;
  SmallDiv by_vl_;  // a VoQ pair number (input - 1) * VLs + VL into its input and VL
  std::vector<PacketFifo> voq_;
  std::vector<unsigned> pending_;  // non-empty VoQs per output
  std::vector<VoqArbiter> voq_arb_;  // [output]: its non-empty (input, VL) VoQs, round robin
  // Credits reserved on an output's VL for a head that a smaller packet passed by for want of
  // credits (first_fit): from then on the other heads of that VL may use only the credits
  // beyond the reservation, so a large head is never starved by small packets taking each
  // credit as it returns. Kept until it goes. (Heads of one size never pass each other.)
  struct CreditReserve {
    static constexpr uint32_t kNone = UINT32_MAX;
    uint32_t pair = kNone;  // the VoQ pair whose head holds it
    uint32_t credits = 0;   // that head's credits
  };
  std::vector<CreditReserve> reserve_;  // [output * VLs + VL]
  std::vector<std::unique_ptr<MarkingPoint>> marking_;  // [port] (null: CC off, or not linked)
  std::vector<uint64_t> egress_bytes_;                // [port * vls + vl]: bytes in the VoQs for it
  std::vector<uint64_t> egress_peak_;                 // [port]: egress_peak()
  uint64_t output_limit_ = 0, shared_limit_ = 0;      // set_egress_limits (0: none)
  uint64_t shared_used_ = 0;                          // bytes in all VoQs (with egress tracking)
  std::vector<unsigned> marker_input_;  // [port] -> the marker's input index (linked ports only)
  Crossbar xbar_;
};

}  // namespace ibcc::net
