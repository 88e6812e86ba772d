#include "net/fabric/gbn_transport.h"

#include <algorithm>

namespace ibcc::net {

GbnTransport::Turn GbnTransport::turn(Flow& f, unsigned flow_index, uint32_t qp, uint64_t now, bool stopped,
                                      const Sent** again, uint64_t* next) {
  Tx& g = tx(flow_index, qp);
  *again = nullptr;
  if (g.una != g.nxt && now >= g.deadline) {  // the oldest is not acknowledged in time: go back
    g.resend = g.una;
    g.deadline = now + timeout_;
    ++f.stats.timeouts;
    chain_event(f, g, FlowStats::kTimeout);
  }
  if (g.una != g.nxt) *next = std::min(*next, g.deadline);
  if (g.resend != g.nxt) {
    *again = &g.unacked[g.resend - g.una];
    return Turn::kAgain;
  }
  return stopped || g.nxt - g.una >= window_ ? Turn::kHold : Turn::kNew;
}

void GbnTransport::sending(Flow& f, Flow::Lane& lane, unsigned flow_index, IbExtension& e, const Sent* again,
                           uint64_t now) {
  Tx& g = tx(flow_index, lane.qp);
  if (again) {
    g.unacked[g.resend - g.una].sent_cycle = now;
    if (g.resend == g.una) g.deadline = now + timeout_;
    e.psn = g.resend++;
    e.create_cycle = again->create_cycle;
    e.last = again->last;
    f.stats.retransmitted_packets++;
  } else {
    e.psn = g.nxt++;
    g.resend = g.nxt;
    e.create_cycle = lane.create_cycle;
    lane.message_left -= e.payload_bytes;
    e.last = lane.message_left == 0;
    g.unacked.push_back({e.payload_bytes, e.last, lane.dlid, lane.create_cycle, now});
  }
  if (g.deadline == UINT64_MAX) g.deadline = now + timeout_;  // the first unacknowledged
}

void GbnTransport::acknowledged(Flow& f, const IbExtension& ack) {
  Tx& g = tx(static_cast<unsigned>(ack.flow), ack.qp);
  const uint32_t una = g.una;
  while (g.una < ack.psn && g.una < g.nxt) {
    g.unacked.pop_front();
    ++g.una;
  }
  g.resend = std::max(g.resend, g.una);
  if (ack.nack) {
    if (g.resend > ack.psn) {  // (else it is already going back from there: the NACK is stale)
      g.resend = ack.psn;
      ++f.stats.nacks;
      chain_event(f, g, FlowStats::kNack);
    }
  } else if (g.una != una) {
    ++f.stats.packs;
    chain_event(f, g, FlowStats::kPack);
  }
  // The timer runs for the oldest packet still unacknowledged, from when it was last sent.
  g.deadline = g.unacked.empty() ? UINT64_MAX : g.unacked.front().sent_cycle + timeout_;
}

bool GbnTransport::receive(IbExtension& e, uint32_t* psn, bool* nack) {
  Rx& rx = rx_[uint64_t{e.slid} << 32 | e.qp];
  *nack = false;
  if (e.psn == rx.expected) {
    ++rx.expected;
    rx.nack_sent = false;
    *psn = rx.expected;
    return true;
  }
  e.discard = true;  // out of order: the sink frees it without delivering it
  *psn = rx.expected;
  if (e.psn < rx.expected) return true;  // a duplicate: acknowledge again
  if (!rx.nack_sent && nack_) {
    rx.nack_sent = true;  // the first packet past a gap: go back (once per gap)
    *nack = true;
    return true;
  }
  return false;
}

}  // namespace ibcc::net
