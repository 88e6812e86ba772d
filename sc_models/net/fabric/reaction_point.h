// An HCA's reaction and notification points (cc.reaction): how its sources pace their data
// after congestion notices, and how it answers marked data it receives. Each regime is a
// class behind this interface (CctiReaction, DcqcnReaction; NoReaction with CC off), made by
// name from the registry below: a new regime is a new class and a line in the registry, and
// Hca has no branch on the regime.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "cc/ccti_block.h"
#include "net/fabric/packet.h"
#include "net/fabric/regime_class.h"
#include "net/fabric/rtl_engine.h"

namespace ibcc::net {

class NodeContext;
class Probe;

// What a notification point sends through: its HCA's control queue (CNPs go ahead of data)
// and its wake-up.
class NotificationOut {
 public:
  struct Cnp {
    Lid dlid = 0;  // the marked packet's source
    uint32_t qp = 0;
    uint8_t sl = 0, vl = 0;
    int32_t flow = -1;
    uint64_t interval_cycles = 0;  // DCQCN+: the NP's CNP interval, carried to the RP
  };
  virtual void queue_cnp(const Cnp& c) = 0;
  virtual void wake(uint64_t cycle) = 0;

 protected:
  ~NotificationOut() = default;
};

class ReactionPoint {
 public:
  virtual ~ReactionPoint() = default;

  // -- The source: pacing of (QP, SL)'s data.
  // The earliest cycle (QP, SL)'s next packet may start (0: no limit).
  virtual uint64_t paced_until(uint32_t qp, uint32_t sl) const = 0;
  // A data packet of (QP, SL) is about to leave at `now`: the gap its successor keeps after
  // its end (IB CC's IRD, cycles) and the CCTI that chose it.
  struct Gap {
    uint32_t ird = 0;
    uint32_t ccti = 0;
  };
  virtual Gap gap(uint64_t now, uint32_t qp, uint32_t sl) { (void)now, (void)qp, (void)sl; return {}; }
  // ... shown to an observer before it is sent (waves), for flow `flow`.
  virtual void show_gap(Probe& probe, int flow, const Gap& g) const { (void)probe, (void)flow, (void)g; }
  // It left at `now` with `wire` bytes, its transmission ending at `end`; `gap` is what
  // gap() answered; `probe` (null: none) sees what changed for flow `flow`.
  virtual void sent(uint64_t now, uint32_t qp, uint32_t sl, uint32_t wire, uint64_t end, const Gap& gap, int flow,
                    Probe* probe) = 0;
  // A congestion notice for (QP, SL) arrived at `now` (a CNP, or an ACK with BECN): `e`
  // is it; `becns` counts those of its flow so far (for `probe`).
  virtual void becn(uint64_t now, const IbExtension& e, uint64_t becns, Probe* probe) = 0;

  // -- The destination: a marked data packet `data` arrived at `now` (not carrying BECN,
  // not multicast). Its CNP goes out through `out` now or later (issue_due).
  virtual void fecn(uint64_t now, const IbExtension& data, NotificationOut& out) = 0;
  // Queues the CNPs due by `now` and wakes the HCA for the next (called whenever it may send).
  virtual void issue_due(uint64_t now, NotificationOut& out) { (void)now, (void)out; }
  // A CNP is an ACK carrying BECN (cc.ca.becn: ack), not a CNP.
  virtual bool becn_in_ack() const { return false; }
  // Credit returns must reach the HCA as events (they let due CNPs go): the fabric may not
  // hold them back while the port sends (OutPort::defer_credits).
  virtual bool needs_credit_events() const { return false; }
  // RTT probes: each flow sends one this many cycles after its data (0: none), and its
  // destination answers on SL resp_sl (-1: the probe's).
  struct RttProbes {
    uint64_t interval_cycles = 0;
    int resp_sl = -1;
  };
  virtual RttProbes rtt_probes() const { return {}; }

  // -- Observation (statistics): (QP, SL)'s CCTI after the edge of `cycle`, or its rate in
  // kb/s at `now`, where the regime has one.
  virtual std::optional<uint32_t> ccti(uint64_t cycle, uint32_t qp, uint32_t sl) {
    (void)cycle, (void)qp, (void)sl;
    return std::nullopt;
  }
  virtual std::optional<uint64_t> rate_kbps(uint64_t now, uint32_t qp) {
    (void)now, (void)qp;
    return std::nullopt;
  }
};

// CC off: no pacing, no notices, no answers.
class NoReaction final : public ReactionPoint {
 public:
  uint64_t paced_until(uint32_t, uint32_t) const override { return 0; }
  void sent(uint64_t, uint32_t, uint32_t, uint32_t, uint64_t, const Gap&, int, Probe*) override {}
  void becn(uint64_t, const IbExtension&, uint64_t, Probe*) override {}
  void fecn(uint64_t, const IbExtension&, NotificationOut&) override {}
};

// What the reaction point of HCA `node` is made from.
struct ReactionSetup {
  const NodeContext& ctx;
  unsigned node = 0;
  double link_cycles_per_byte = 0;  // its link's rate
  double host_cycles_per_byte = 0;  // its host interface's (fabric.hca.inject_rate; the link's if none)
  uint32_t tick_cycles = 0;         // 1.024 us in core cycles (the blocks' timebase)
  // RTL in the loop: the Verilated block that decides instead of the C++ core of this HCA
  // (null: none), for a CCTI block of these parameters.
  std::function<std::unique_ptr<RtlCctiEngine>(const cc::CctiBlockParams&)> rtl;
};

using ReactionClass = RegimeClass<ReactionPoint, ReactionSetup>;  // (the cc.reaction values: the scenario's kReactions)
// Every reaction class (regimes.cpp).
const std::vector<ReactionClass>& reaction_classes();
// The reaction point of class `name`; std::invalid_argument for a name no class has.
std::unique_ptr<ReactionPoint> make_reaction(std::string_view name, const ReactionSetup& setup);

}  // namespace ibcc::net
