// The HCA: its events handed to its units, and what arrives.
#include "net/fabric/hca.h"

namespace ibcc::net {

void Hca::wired() {
  const double link_cpb = out[1].cycles_per_byte;
  const double ps = static_cast<double>(ctx_.ps_per_cycle());
  const HcaConfig& cfg = sender_.config();
  sender_.set_host_cycles_per_byte(cfg.inject_bps > 0 ? 8.0 * 1e12 / cfg.inject_bps / ps : link_cpb);
  sink_.set_cycles_per_byte(cfg.sink_bps > 0 ? 8.0 * 1e12 / cfg.sink_bps / ps : link_cpb);
}

void Hca::handle(const Event& e) {
  switch (e.kind) {
    case EventKind::kArrive: on_arrive(e.pkt); break;
    case EventKind::kTxDone: sender_.try_send(); break;
    case EventKind::kCredit:
      out[1].vls[e.vl].returning -= e.value;
      out[1].vls[e.vl].credits += e.value;
      sender_.try_send();
      break;
    case EventKind::kHcaWake: sender_.woken(e.cycle); break;
    case EventKind::kSinkDone: {
      HcaSink::PingIn ping;
      if (sink_.drained(&ping)) sender_.queue_reply(ping);  // a ping drained whole is answered
      sink_.start();
      break;
    }
    case EventKind::kPfc:
      out[1].vls[e.vl].credits = e.value ? 0u : OutPort::kPfcOpen;
      if (e.value) ++out[1].pauses;
      else sender_.try_send();
      break;
    default: break;
  }
}

void Hca::on_arrive(tlm_generic_payload* pkt) {
  if (!accept(ctx_, *this, "HCA", 1, pkt)) return;  // dropped (lossy)
  IbExtension& e = ib(pkt);
  const uint64_t now = ctx_.now();
  std::vector<Flow>& all = ctx_.flows();
  if (e.opcode == Opcode::kRttRequest) {
    sender_.queue_rtt_response(e);
  } else if (e.opcode == Opcode::kRttResponse) {
    if (e.flow >= 0 && ctx_.in_stats_window()) all[e.flow].stats.probe_rtt.add(now - e.ping_cycle);
  } else if (e.opcode == Opcode::kTransportAck) {
    if (gbn_ && e.flow >= 0) {
      gbn_->acknowledged(all[e.flow], e);
      sender_.try_send();
    }
  } else if (e.opcode == Opcode::kData) {
    uint32_t psn = 0;
    bool nack = false;
    if (gbn_ && !e.reply && gbn_->receive(e, &psn, &nack)) sender_.queue_transport_ack(e, psn, nack);
    if (e.fecn) ctx_.sink_stats(static_cast<unsigned>(e.flow)).fecn_marked++;
    if (config().count_out_of_order && e.flow >= 0 && !e.reply) note_order(static_cast<unsigned>(e.flow), e.psn);
    // FECN is answered unless the packet also carries BECN, is multicast, an ACK or a CNP:
    // the notification point queues its CNP now or when due (issued as the HCA sends).
    if (e.fecn && !e.becn && !e.multicast) {
      reaction_->fecn(now, e, sender_);
      sender_.try_send();
    }
  } else if (e.becn) {
    const uint64_t becns = e.flow >= 0 ? ++all[e.flow].stats.becn_received : 0;
    reaction_->becn(now, e, becns, ctx_.probe);
  }
  sink_.push(pkt);
}

void Hca::note_order(unsigned flow, uint32_t psn) {
  const auto [it, first] = highest_psn_.try_emplace(flow, psn);
  if (first) return;
  if (psn < it->second) {
    ++ctx_.sink_stats(flow).out_of_order;
  } else {
    it->second = psn;
  }
}

}  // namespace ibcc::net
