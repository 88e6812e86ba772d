// Links: what every port does to send a packet, receive its head and return its credits.
#include "net/fabric/link.h"

#include <algorithm>
#include <typeinfo>

#include <fmt/format.h>

#include "net/observe/probe.h"
#include "net/fabric/node_context.h"

namespace ibcc::net {

uint64_t ser_cycles(const OutPort& o, uint32_t wire_bytes) {
  return static_cast<uint64_t>(std::ceil(wire_bytes * o.cycles_per_byte - 1e-9));
}

PortEnd::PortEnd(Node& node, unsigned port)
    : ctx_(node.context()), node_(node), node_index_(node.index()), port_(port), out(fmt::format("out_{}", port).c_str()),
      in(fmt::format("in_{}", port).c_str()) {
  in.bind(*this);
  out.bind(*this);
}

PortEnd::FwIf* PortEnd::bound_fw() { return out.size() ? out.operator->() : nullptr; }
PortEnd::BwIf* PortEnd::bound_bw() { return in.size() ? in.operator->() : nullptr; }

void Node::end_of_elaboration() {
  for (unsigned p = 1; p <= num_ends(); ++p) {
    if (p < out.size()) {
      out[p].fw = end(p).bound_fw();
      end(p).out_port_ = &out[p];
    }
    if (p < in.size()) in[p].bw = end(p).bound_bw();
    end(p).peer_is_fabric_ = dynamic_cast<PortEnd*>(end(p).bound_bw()) != nullptr;
  }
}

// The errors of the paths below, out of line: their formatting would otherwise make every
// call save and restore registers it never needs.
namespace {

[[noreturn, gnu::noinline, gnu::cold]] void bad_forward(const Node& node, unsigned port, const tlm_generic_payload& gp,
                                                         const tlm::tlm_phase& phase) {
  throw ModelError(fmt::format("link protocol: {}/{} got {} with phase {}; a link takes IbPackets of the fabric's "
                               "pool with BEGIN_REQ (docs/network_model.md)",
                               node.basename(), port,
                               typeid(gp) == typeid(IbPacket) ? "a packet" : "a payload that is not an IbPacket",
                               phase.get_name()));
}

[[noreturn, gnu::noinline, gnu::cold]] void bad_backward(const Node& node, unsigned port, const tlm::tlm_phase& phase,
                                                          unsigned vls) {
  throw ModelError(fmt::format("link protocol: {}/{} got phase {} on the backward path; credits come back with IB_CREDIT "
                               "in a CreditPayload naming one of the {} VLs (docs/network_model.md)",
                               node.basename(), port, phase.get_name(), vls));
}

[[noreturn, gnu::noinline, gnu::cold]] void overflow(NodeContext& f, const Node& at, const char* what, unsigned port,
                                                      unsigned vl, const InputUnit& in) {
  throw ModelError(fmt::format("invariant broken at {} us: buffer overflow at {} {}/{} VL{}: {} credits in a {}-credit buffer{}",
                               static_cast<double>(f.ps(f.now())) / 1e6, what, at.basename(), port, vl, in.vl[vl].used,
                               in.capacity, in.pfc ? fmt::format(" (PFC: XOFF at {} credits came too late; lower "
                                                                 "fabric.pfc.xoff or give a larger buffer)", in.xoff)
                                                   : std::string()));
}

}  // namespace

tlm::tlm_sync_enum PortEnd::nb_transport_fw(tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_core::sc_time& delay) {
  // An IbPacket carries its extension inside it (packet.h); any other payload does not.
  // (From another PortEnd it is one by construction: peer_is_fabric_.)
  if (phase != tlm::BEGIN_REQ || (!peer_is_fabric_ && typeid(gp) != typeid(IbPacket))) bad_forward(node_, port_, gp, phase);
  IbExtension& e = ib(gp);
  e.in_port = static_cast<uint16_t>(port_);
  const uint64_t at = ctx_.arrival_cycle(delay);
  e.tail_cycle += at;  // the tail follows the head as it left the sender, wherever the head was held
  ctx_.schedule(at, EventKind::kArrive, node_index_, port_, 0, 0, &gp);
  return tlm::TLM_ACCEPTED;
}

tlm::tlm_sync_enum PortEnd::nb_transport_bw(tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_core::sc_time& delay) {
  if (phase != IB_CREDIT || typeid(gp) != typeid(CreditPayload) || static_cast<CreditPayload&>(gp).credit.vl >= ctx_.num_vls()) {
    bad_backward(node_, port_, phase, ctx_.num_vls());
  }
  const IbCredit& c = static_cast<CreditPayload&>(gp).credit;
  if (c.pfc != IbCredit::kCredits) {  // a PFC pause frame
    ctx_.schedule(ctx_.arrival_cycle(delay), EventKind::kPfc, node_index_, port_, c.vl, c.pfc == IbCredit::kPause ? 1u : 0u);
    return tlm::TLM_ACCEPTED;
  }
  OutPort& o = *out_port_;
  OutPortVl& v = o.vls[c.vl];
  v.returning += c.credits;
  if (!peer_is_fabric_) note_credits_back(c.vl, c.credits);
  const uint64_t at = ctx_.arrival_cycle(delay);
  if (o.defer_credits && at < o.busy_until && v.credits > 0 && !ctx_.probe) {
    // They arrive while the port sends, and it has credits on this VL: their event would
    // change nothing but the count (OutPort::defer_credits). The port takes them when it
    // is done sending.
    v.deferred += c.credits;
    o.has_deferred = true;
    return tlm::TLM_ACCEPTED;
  }
  ctx_.schedule(at, EventKind::kCredit, node_index_, port_, c.vl, c.credits);
  return tlm::TLM_ACCEPTED;
}

void PortEnd::note_credits_back(unsigned vl, uint32_t credits) {
  if (credits_back_.size() <= vl) credits_back_.resize(vl + 1, 0);
  credits_back_[vl] += credits;
}

void PortEnd::b_transport(tlm_generic_payload&, sc_core::sc_time&) {
  throw ModelError(fmt::format("link protocol: b_transport called at {}/{}; a link is non-blocking only (docs/network_model.md)",
                               node_.basename(), port_));
}

// Starts sending `pkt` on port `port` of `from` at the current cycle; the head reaches the peer
// after the propagation delay, the tail `ser` cycles later (or when the tail reaches this node,
// whichever is later: virtual cut-through cannot send what has not arrived). Returns the
// cycle the port is free again.
uint64_t transmit(NodeContext& f, Node& from, unsigned port, tlm_generic_payload* pkt, uint64_t tail_in) {
  OutPort& o = from.out[port];
  IbExtension& e = ib(pkt);
  const uint64_t now = f.now();
  const uint64_t ser = o.ser.get(e.wire_bytes, [&o](uint32_t w) { return ser_cycles(o, w); });
  const uint64_t end = std::max(now + ser, tail_in);
  if (!f.scenario().faults.ignore_credits && !o.uncredited) o.vls[e.vl].credits -= e.credits;
  o.vls[e.vl].sent += e.credits;
  o.busy_until = end;
  o.packets++;
  o.bytes += e.wire_bytes;
  e.tail_cycle = end - now;  // (relative on the wire: the receiving end makes it a cycle)
  ++e.hop;
  ++f.on_wire;
  ++f.hops;
  f.progress();
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_core::sc_time delay = o.prop_delay;
  o.fw->nb_transport_fw(*pkt, phase, delay);  // the initiator socket's peer
  return end;
}

// Buffer accounting when a head arrives (the input unit decides); throws on overflow.
bool accept(NodeContext& f, Node& at, const char* what, unsigned port, tlm_generic_payload* pkt) {
  IbExtension& e = ib(pkt);
  InputUnit& in = at.in[port];
  --f.on_wire;
  switch (in.arrive(e.vl, e.credits, f.now())) {
    case InputUnit::Arrival::kAccepted:
      return true;
    case InputUnit::Arrival::kPause:
      send_pause(f, at, port, e.vl, true);
      return true;
    case InputUnit::Arrival::kDrop:
      drop(f, at, port, pkt, false);
      return false;
    case InputUnit::Arrival::kOverflow:
      break;
  }
  overflow(f, at, what, port, e.vl, in);
}

void drop(NodeContext& f, Node& at, unsigned port, tlm_generic_payload* pkt, bool accounted, unsigned out_port) {
  IbExtension& e = ib(pkt);
  InputUnit& in = at.in[port];
  if (accounted) in.unaccount(e.vl, e.credits);
  uint64_t& count = out_port ? at.out[out_port].drops : in.drops;
  ++count;
  ++f.dropped;
  if (Probe* w = f.probe) w->drops(at.index(), out_port ? out_port : port, count);
  if (e.flow >= 0 && e.opcode == Opcode::kData) {
    FlowStats& st = f.sink_stats(static_cast<unsigned>(e.flow));  // (a switch of any shard)
    ++st.dropped_packets;
    st.progress_cycle = f.now();  // the packet is resolved: not stalled in the fabric
  }
  f.progress();  // a drop is the fabric moving, not a stall
  pkt->release();
}

// A PFC pause frame (XOFF, or XON) from input `port` of `at` to its upstream sender: it
// takes the link's propagation and its own serialisation.
void send_pause(NodeContext& f, Node& at, unsigned port, unsigned vl, bool pause) {
  InputUnit& in = at.in[port];
  in.pause_sent(vl, pause);
  CreditPayload& c = f.credit_payload;
  c.credit.vl = vl;
  c.credit.credits = 0;
  c.credit.pfc = pause ? IbCredit::kPause : IbCredit::kResume;
  tlm::tlm_phase phase = IB_CREDIT;
  sc_core::sc_time delay = f.link_delay(in.prop_cycles + in.pause_cycles);
  in.bw->nb_transport_bw(c, phase, delay);
  c.credit.pfc = IbCredit::kCredits;
}

// Frees a packet's buffer space and sends back what the input unit says goes upstream.
void release_credits(NodeContext& f, Node& at, unsigned port, unsigned vl, uint32_t credits, bool leak) {
  InputUnit& in = at.in[port];
  const InputUnit::Return r = in.release(vl, credits, f.now(), leak);
  if (r.kind == InputUnit::Return::kNothing) return;
  if (r.kind == InputUnit::Return::kResume) {
    send_pause(f, at, port, vl, false);
    return;
  }
  // Back through the target socket; the fault loses them on the way (the message carries none).
  CreditPayload& c = f.credit_payload;
  c.credit.vl = vl;
  c.credit.credits = r.credits;
  tlm::tlm_phase phase = IB_CREDIT;
  sc_core::sc_time delay = in.prop_delay;
  in.bw->nb_transport_bw(c, phase, delay);
}

}  // namespace ibcc::net
