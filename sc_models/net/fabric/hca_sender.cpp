// An HCA's sender: control packets, ping-pong answers and its flows' data, paced by its
// reaction point.
#include "net/fabric/hca_sender.h"

#include <algorithm>
#include <cmath>

#include "net/observe/probe.h"

namespace ibcc::net {

HcaConfig HcaConfig::from(const NodeContext& ctx) {
  const Scenario& s = ctx.scenario();
  HcaConfig c;
  c.inject_bps = s.fabric.hca_inject_bps;
  c.sink_bps = s.fabric.hca_sink_bps;
  c.sink.hiccup_period = s.fabric.sink_hiccup.period_ps ? ctx.cycles(s.fabric.sink_hiccup.period_ps) : 0;
  c.sink.hiccup_duration = ctx.cycles(s.fabric.sink_hiccup.duration_ps);
  c.sink.completion_cycles = ctx.cycles(s.fabric.hca_completion_latency_ps);
  c.send_jitter = ctx.cycles(s.fabric.hca_send_jitter_ps);
  c.mtu = s.fabric.mtu;
  c.ack_bytes = s.fabric.ack_bytes;
  c.cnp_bytes = s.fabric.cnp_bytes;
  for (size_t sl = 0; sl < c.sl_to_vl.size(); ++sl) c.sl_to_vl[sl] = static_cast<uint8_t>(s.fabric.vl_of_sl(sl));
  c.ignore_credits = s.faults.ignore_credits;
  c.count_out_of_order = s.adaptive_routing();
  return c;
}

void HcaSender::wake(uint64_t cycle) {
  if (cycle < wake_at_) {
    wake_at_ = cycle;
    ctx_.schedule(cycle, EventKind::kHcaWake, node_.index());
  }
}

void HcaSender::try_send() {
  OutPort& o = node_.out[1];
  const uint64_t now = ctx_.now();
  reaction_->issue_due(now, *this);
  if (o.busy_until > now) return;  // its kTxDone at busy_until asks again
  __builtin_prefetch(o.fw);  // the peer's end of the link, which a packet sent here calls
  o.take_deferred_credits();
  const bool ignore_credits = cfg_.ignore_credits;
  if (!probes_.empty()) issue_probes(now);
  // Congestion notifications first.
  if (!cnps_.empty()) {
    IbExtension& e = ib(cnps_.head);
    DataWait& w = data_wait_[e.vl];
    const uint32_t kept = w.wait_credits != 0 && w.passed >= kCnpCreditsPerWait * w.wait_credits ? w.wait_credits : 0u;
    if (ignore_credits || o.vls[e.vl].credits >= e.credits + kept) {
      if (w.wait_credits != 0) w.passed += e.credits;
      tlm_generic_payload* pkt = cnps_.pop();
      const uint64_t end = transmit(ctx_, node_, 1, pkt, 0);
      ctx_.schedule(end, EventKind::kTxDone, node_.index(), 1);
      return;
    }
  }
  if (host_ready_ > now) {
    wake(host_ready_);
    return;
  }
  std::vector<Flow>& all = ctx_.flows();
  uint64_t next = UINT64_MAX;
  // Ping-pong answers next (the probe's reply is what its application waits for).
  if (replies_queued_) {
    Reply& r = replies_.front();
    const uint64_t ready = std::max(r.ready, reaction_->paced_until(all[r.flow].spec.qp, all[r.flow].spec.sl));
    if (ready > now) {
      next = ready;
    } else {
      const uint32_t payload = static_cast<uint32_t>(std::min<uint64_t>(r.left, cfg_.mtu));
      const uint32_t wire = ctx_.wire_bytes(payload);
      const unsigned vl = cfg_.sl_to_vl[all[r.flow].spec.sl];
      if (ignore_credits || o.vls[vl].credits >= NodeContext::credits_of(wire)) {
        send_reply(r, vl, payload, wire);
        return;
      }
    }
  }
  const size_t n = flows.size();
  const bool gbn = gbn_ != nullptr;
  for (size_t k = 0; k < n; ++k) {
    // (rr_ < n and lane_rr < nl: a subtraction wraps, where % would divide at every packet)
    const size_t idx = rr_ + k >= n ? rr_ + k - n : rr_ + k;
    Flow& f = all[flows[idx]];
    // (Go-Back-N still sends again what a stopped flow has not had acknowledged.)
    const bool stopped = now >= f.stop_cycle;
    if (stopped && !gbn) continue;
    if (f.start_cycle > now) {
      next = std::min(next, f.start_cycle);
      continue;
    }
    const unsigned vl = cfg_.sl_to_vl[f.sl];
    const size_t nl = f.lanes.size();
    for (size_t m = 0; m < nl; ++m) {
      const size_t li = f.lane_rr + m >= nl ? f.lane_rr + m - nl : f.lane_rr + m;
      Flow::Lane& lane = f.lanes[li];
      const GbnTransport::Sent* again = nullptr;
      if (gbn && gbn_->turn(f, flows[idx], lane.qp, now, stopped, &again, &next) == GbnTransport::Turn::kHold) {
        continue;  // stopped, or the window is full (stall): an ACK or the timeout wakes us
      }
      if (!again && lane.message_left == 0) {
        // A new message: a ping waits for the previous answer, an offered-rate flow for
        // its application to create the next message.
        if (f.spec.pingpong) {
          if (f.pp_waiting) continue;  // the answer's arrival wakes us
          if (f.pp_next > now) {
            next = std::min(next, f.pp_next);
            continue;
          }
        }
        uint64_t created = now;
        if (f.rate_cycles_per_byte > 0) {
          const uint64_t due = static_cast<uint64_t>(std::ceil(f.next_message_cycle));
          if (due > now) {
            next = std::min(next, due);
            continue;
          }
          created = due;
        }
        new_message(f, lane, created);
      }
      // The reaction point spaces the packets of what it throttles (IB CC: a QP, or an SL
      // with SL-based control), however many messages or flows share it.
      const uint64_t paced = reaction_->paced_until(lane.qp, f.sl);
      if (paced > now) {
        next = std::min(next, paced);
        continue;
      }
      const uint32_t payload =
          again ? again->payload : static_cast<uint32_t>(std::min<uint64_t>(lane.message_left, cfg_.mtu));
      const uint32_t wire = ctx_.wire_bytes(payload);
      const uint32_t credits = NodeContext::credits_of(wire);
      if (!ignore_credits && o.vls[vl].credits < credits) {
        if (data_wait_[vl].wait_credits == 0) data_wait_[vl].wait_credits = credits;
        break;  // a credit return wakes us
      }
      data_wait_[vl] = {};
      rr_ = static_cast<uint32_t>(idx + 1 == n ? 0 : idx + 1);
      f.lane_rr = static_cast<unsigned>(li + 1 == nl ? 0 : li + 1);
      send_data(f, lane, flows[idx], vl, payload, wire, again);
      return;
    }
  }
  if (next != UINT64_MAX) wake(next);
}

void HcaSender::new_message(Flow& f, Flow::Lane& lane, uint64_t created) {
  lane.message_left = f.spec.message_bytes;
  lane.create_cycle = created;
  if (f.rate_cycles_per_byte > 0) {
    f.next_message_cycle += static_cast<double>(f.spec.message_bytes) * f.rate_cycles_per_byte;
  }
  if (f.spec.pingpong) f.pp_waiting = true;
  if (f.dst < 0) {
    if (f.spec.dst_order == DstOrder::kSequence) {
      lane.dlid = f.uniform_lids[f.next_dst];
      f.next_dst = (f.next_dst + 1) % f.uniform_lids.size();
    } else {
      std::uniform_real_distribution<double> u01(0, 1);
      if (!f.hot_lids.empty() && u01(rng_) < f.spec.hot_share) {
        lane.dlid = f.hot_lids[rng_() % f.hot_lids.size()];
      } else {
        lane.dlid = f.uniform_lids[rng_() % f.uniform_lids.size()];
      }
    }
  }
  switch (f.spec.qp_policy) {
    case QpPolicy::kPerFlow: lane.qp = f.spec.qp; break;
    case QpPolicy::kPerDestination: lane.qp = f.spec.qp + lane.dlid; break;
    case QpPolicy::kPerSl: lane.qp = f.spec.sl; break;
  }
}

void HcaSender::send_reply(Reply& r, unsigned vl, uint32_t payload, uint32_t wire) {
  const uint64_t now = ctx_.now();
  Flow& f = ctx_.flows()[r.flow];
  tlm_generic_payload* pkt = new_packet(Opcode::kData, r.dlid, f.spec.sl, vl, f.spec.qp, payload, wire, static_cast<int32_t>(r.flow));
  IbExtension& e = ib(pkt);
  e.create_cycle = r.ready;
  e.ping_cycle = r.ping_cycle;
  e.reply = true;
  r.left -= payload;
  e.last = r.left == 0;
  ++ctx_.injected;
  // The answer is paced by the reaction point for the flow's QP, like any data it sends.
  const ReactionPoint::Gap gap = reaction_->gap(now, e.qp, f.spec.sl);
  const uint64_t end = transmit(ctx_, node_, 1, pkt, 0);
  reaction_->sent(now, e.qp, f.spec.sl, wire, end, gap, static_cast<int>(r.flow), nullptr);
  if (e.last) {
    replies_.pop_front();
    --replies_queued_;
  }
  sent(now, end, wire);
}

void HcaSender::send_data(Flow& f, Flow::Lane& lane, unsigned flow_index, unsigned vl, uint32_t payload, uint32_t wire,
                    const GbnTransport::Sent* again) {
  const uint64_t now = ctx_.now();
  tlm_generic_payload* pkt = new_packet(Opcode::kData, again ? again->dlid : lane.dlid, f.sl, vl, lane.qp, payload, wire,
                                         static_cast<int32_t>(flow_index));
  IbExtension& e = ib(pkt);
  if (gbn_) {
    gbn_->sending(f, lane, flow_index, e, again, now);
  } else {
    e.psn = f.psn++;
    e.create_cycle = lane.create_cycle;
    lane.message_left -= payload;
    e.last = lane.message_left == 0;
  }
  ++ctx_.injected;
  f.stats.injected_packets++;
  f.stats.injected_bytes += payload;
  const ReactionPoint::Gap gap = reaction_->gap(now, lane.qp, f.sl);
  Probe* w = ctx_.probe;
  if (w) {
    w->flow_packet(static_cast<int>(flow_index), f.stats.injected_packets);
    w->flow_ird(static_cast<int>(flow_index), gap.ird);
    reaction_->show_gap(*w, static_cast<int>(flow_index), gap);
  }
  const Lid dlid = e.dlid;
  const uint64_t end = transmit(ctx_, node_, 1, pkt, 0);
  reaction_->sent(now, lane.qp, f.sl, wire, end, gap, static_cast<int>(flow_index), w);
  sent(now, end, wire);
  if (cfg_.rtt_probe_cycles) arm_probe(f, flow_index, dlid, lane.qp);
}

void HcaSender::arm_probe(Flow& f, unsigned flow_index, Lid dlid, uint32_t qp) {
  f.probe_dlid = dlid;
  f.probe_qp = qp;
  if (f.probe_armed) return;
  f.probe_armed = true;
  const uint64_t due = ctx_.now() + cfg_.rtt_probe_cycles;
  probes_.emplace_back(due, flow_index);
  wake(due);
}

void HcaSender::issue_probes(uint64_t now) {
  while (!probes_.empty() && probes_.front().first <= now) {
    const unsigned fi = probes_.front().second;
    probes_.pop_front();
    Flow& f = ctx_.flows()[fi];
    f.probe_armed = false;
    tlm_generic_payload* probe = new_packet(Opcode::kRttRequest, f.probe_dlid, f.sl, cfg_.sl_to_vl[f.sl], f.probe_qp, 0,
                                            cfg_.cnp_bytes, static_cast<int32_t>(fi));
    ib(probe).ping_cycle = now;
    ++f.stats.probes_sent;
    ++ctx_.injected;
    cnps_.push(probe);  // control packets go ahead of data
  }
  if (!probes_.empty()) wake(probes_.front().first);
}

void HcaSender::queue_rtt_response(const IbExtension& probe) {
  const unsigned sl = cfg_.rtt_resp_sl >= 0 ? static_cast<unsigned>(cfg_.rtt_resp_sl) : probe.sl;
  tlm_generic_payload* resp =
      new_packet(Opcode::kRttResponse, probe.slid, sl, cfg_.sl_to_vl[sl], probe.qp, 0, cfg_.cnp_bytes, probe.flow);
  ib(resp).ping_cycle = probe.ping_cycle;
  ++ctx_.injected;
  cnps_.push(resp);
  try_send();
}

void HcaSender::queue_transport_ack(const IbExtension& data, uint32_t psn, bool nack) {
  tlm_generic_payload* ack =
      new_packet(Opcode::kTransportAck, data.slid, data.sl, data.vl, data.qp, 0, cfg_.ack_bytes, data.flow);
  IbExtension& a = ib(ack);
  a.psn = psn;
  a.nack = nack;
  ++ctx_.injected;
  cnps_.push(ack);  // control packets go ahead of data
  try_send();
}

void HcaSender::queue_cnp(const Cnp& to) {
  const bool in_ack = reaction_->becn_in_ack();
  tlm_generic_payload* cnp = new_packet(in_ack ? Opcode::kAck : Opcode::kCnp, to.dlid, to.sl, to.vl, to.qp, 0,
                                        in_ack ? cfg_.ack_bytes : cfg_.cnp_bytes, to.flow);
  IbExtension& c = ib(cnp);
  c.becn = true;
  c.cnp_interval = to.interval_cycles;
  ++ctx_.injected;
  ++ctx_.cnps;
  cnps_.push(cnp);
}

void HcaSender::sent(uint64_t now, uint64_t end, uint32_t wire) {
  host_ready_ = now + host_memo_.at_rate(wire, host_cycles_per_byte_) + jitter();
  ctx_.schedule(end, EventKind::kTxDone, node_.index(), 1);
}

void HcaSender::queue_reply(const HcaSink::PingIn& ping) {
  Reply r;
  r.flow = ping.flow;
  r.dlid = ping.dlid;
  r.left = ping.bytes;
  r.ready = ping.ready;
  r.ping_cycle = ping.ping_cycle;
  replies_.push_back(r);
  ++replies_queued_;
  wake(ping.ready);
}

}  // namespace ibcc::net
