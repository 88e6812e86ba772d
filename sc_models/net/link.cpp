// Links: what every port does to send a packet, receive its head and return its credits.
#include "net/link.h"

#include <algorithm>

#include <fmt/format.h>

#include "net/node_context.h"

namespace ibcc::net {

uint64_t ser_cycles(const OutPort& o, uint32_t wire_bytes) {
  return static_cast<uint64_t>(std::ceil(wire_bytes * o.cycles_per_byte - 1e-9));
}

tlm::tlm_sync_enum Node::nb_transport_fw(tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_core::sc_time& delay) {
  (void)phase;
  const uint64_t cyc = ctx_.now() + delay.value() / ctx_.ps_per_cycle();
  ctx_.schedule(cyc, EventKind::kArrive, index_, ib(gp).in_port, 0, 0, &gp);
  return tlm::TLM_ACCEPTED;
}

// Starts sending `pkt` on port `port` of `from` at the current cycle; the head reaches the peer
// after the propagation delay, the tail `ser` cycles later (or when the tail reaches this node,
// whichever is later: virtual cut-through cannot send what has not arrived). Returns the
// cycle the port is free again.
uint64_t transmit(NodeContext& f, Node& from, unsigned port, tlm_generic_payload* pkt, uint64_t tail_in) {
  OutPort& o = from.out[port];
  IbExtension& e = ib(pkt);
  const uint64_t now = f.now();
  const uint64_t end = std::max(now + ser_cycles(o, e.wire_bytes), tail_in);
  if (!f.scenario().faults.ignore_credits) o.credits[e.vl] -= e.credits;
  o.on_wire[e.vl] += e.credits;
  o.busy_until = end;
  o.packets++;
  o.bytes += e.wire_bytes;
  e.in_port = static_cast<uint16_t>(o.peer_port);
  e.tail_cycle = end + o.prop_cycles;
  ++e.hop;
  ++f.on_wire;
  ++f.hops;
  f.progress();
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_core::sc_time delay = sc_core::sc_time::from_value(o.prop_cycles * f.ps_per_cycle());
  f.node(static_cast<unsigned>(o.peer)).nb_transport_fw(*pkt, phase, delay);
  return end;
}

// Buffer accounting when a head arrives; throws on overflow.
void accept(NodeContext& f, Node& at, const char* what, unsigned port, tlm_generic_payload* pkt) {
  IbExtension& e = ib(pkt);
  InPort& in = at.in[port];
  OutPort& up = f.node(static_cast<unsigned>(in.upstream)).out[in.upstream_port];
  up.on_wire[e.vl] -= e.credits;
  --f.on_wire;
  if (in.vl[e.vl].used == 0) in.vl[e.vl].moved = f.now();
  in.vl[e.vl].used += e.credits;
  in.vl[e.vl].peak = std::max(in.vl[e.vl].peak, in.vl[e.vl].used);
  if (in.vl[e.vl].used > in.capacity) {
    throw ModelError(fmt::format("invariant broken at {} us: buffer overflow at {} {}/{} VL{}: {} credits in a {}-credit buffer",
                                 static_cast<double>(f.ps(f.now())) / 1e6, what, at.basename(), port, e.vl, in.vl[e.vl].used, in.capacity));
  }
  e.head_cycle = f.now();
}

// Frees a packet's buffer space and sends the credits back over the link.
void release_credits(NodeContext& f, Node& at, unsigned port, unsigned vl, uint32_t credits, bool leak) {
  InPort& in = at.in[port];
  in.vl[vl].used -= credits;
  in.vl[vl].moved = f.now();
  OutPort& up = f.node(static_cast<unsigned>(in.upstream)).out[in.upstream_port];
  up.returning[vl] += credits;
  f.schedule(f.now() + up.prop_cycles, EventKind::kCredit, static_cast<uint32_t>(in.upstream), in.upstream_port, vl,
             leak ? 0u : credits);
  if (leak) up.returning[vl] -= credits;  // the fault: these credits never come back
}

}  // namespace ibcc::net
