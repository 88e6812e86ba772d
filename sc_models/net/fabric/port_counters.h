// A switch port's performance counters, as the port's Performance Management Agent keeps
// them and `perfquery` reads them (IBA PortCounters and PortCountersExtended):
//   PortXmitData, PortRcvData  octets of the packets sent, received (headers and CRCs
//                              included, link packets not), counted as the hardware
//                              reports them: divided by 4
//   PortXmitPkts, PortRcvPkts  packets sent, received
//   PortXmitWait               ticks (here: core cycles) during which the port had a packet
//                              ready to send (its head through the switch's latency) and
//                              sent nothing, for want of credits or of the crossbar
// The data and packet counters are kept per VL (their sum over the VLs is the port's
// counter); PortXmitWait is the port's. The congestion time per VL (PortVLXmitTimeCong) is
// the marking point's (MarkingPoint::Sample::congested_edges).
//
// The wait is learnt from the output's arbitration: every cycle at which the port may start
// a packet and has one ready is an arbitration (a head's eligibility, returning credits, the
// end of a transmission each call one), so a wait begins at an arbitration that found a
// ready head and could not start it, and ends when a packet starts.
#pragma once

#include <cstdint>
#include <vector>

namespace ibcc::net {

class PortCounters {
 public:
  struct Vl {
    uint64_t xmit_bytes = 0, rcv_bytes = 0;  // octets (the report divides by 4)
    uint64_t xmit_pkts = 0, rcv_pkts = 0;
  };
  // What the counters read at a sample: the increments since the previous one.
  struct Interval {
    uint64_t xmit_data = 0, rcv_data = 0;  // octets / 4, as PortXmitData and PortRcvData count
    uint64_t xmit_pkts = 0, rcv_pkts = 0;
  };

  PortCounters() = default;
  explicit PortCounters(unsigned vls) : vl_(vls), last_(vls) {}

  void received(unsigned vl, uint32_t wire_bytes) {
    vl_[vl].rcv_bytes += wire_bytes;
    ++vl_[vl].rcv_pkts;
  }
  // A packet starts on the link at `now`: a wait in progress ends.
  void sent(unsigned vl, uint32_t wire_bytes, uint64_t now) {
    vl_[vl].xmit_bytes += wire_bytes;
    ++vl_[vl].xmit_pkts;
    stop_waiting(now);
  }
  // An arbitration at `now` started nothing: `ready` says whether some head could have gone
  // but for credits or the crossbar (a wait begins, or goes on), else nothing is ready.
  void arbitration_failed(bool ready, uint64_t now) {
    if (!ready) {
      stop_waiting(now);
    } else if (wait_since_ == kNotWaiting) {
      wait_since_ = now;
    }
  }

  // PortXmitWait up to `now` (the wait in progress counted to `now`).
  uint64_t xmit_wait(uint64_t now) const {
    return wait_ + (wait_since_ != kNotWaiting && now > wait_since_ ? now - wait_since_ : 0);
  }
  const Vl& vl(unsigned v) const { return vl_[v]; }
  unsigned vls() const { return static_cast<unsigned>(vl_.size()); }

  // VL `v`'s increments since the last call for it (the data counters as whole 4-octet
  // words of the running totals, so that the increments add up to the totals' words).
  Interval take_interval(unsigned v) {
    const Vl& now = vl_[v];
    Vl& was = last_[v];
    const Interval d{now.xmit_bytes / 4 - was.xmit_bytes / 4, now.rcv_bytes / 4 - was.rcv_bytes / 4,
                     now.xmit_pkts - was.xmit_pkts, now.rcv_pkts - was.rcv_pkts};
    was = now;
    return d;
  }
  // PortXmitWait's increment since the last call.
  uint64_t take_wait_interval(uint64_t now) {
    const uint64_t total = xmit_wait(now);
    const uint64_t d = total - last_wait_;
    last_wait_ = total;
    return d;
  }

 private:
  static constexpr uint64_t kNotWaiting = UINT64_MAX;
  void stop_waiting(uint64_t now) {
    if (wait_since_ == kNotWaiting) return;
    if (now > wait_since_) wait_ += now - wait_since_;
    wait_since_ = kNotWaiting;
  }

  std::vector<Vl> vl_, last_;
  uint64_t wait_ = 0;
  uint64_t wait_since_ = kNotWaiting;
  uint64_t last_wait_ = 0;
};

}  // namespace ibcc::net
