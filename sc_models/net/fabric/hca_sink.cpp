// An HCA's sink (hca_sink.h).
#include "net/fabric/hca_sink.h"

#include <algorithm>

#include "net/fabric/hca.h"
#include "net/fabric/link.h"

namespace ibcc::net {

void HcaSink::start() {
  if (fifo_.empty()) return;
  IbExtension& e = ib(fifo_.head);
  uint64_t begin = ctx_.now();
  if (cfg_.hiccup_period) {
    const uint64_t phase = begin % cfg_.hiccup_period;
    if (phase < cfg_.hiccup_duration) begin += cfg_.hiccup_duration - phase;
  }
  const uint64_t drain = memo_.at_rate(e.wire_bytes, cycles_per_byte_);
  const uint64_t end = std::max(begin + drain, e.tail_cycle);
  busy_ = true;
  // (The packet rides along only so that the calendar fetches it ahead: drained() pops it.)
  ctx_.schedule(end, EventKind::kSinkDone, node_.index(), 1, 0, 0, fifo_.head);
}

bool HcaSink::drained(PingIn* ping) {
  busy_ = false;
  tlm::tlm_generic_payload* pkt = fifo_.pop();
  IbExtension& e = ib(pkt);
  const bool leak = leak_one_credit_;
  leak_one_credit_ = false;
  release_credits(ctx_, node_, 1, e.vl, e.credits, leak);
  ctx_.progress();
  bool ping_in = false;
  if (lose_one_packet_) {
    lose_one_packet_ = false;  // the fault: the packet vanishes without being counted
  } else if (e.discard) {
    // Go-Back-N: taken out of order, so not delivered; the sender sends it again.
    ++ctx_.discarded;
    if (e.flow >= 0) {
      FlowStats& st = ctx_.sink_stats(static_cast<unsigned>(e.flow));
      ++st.discarded_packets;
      st.progress_cycle = ctx_.now();
    }
    pkt->release();
  } else {
    if (e.opcode == Opcode::kData && e.flow >= 0) {
      Flow& f = ctx_.flows()[e.flow];
      FlowStats& st = ctx_.sink_stats(static_cast<unsigned>(e.flow));
      const uint64_t now = ctx_.now();
      // A ping-pong answer is counted apart: the flow's delivered bytes are what its source sent.
      (e.reply ? st.answer_bytes : st.delivered_bytes) += e.payload_bytes;
      (e.reply ? st.answer_packets : st.delivered_packets)++;
      st.progress_cycle = now;
      st.interval_bytes += e.payload_bytes;
      const bool record = ctx_.in_stats_window();
      if (record) st.packet_latency.add(now - e.create_cycle);
      if (e.last) {
        const uint64_t done = now + cfg_.completion_cycles;
        if (record) st.message_latency.add(done - e.create_cycle);
        if (f.spec.pingpong && !e.reply) {
          // The ping is in: the HCA answers it with a message of the same size.
          ping->flow = static_cast<unsigned>(e.flow);
          ping->dlid = e.slid;
          ping->bytes = f.spec.message_bytes;
          ping->ready = done;
          ping->ping_cycle = e.create_cycle;
          ping_in = true;
        } else if (f.spec.pingpong) {
          if (record) st.pingpong_rtt.add(done - e.ping_cycle);
          f.pp_waiting = false;
          f.pp_next = done + ctx_.cycles(f.spec.pingpong_gap_ps);
          static_cast<Hca&>(ctx_.node(f.src)).wake(f.pp_next);
        }
      }
    }
    ++ctx_.delivered;
    pkt->release();
  }
  return ping_in;
}

}  // namespace ibcc::net
