// The switch's event handling, arbitration and marking.
#include "net/fabric/switch.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "net/observe/probe.h"

namespace ibcc::net {

SwitchConfig SwitchConfig::from(const NodeContext& ctx) {
  const Scenario& s = ctx.scenario();
  SwitchConfig c;
  c.latency = ctx.cycles(s.fabric.switch_latency_ps);
  c.fill_from_head = s.fabric.fill_from_head;
  c.credit_in_order = s.fabric.credit_in_order;
  c.oldest_first = s.fabric.oldest_first;
  c.ignore_credits = s.faults.ignore_credits;
  c.crossbar_speedup = s.fabric.crossbar_speedup;
  c.vlarb = s.fabric.vlarb_tables ? &s.fabric.vlarb : nullptr;
  c.adaptive = s.fabric.adaptive_routing;
  c.ar_bound = s.fabric.ar_bound_bytes;
  return c;
}

void Switch::wired() {
  for (unsigned p = 1; p <= nports_; ++p) {
    if (in[p].upstream >= 0) xbar_.set_capacity(p, out[p].rate_bytes_per_cycle * cfg_.crossbar_speedup);
  }
}

unsigned Switch::number_marker_inputs() {
  unsigned n = 0;
  for (unsigned p = 1; p <= nports_; ++p) {
    if (in[p].upstream >= 0) marker_input_[p] = n++;
  }
  return n;
}

uint64_t Switch::queued_packets() const {
  // The VoQs each output's arbiter lists as non-empty (an empty one holds nothing; one left
  // out of the list would show as packets missing from the conservation check).
  uint64_t n = 0;
  for (unsigned o = 1; o <= nports_; ++o) {
    outputs_[o].for_each_queued([&](unsigned, unsigned, const PacketFifo& q) { n += q.count; });
  }
  return n;
}

void Switch::waits_of(unsigned in_port, unsigned vl, std::vector<unsigned>* outputs, bool* can_move) const {
  *can_move = false;
  for (unsigned o = 1; o <= nports_; ++o) {
    const PacketFifo& q = outputs_[o].voq(in_port, vl);
    if (q.empty()) continue;
    const OutPort& op = out[o];
    const uint32_t need = ib(q.head).credits;
    if (op.peer < 0 || op.vls[vl].credits + op.vls[vl].returning >= need || (op.tx_active && op.tx_input == in_port)) {
      *can_move = true;
      return;
    }
    outputs->push_back(o);
  }
}

std::vector<std::string> Switch::where_flow_waits(int32_t flow, unsigned max_lines) const {
  std::vector<std::string> lines;
  for (unsigned o = 1; o <= nports_ && lines.size() < max_lines; ++o) {
    for (unsigned ip = 1; ip <= nports_ && lines.size() < max_lines; ++ip) {
      for (unsigned vl = 0; vl < nvl_ && lines.size() < max_lines; ++vl) {
        const PacketFifo& q = outputs_[o].voq(ip, vl);
        unsigned pos = 0, first = 0, mine = 0, data = 0;
        for (tlm_generic_payload* p = q.head; p; p = ib(p).next, ++pos) {
          if (ib(p).flow != flow) continue;
          if (mine++ == 0) first = pos;
          data += ib(p).opcode == Opcode::kData ? 1 : 0;
        }
        if (mine == 0) continue;
        const OutPort& op = out[o];
        const OutputUnit::CreditReserve& r = outputs_[o].reserve(vl);
        lines.push_back(fmt::format("{} input {} VL{} -> output {}: {} of its packets ({} data, {} ACKs or CNPs), the "
                                    "first at place {} of {}; the head needs {} credits, the output has {} ({} returning{}){}",
                                    basename(), ip, vl, o, mine, data, mine - data, first, q.count, ib(q.head).credits,
                                    op.vls[vl].credits, op.vls[vl].returning,
                                    r.pair == OutputUnit::CreditReserve::kNone
                                        ? ""
                                        : fmt::format(", {} kept for input {}", r.credits, outputs_[o].input_of(r.pair)),
                                    op.tx_active ? ", sending" : ""));
      }
    }
  }
  return lines;
}

void Switch::handle(const Event& e) {
  switch (e.kind) {
    case EventKind::kArrive: on_arrive(e.port, e.pkt); break;
    case EventKind::kTailIn: on_tail_in(e.port, e.value, e.pkt); break;
    case EventKind::kArbitrate:
      if (out[e.port].arb_at == e.cycle) {
        out[e.port].arb_at = UINT64_MAX;
        arbitrate(e.port);
      }
      break;
    case EventKind::kTxDone: on_tx_done(e.port); break;
    case EventKind::kCredit: on_credit(e.port, e.vl, e.value); break;
    case EventKind::kPfc: on_pfc(e.port, e.vl, e.value != 0); break;
    default: break;
  }
}

void Switch::wake(unsigned port, uint64_t cycle) {
  OutPort& o = out[port];
  if (cycle < o.arb_at) {
    o.arb_at = cycle;
    ctx_.schedule(cycle, EventKind::kArbitrate, index_, port);
  }
}

void Switch::on_arrive(unsigned port, tlm_generic_payload* pkt) {
  counters_[port].received(ib(pkt).vl, ib(pkt).wire_bytes);  // (also one a lossy link drops: it was received)
  if (!accept(ctx_, *this, "switch", port, pkt)) return;  // dropped (lossy)
  IbExtension& e = ib(pkt);
  const auto& lft = ctx_.topology().lft[index_];
  unsigned o = e.dlid < lft.size() ? lft[e.dlid] : 0;
  if (o == 0 || out[o].peer < 0) no_route(e.dlid);
  if (cfg_.adaptive != FabricParams::AdaptiveRouting::kOff) o = adaptive_port(o, e.dlid, e.vl);
  OutputUnit& u = outputs_[o];
  if (output_limit_ && (u.egress_bytes(e.vl) + e.wire_bytes > output_limit_ ||
                        (shared_limit_ && shared_used_ + e.wire_bytes > shared_limit_))) {
    drop(ctx_, *this, port, pkt, true, o);  // drop-tail at the output's (or the pool's) limit
    return;
  }
  e.eligible_cycle = ctx_.now() + cfg_.latency;
  e.in_fill = false;
  u.push(port, e.vl, pkt);
  if (tracks_egress_) {
    u.egress_bytes(e.vl) += e.wire_bytes;
    shared_used_ += e.wire_bytes;
    if (ctx_.in_stats_window()) u.note_egress_peak();
  }
  if (const MarkingPoint* m = u.marking(); m && m->watches().voq_fill) {
    if (cfg_.fill_from_head) on_tail_in(o, e.hop, pkt);
    else in[port].tail = {pkt, e.hop, ctx_.schedule(e.tail_cycle, EventKind::kTailIn, index_, o, 0, e.hop, pkt)};
  }
  out[o].wait_eligible = std::min(out[o].wait_eligible, e.eligible_cycle);
  if (out[o].busy_until <= e.eligible_cycle) wake(o, e.eligible_cycle);
}

unsigned Switch::adaptive_port(unsigned o, unsigned dlid, unsigned vl) const {
  const Topology& t = ctx_.topology();
  const std::vector<uint16_t>& group_of = t.ar_group[index_];
  const unsigned g = dlid < group_of.size() ? group_of[dlid] : 0;
  if (g == 0) return o;
  // The least occupied port of the group (bytes queued for it on the packet's VL), the
  // forwarding table's port first among equals, then the group's order (ascending ports).
  unsigned best = o;
  uint64_t least = outputs_[o].egress_bytes(vl);
  const uint64_t at_o = least;
  for (const uint16_t p : t.ar_groups[index_][g]) {
    const uint64_t q = outputs_[p].egress_bytes(vl);
    if (q < least) {
      least = q;
      best = p;
    }
  }
  // Bounded: the table's port unless it holds more than the bound over the least occupied.
  if (cfg_.adaptive == FabricParams::AdaptiveRouting::kBounded && at_o <= least + cfg_.ar_bound) return o;
  return best;
}

void Switch::no_route(unsigned dlid) const {
  throw ModelError(fmt::format("switch {} has no route for DLID {} (a lossless fabric cannot drop it)", basename(), dlid));
}

void Switch::on_tail_in(unsigned o, uint32_t hop, tlm_generic_payload* pkt) {
  IbExtension& e = ib(pkt);
  if (e.hop != hop) return;  // already sent on (its tail event could not be cancelled)
  if (InputUnit::PendingTail& t = in[e.in_port].tail; t.pkt == pkt) t = {};
  e.in_fill = true;
  uint32_t& fill = outputs_[o].voq(e.in_port, e.vl).fill;
  fill += e.credits;
  MarkingPoint& m = *outputs_[o].marking();
  m.set_fill(ctx_.now(), marker_input_[e.in_port], e.vl, fill);
  if (Probe* w = ctx_.probe) {
    w->fill(index_, o, e.in_port, e.vl, fill);
    w->congestion(index_, o, m.cong_state());
  }
}

void Switch::arbitrate_now(unsigned o) {
  OutPort& op = out[o];
  uint64_t next_eligible = UINT64_MAX;
  const int go = outputs_[o].pick(o, ctx_.now(), op, xbar_, scratch_, &next_eligible);
  if (go >= 0) {
    begin(o, static_cast<unsigned>(go));
    return;
  }
  counters_[o].arbitration_failed(scratch_.ready_, ctx_.now());
  op.wait_eligible = next_eligible;
  if (next_eligible != UINT64_MAX) wake(o, next_eligible);
}

void Switch::begin(unsigned o, unsigned idx) {
  OutputUnit& u = outputs_[o];
  u.granted(idx, scratch_);
  const unsigned ip = u.input_of(idx), vl = u.vl_of(idx);
  PacketFifo& q = u.voq(ip, vl);
  if (cfg_.vlarb) out[o].vlarb.sent(ib(q.head).wire_bytes);
  start(o, ip, vl, q);
}

void Switch::start(unsigned o, unsigned ip, unsigned vl, PacketFifo& q) {
  OutPort& op = out[o];
  OutputUnit& u = outputs_[o];
  tlm_generic_payload* pkt = u.pop(ip, vl);
  IbExtension& e = ib(pkt);
  const uint64_t now = ctx_.now();
  counters_[o].sent(vl, e.wire_bytes, now);
  if (InputUnit::PendingTail& t = in[ip].tail; t.pkt == pkt && t.hop == e.hop) {
    // Cut through: it leaves before its tail is in, so its kTailIn would find it gone.
    if (t.event != NodeContext::kNoEvent) ctx_.cancel(t.event);
    t = {};
  }
  uint64_t* queued = tracks_egress_ ? &u.egress_bytes(vl) : nullptr;
  MarkingPoint* m = u.marking();
  if (m) {
    const MarkingPoint::Departure d{vl, e.sl, e.slid, e.dlid, e.credits, e.opcode == Opcode::kData, queued ? *queued : 0};
    if (m->depart(now, d)) {
      e.fecn = true;  // (an ECN mark, congestion experienced, travels where FECN does)
      ++op.marked;
    }
    if (m->watches().voq_fill) {
      if (e.in_fill) {
        uint32_t& fill = q.fill;
        fill -= e.credits;
        m->set_fill(now, marker_input_[ip], vl, fill);
      }
      m->set_credits(now, vl, op.vls[vl].credits >= e.credits ? op.vls[vl].credits - e.credits : 0);
    }
  }
  if (queued) {
    *queued -= e.wire_bytes;
    shared_used_ -= e.wire_bytes;
  }
  op.tx_input = ip;
  op.tx_vl = vl;
  op.tx_credits = e.credits;
  op.tx_active = true;
  xbar_.connect(ip, op.rate_bytes_per_cycle);
  const uint64_t tail_in = e.tail_cycle;
  const bool marked = e.fecn;
  const uint64_t end = transmit(ctx_, *this, o, pkt, tail_in);
  ctx_.schedule(end, EventKind::kTxDone, index_, o);
  if (Probe* w = ctx_.probe) {
    w->departure(index_, o, marked, end);
    w->credits(index_, o, vl, op.vls[vl].credits);
    if (m && m->watches().voq_fill) {
      w->fill(index_, o, ip, vl, q.fill);
      w->congestion(index_, o, m->cong_state());
    }
  }
}

void Switch::on_tx_done(unsigned o) {
  OutPort& op = out[o];
  __builtin_prefetch(op.fw);  // the peer's end of the link, which the next packet calls
  op.take_deferred_credits();
  op.tx_active = false;
  const unsigned ip = op.tx_input;
  xbar_.disconnect(ip, op.rate_bytes_per_cycle);
  release_credits(ctx_, *this, op.tx_input, op.tx_vl, op.tx_credits, false);
  arbitrate(o);
  // The input's crossbar port is free again: outputs it was holding back may go now. An
  // output held back by other inputs' crossbar ports only is asked only if something else
  // it waited for is there now (a head eligible, credits back), as the event that brings
  // that would ask it later in this cycle: the same order as asking every waiting output.
  xbar_.for_each_waiting([&](unsigned p) {
    if (p != o && !out[p].tx_active && out[p].busy_until <= ctx_.now() && may_unblock(p, ip)) arbitrate(p);
  });
}

bool Switch::may_unblock(unsigned p, unsigned ip) const {
  const OutPort& op = out[p];
  if (xbar_.waits_for(p, ip) || op.wait_eligible <= ctx_.now()) return true;
  for (unsigned v = 0; v < nvl_; ++v) {
    if (op.vls[v].credits >= op.vls[v].need) return true;
  }
  return false;
}

void Switch::on_pfc(unsigned o, unsigned vl, bool pause) {
  OutPort& op = out[o];
  op.vls[vl].credits = pause ? 0u : OutPort::kPfcOpen;
  if (pause) ++op.pauses;
  if (MarkingPoint* m = outputs_[o].marking()) m->set_credits(ctx_.now(), vl, op.vls[vl].credits);
  if (!pause && !op.tx_active && outputs_[o].pending()) arbitrate(o);
}

void Switch::on_credit(unsigned o, unsigned vl, uint32_t credits) {
  OutPort& op = out[o];
  op.vls[vl].returning -= credits;
  op.vls[vl].credits += credits;
  if (MarkingPoint* m = outputs_[o].marking()) m->set_credits(ctx_.now(), vl, op.vls[vl].credits);
  if (Probe* w = ctx_.probe) w->credits(index_, o, vl, op.vls[vl].credits);
  // Only a head that was waiting for credits on this VL can go now (arbitration records
  // the least any of them needs); other waits have their own wake-ups.
  if (!op.tx_active && outputs_[o].pending() && op.vls[vl].credits >= op.vls[vl].need) arbitrate(o);
}

}  // namespace ibcc::net
