// Switch: an OutputUnit per port (output_unit.h: the VoQs toward it, per input and VL, their
// arbitration round robin or oldest first over the inputs and VLArbitration between VLs, its
// marking point: the regime's class), one Crossbar between inputs and outputs, and the
// ports' link state (Node: OutPort, InputUnit). Methods in switch.cpp.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "net/fabric/crossbar.h"
#include "net/fabric/link.h"
#include "net/fabric/marking_point.h"
#include "net/fabric/node_context.h"
#include "net/fabric/output_unit.h"
#include "net/fabric/port_counters.h"
#include "net/fabric/switch_config.h"

namespace ibcc::net {

class Switch : public Node {
 public:
  // `ports` ports, configured from the context's scenario or by `cfg`.
  Switch(sc_core::sc_module_name name, NodeContext& ctx, unsigned index, unsigned ports)
      : Switch(name, ctx, index, ports, SwitchConfig::from(ctx)) {}
  Switch(sc_core::sc_module_name name, NodeContext& ctx, unsigned index, unsigned ports, const SwitchConfig& cfg)
      : Node(name, ctx, index), cfg_(cfg), nports_(ports), nvl_(ctx.num_vls()), marker_input_(ports + 1, 0),
        xbar_(ports), counters_(ports + 1, PortCounters(nvl_)) {
    out.resize(ports + 1);
    in.resize(ports + 1);
    outputs_.reserve(ports + 1);
    for (unsigned p = 0; p <= ports; ++p) outputs_.emplace_back(ports, nvl_, cfg_);
    if (cfg_.adaptive != FabricParams::AdaptiveRouting::kOff) track_egress();  // (AR weighs the egress queues)
  }

  // Output `port`'s marking point (cc.marking). One that watches the egress queues makes the
  // switch measure them.
  void attach_marking(unsigned port, std::unique_ptr<MarkingPoint> m) {
    if (m->watches().egress_bytes) track_egress();
    outputs_[port].attach_marking(std::move(m));
  }
  MarkingPoint* marking(unsigned port) { return outputs_[port].marking(); }
  const MarkingPoint* marking(unsigned port) const { return outputs_[port].marking(); }
  // A lossy output-buffered or shared switch (fabric.switch.buffering): a packet whose head
  // finds its output's VL at `output_limit` bytes, or the switch at `shared_limit` (0: no
  // pool), is dropped.
  void set_egress_limits(uint64_t output_limit, uint64_t shared_limit) {
    output_limit_ = output_limit;
    shared_limit_ = shared_limit;
    track_egress();
  }
  uint64_t egress_bytes(unsigned port, unsigned vl) const { return outputs_[port].egress_bytes(vl); }
  // The largest egress queue of `port` (bytes, all VLs) inside the statistics window.
  uint64_t egress_peak(unsigned port) const { return outputs_[port].egress_peak(); }
  // The marker sees the VoQs of linked input ports only, numbered in port order.
  unsigned number_marker_inputs();
  unsigned ports() const { return nports_; }
  const SwitchConfig& config() const { return cfg_; }
  const OutputUnit& output(unsigned port) const { return outputs_[port]; }
  // Port `port`'s performance counters (PortXmitData, PortRcvData, PortXmitWait, ...).
  PortCounters& counters(unsigned port) { return counters_[port]; }
  const PortCounters& counters(unsigned port) const { return counters_[port]; }

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

  void wake(unsigned port, uint64_t cycle);
  void track_egress() {
    tracks_egress_ = true;
    for (OutputUnit& u : outputs_) u.track_egress();
  }

  void on_arrive(unsigned port, tlm_generic_payload* pkt);
  [[noreturn, gnu::noinline, gnu::cold]] void no_route(unsigned dlid) const;  // (out of on_arrive's way)
  // Adaptive routing: the output for `dlid` on `vl` among its AR group; `o` is the forwarding
  // table's.
  unsigned adaptive_port(unsigned o, unsigned dlid, unsigned vl) const;

  // The VoQ fill the FECN marker sees counts the packets that are fully received and still
  // waiting: a packet that cuts straight through never adds to it (docs/network_model.md).
  void on_tail_in(unsigned o, uint32_t hop, tlm_generic_payload* pkt);

  // Picks the next packet for output `o` (round robin over inputs and VLs, or the oldest
  // head; VLArbitration tables between VLs) and starts it.
  void arbitrate(unsigned o) {
    // (Checked here, inline: half the calls find the output busy or nothing queued.)
    const OutPort& op = out[o];
    if (op.tx_active || op.busy_until > ctx_.now() || outputs_[o].pending() == 0) return;
    arbitrate_now(o);
  }
  void arbitrate_now(unsigned o);

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
  std::vector<OutputUnit> outputs_;  // [port] (0 unused)
  OutputUnit::Scratch scratch_;      // what the arbitration in progress notes (one at a time)
  bool tracks_egress_ = false;       // egress accounting (a marking point that watches it, a lossy limit)
  uint64_t output_limit_ = 0, shared_limit_ = 0;  // set_egress_limits (0: none)
  uint64_t shared_used_ = 0;                      // bytes in all VoQs (with egress tracking)
  std::vector<unsigned> marker_input_;  // [port] -> the marker's input index (linked ports only)
  Crossbar xbar_;
  std::vector<PortCounters> counters_;  // [port] (0 unused)
};

}  // namespace ibcc::net
