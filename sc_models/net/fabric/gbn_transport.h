// Go-Back-N (fabric.hca.transport: gbn | simple_gbn), both ends at one HCA: the sender's
// side per (flow, QP) — a window of unacknowledged packets, a retransmission deadline, going
// back on a timeout or a NACK — and the receiver's per (source LID, QP) — the next PSN it
// takes, a NACK once per gap (gbn only). The seed chapter's 3-state chain of the sender's
// events is counted in the flow's statistics. Hca composes it; it makes no packets itself.
#pragma once

#include <cstdint>
#include <deque>
#include <unordered_map>

#include "net/fabric/node_context.h"

namespace ibcc::net {

class GbnTransport {
 public:
  // `nack`: the receiver NACKs the first packet past a gap (gbn); else timeouts only.
  GbnTransport(uint32_t window, uint64_t timeout_cycles, bool nack)
      : window_(window), timeout_(timeout_cycles), nack_(nack) {}

  // A packet sent and not yet acknowledged: what a retransmission repeats.
  struct Sent {
    uint32_t payload = 0;
    bool last = false;
    Lid dlid = 0;
    uint64_t create_cycle = 0;
    uint64_t sent_cycle = 0;  // when it was last sent: its retransmission timer started then
  };

  // -- The sender. What (flow, QP) may send at `now`: kAgain (the packet *again, going
  // back), kNew (a new packet, the window has room) or kHold (stopped with nothing to send
  // again, or the window full: an ACK or the timeout wakes it). A timeout that expired goes
  // back first. `*next` is lowered to the retransmission deadline while packets are out.
  enum class Turn { kNew, kAgain, kHold };
  Turn turn(Flow& f, unsigned flow_index, uint32_t qp, uint64_t now, bool stopped, const Sent** again, uint64_t* next);
  // The packet `e` of lane `lane` leaves at `now`: new (`again` null: its payload taken
  // from the lane's message) or the retransmission of `again`. Sets its PSN, creation cycle
  // and last flag; starts the timer if none runs.
  void sending(Flow& f, Flow::Lane& lane, unsigned flow_index, IbExtension& e, const Sent* again, uint64_t now);
  // An ACK or NACK `ack` arrived: the window moves up to its PSN; a NACK goes back there.
  void acknowledged(Flow& f, const IbExtension& ack);

  // -- The receiver. Data packet `e` arrived: true if it is answered with an ACK (or NACK,
  // *nack) for PSN *psn. Out of order, it is marked `discard` (the sink frees it undelivered).
  bool receive(IbExtension& e, uint32_t* psn, bool* nack);

 private:
  struct Tx {
    std::deque<Sent> unacked;  // oldest first: PSNs una..nxt-1
    uint32_t una = 0, nxt = 0, resend = 0;  // resend < nxt while going back
    uint64_t deadline = UINT64_MAX;  // the oldest unacknowledged packet's last send + the timeout
    uint8_t last_event = FlowStats::kNoEvent;  // its last FlowStats::GbnEvent
  };
  struct Rx {
    uint32_t expected = 0;
    bool nack_sent = false;  // a NACK for the current gap is out
  };
  Tx& tx(unsigned flow_index, uint32_t qp) { return tx_[uint64_t{flow_index} << 32 | qp]; }
  // Pack, Nack or timeout at the sender `g` of flow `f`: counted in f's chain of events.
  static void chain_event(Flow& f, Tx& g, FlowStats::GbnEvent event) {
    if (g.last_event != FlowStats::kNoEvent) ++f.stats.chain[g.last_event][event];
    g.last_event = event;
  }

  uint32_t window_;
  uint64_t timeout_;
  bool nack_;
  std::unordered_map<uint64_t, Tx> tx_;  // [(flow, QP)]
  std::unordered_map<uint64_t, Rx> rx_;  // [(source LID, QP)]
};

}  // namespace ibcc::net
