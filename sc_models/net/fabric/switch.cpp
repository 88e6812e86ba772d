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
    voq_arb_[o].scan([&](unsigned pair) {
      n += voq_[voq_index(by_vl_.quot(pair) + 1, by_vl_.rem(pair), o)].count;
      return false;
    });
  }
  return n;
}

void Switch::waits_of(unsigned in_port, unsigned vl, std::vector<unsigned>* outputs, bool* can_move) const {
  *can_move = false;
  for (unsigned o = 1; o <= nports_; ++o) {
    const PacketFifo& q = voq_[voq_index(in_port, vl, o)];
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
        const PacketFifo& q = voq_[voq_index(ip, vl, o)];
        unsigned pos = 0, first = 0, mine = 0, data = 0;
        for (tlm_generic_payload* p = q.head; p; p = ib(p).next, ++pos) {
          if (ib(p).flow != flow) continue;
          if (mine++ == 0) first = pos;
          data += ib(p).opcode == Opcode::kData ? 1 : 0;
        }
        if (mine == 0) continue;
        const OutPort& op = out[o];
        const CreditReserve& r = reserve_[o * nvl_ + vl];
        lines.push_back(fmt::format("{} input {} VL{} -> output {}: {} of its packets ({} data, {} ACKs or CNPs), the "
                                    "first at place {} of {}; the head needs {} credits, the output has {} ({} returning{}){}",
                                    basename(), ip, vl, o, mine, data, mine - data, first, q.count, ib(q.head).credits,
                                    op.vls[vl].credits, op.vls[vl].returning,
                                    r.pair == CreditReserve::kNone ? "" : fmt::format(", {} kept for input {}", r.credits,
                                                                                      by_vl_.quot(r.pair) + 1),
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
  if (!accept(ctx_, *this, "switch", port, pkt)) return;  // dropped (lossy)
  IbExtension& e = ib(pkt);
  const auto& lft = ctx_.topology().lft[index_];
  const unsigned o = e.dlid < lft.size() ? lft[e.dlid] : 0;
  if (o == 0 || out[o].peer < 0) no_route(e.dlid);
  if (output_limit_ && (egress_bytes_[o * nvl_ + e.vl] + e.wire_bytes > output_limit_ ||
                        (shared_limit_ && shared_used_ + e.wire_bytes > shared_limit_))) {
    drop(ctx_, *this, port, pkt, true, o);  // drop-tail at the output's (or the pool's) limit
    return;
  }
  e.eligible_cycle = ctx_.now() + cfg_.latency;
  e.in_fill = false;
  PacketFifo& q = voq(port, e.vl, o);
  if (q.empty()) {
    ++pending_[o];
    voq_arb_[o].request((port - 1) * nvl_ + e.vl, true);
  }
  q.push(pkt);
  if (!egress_bytes_.empty()) {
    egress_bytes_[o * nvl_ + e.vl] += e.wire_bytes;
    shared_used_ += e.wire_bytes;
    if (ctx_.in_stats_window()) {
      uint64_t all = 0;
      for (unsigned v = 0; v < nvl_; ++v) all += egress_bytes_[o * nvl_ + v];
      egress_peak_[o] = std::max(egress_peak_[o], all);
    }
  }
  if (const MarkingPoint* m = marking_[o].get(); m && m->watches().voq_fill) {
    if (cfg_.fill_from_head) on_tail_in(o, e.hop, pkt);
    else in[port].tail = {pkt, e.hop, ctx_.schedule(e.tail_cycle, EventKind::kTailIn, index_, o, 0, e.hop, pkt)};
  }
  out[o].wait_eligible = std::min(out[o].wait_eligible, e.eligible_cycle);
  if (out[o].busy_until <= e.eligible_cycle) wake(o, e.eligible_cycle);
}

void Switch::no_route(unsigned dlid) const {
  throw ModelError(fmt::format("switch {} has no route for DLID {} (a lossless fabric cannot drop it)", basename(), dlid));
}

void Switch::on_tail_in(unsigned o, uint32_t hop, tlm_generic_payload* pkt) {
  IbExtension& e = ib(pkt);
  if (e.hop != hop) return;  // already sent on (its tail event could not be cancelled)
  if (InPort::PendingTail& t = in[e.in_port].tail; t.pkt == pkt) t = {};
  e.in_fill = true;
  uint32_t& fill = voq(e.in_port, e.vl, o).fill;
  fill += e.credits;
  MarkingPoint& m = *marking_[o];
  m.set_fill(ctx_.now(), marker_input_[e.in_port], e.vl, fill);
  if (Probe* w = ctx_.probe) {
    w->fill(index_, o, e.in_port, e.vl, fill);
    w->congestion(index_, o, m.cong_state());
  }
}

void Switch::arbitrate_now(unsigned o) {
  OutPort& op = out[o];
  for (OutPort::Vl& v : op.vls) v.need = UINT32_MAX;
  xbar_.clear_waits(o);
  uint64_t next_eligible = UINT64_MAX;
  const bool ignore_credits = cfg_.ignore_credits;
  const bool tables = cfg_.vlarb != nullptr;
  const bool oldest_first = cfg_.oldest_first, credit_in_order = cfg_.credit_in_order;
  std::array<int, kMaxVls> first_ready;  // (read only with tables or oldest first)
  if (tables || oldest_first) first_ready.fill(-1);
  uint32_t held = 0;  // VLs held by a head waiting for credits (credit_in_order)
  std::fill_n(passed_.begin(), nvl_, -1);
  if (oldest_first) age_ = HeadAges();  // (a member: round robin does not pay for it)
  // Visit the requesting (input, VL) pairs in round-robin order. Round robin starts the
  // first that may go; with VLArbitration tables, the first that may go on each VL is noted
  // and the tables choose the VL; oldest first notes each VL's oldest head.
  const int go = voq_arb_[o].scan([&](unsigned idx) {
    const unsigned vl = by_vl_.rem(idx);
    if (oldest_first) {
      oldest_head(o, idx, ignore_credits, &next_eligible, &age_);
      return false;
    }
    if (held & (1u << vl)) return false;
    if (!may_go(o, idx, ignore_credits, &next_eligible)) {
      // In order: the first head that lacks credits holds its VL until they are back.
      if (credit_in_order && op.vls[vl].need != UINT32_MAX) held |= 1u << vl;
      // First fit: a head of this VL that goes after it in this scan passes it by.
      if (short_ && passed_[vl] < 0 && (!tables || first_ready[vl] < 0)) passed_[vl] = static_cast<int>(idx);
      return false;
    }
    if (!tables) return true;
    if (first_ready[vl] < 0) first_ready[vl] = static_cast<int>(idx);
    return false;
  });
  if (go >= 0) {
    begin(o, static_cast<unsigned>(go));
    return;
  }
  if (oldest_first) {
    int best = -1;
    for (unsigned vl = 0; vl < nvl_; ++vl) {
      // First fit: the oldest head that lacks credits, if older than the one that may go.
      if (age_.short_t[vl] < age_.ready_t[vl]) passed_[vl] = age_.short_idx[vl];
      // In order: a VL whose oldest head lacks credits waits for them.
      if (age_.ready[vl] < 0 || (credit_in_order && age_.short_t[vl] < age_.ready_t[vl])) continue;
      first_ready[vl] = age_.ready[vl];
      if (best < 0 || age_.ready_t[vl] < age_.ready_t[best]) best = static_cast<int>(vl);
    }
    if (!tables && best >= 0) {
      begin(o, static_cast<unsigned>(first_ready[best]));
      return;
    }
  }
  if (tables) {
    uint32_t ready = 0;
    for (unsigned v = 0; v < nvl_; ++v) ready |= (first_ready[v] >= 0 ? 1u : 0u) << v;
    const int vl = op.vlarb.pick(*cfg_.vlarb, nvl_, ready);
    if (vl >= 0) {
      begin(o, static_cast<unsigned>(first_ready[vl]));
      return;
    }
  }
  op.wait_eligible = next_eligible;
  if (next_eligible != UINT64_MAX) wake(o, next_eligible);
}

void Switch::oldest_head(unsigned o, unsigned idx, bool ignore_credits, uint64_t* next_eligible, HeadAges* age) {
  const unsigned vl = by_vl_.rem(idx);
  const PacketFifo& q = voq(by_vl_.quot(idx) + 1, vl, o);
  const uint64_t t = q.head_eligible;
  // may_go for every head, also younger ones: it notes the credits and the cycle each waits
  // for, which wake the output again (a younger small packet may fit first, first_fit).
  if (may_go(o, idx, ignore_credits, next_eligible)) {
    if (t < age->ready_t[vl]) {
      age->ready_t[vl] = t;
      age->ready[vl] = static_cast<int>(idx);
    }
  } else if (short_ && t < age->short_t[vl]) {
    age->short_t[vl] = t;
    age->short_idx[vl] = static_cast<int>(idx);
  }
}

bool Switch::may_go(unsigned o, unsigned idx, bool ignore_credits, uint64_t* next_eligible) {
  OutPort& op = out[o];
  short_ = false;
  const unsigned ip = by_vl_.quot(idx) + 1, vl = by_vl_.rem(idx);
  const PacketFifo& q = voq(ip, vl, o);
  if (q.head_eligible > ctx_.now()) {
    *next_eligible = std::min(*next_eligible, q.head_eligible);
    return false;
  }
  if (!ignore_credits) {
    CreditReserve& r = reserve_[o * nvl_ + vl];
    const uint32_t need = q.head_credits + (r.pair != CreditReserve::kNone && r.pair != idx ? r.credits : 0u);
    if (op.vls[vl].credits < need) {
      op.vls[vl].need = std::min(op.vls[vl].need, need);
      short_ = true;
      return false;
    }
  }
  if (!xbar_.fits(ip, op.rate_bytes_per_cycle)) {
    xbar_.note_wait(o, ip);
    return false;
  }
  return true;
}

void Switch::begin(unsigned o, unsigned idx) {
  OutPort& op = out[o];
  const unsigned ip = by_vl_.quot(idx) + 1, vl = by_vl_.rem(idx);
  voq_arb_[o].granted(idx);
  CreditReserve& r = reserve_[o * nvl_ + vl];
  if (r.pair == idx) {
    r = {};
  } else if (r.pair == CreditReserve::kNone && passed_[vl] >= 0 && !cfg_.credit_in_order) {
    // A head passed by for want of its credits: they are kept for it from now on.
    const unsigned p = static_cast<unsigned>(passed_[vl]);
    r = {p, voq(by_vl_.quot(p) + 1, vl, o).head_credits};
  }
  PacketFifo& q = voq(ip, vl, o);
  if (cfg_.vlarb) op.vlarb.sent(ib(q.head).wire_bytes);
  start(o, ip, vl, q);
}

void Switch::start(unsigned o, unsigned ip, unsigned vl, PacketFifo& q) {
  OutPort& op = out[o];
  tlm_generic_payload* pkt = q.pop();
  if (q.empty()) {
    --pending_[o];
    voq_arb_[o].request((ip - 1) * nvl_ + vl, false);
  }
  IbExtension& e = ib(pkt);
  const uint64_t now = ctx_.now();
  if (InPort::PendingTail& t = in[ip].tail; t.pkt == pkt && t.hop == e.hop) {
    // Cut through: it leaves before its tail is in, so its kTailIn would find it gone.
    if (t.event != NodeContext::kNoEvent) ctx_.cancel(t.event);
    t = {};
  }
  uint64_t* queued = egress_bytes_.empty() ? nullptr : &egress_bytes_[o * nvl_ + vl];
  MarkingPoint* m = marking_[o].get();
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
  if (MarkingPoint* m = marking_[o].get()) m->set_credits(ctx_.now(), vl, op.vls[vl].credits);
  if (!pause && !op.tx_active && pending_[o]) arbitrate(o);
}

void Switch::on_credit(unsigned o, unsigned vl, uint32_t credits) {
  OutPort& op = out[o];
  op.vls[vl].returning -= credits;
  op.vls[vl].credits += credits;
  if (MarkingPoint* m = marking_[o].get()) m->set_credits(ctx_.now(), vl, op.vls[vl].credits);
  if (Probe* w = ctx_.probe) w->credits(index_, o, vl, op.vls[vl].credits);
  // Only a head that was waiting for credits on this VL can go now (arbitration records
  // the least any of them needs); other waits have their own wake-ups.
  if (!op.tx_active && pending_[o] && op.vls[vl].credits >= op.vls[vl].need) arbitrate(o);
}

}  // namespace ibcc::net
