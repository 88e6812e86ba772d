// cc.reaction: ibcc. IB CC's reaction point at an HCA: the CCTI block core (cc/ccti_block.h)
// through its lazy adapter CctiPort (cc_adapters.h) raises a flow's CCTI at each BECN, and
// each data packet's successor waits the IRD its CCTI selects from the CCT, per CCTI entry
// (a QP, or an SL). Its notification point answers every FECN at once with a CNP (or an ACK
// carrying BECN, cc.ca.becn: ack).
#pragma once

#include <memory>
#include <vector>

#include "net/fabric/cc_adapters.h"
#include "net/fabric/reaction_point.h"

namespace ibcc::net {

class CctiReaction final : public ReactionPoint {
 public:
  explicit CctiReaction(std::unique_ptr<CctiPort> block, bool becn_in_ack = false);
  // From the scenario's cc.ca, with the HCA's MTU transmit time as the IRD formula's T_pkt.
  static std::unique_ptr<ReactionPoint> make(const ReactionSetup& setup);

  uint64_t paced_until(uint32_t qp, uint32_t sl) const override {
    return ird_until_[block_->core().flow_index(qp, sl)];
  }
  Gap gap(uint64_t now, uint32_t qp, uint32_t sl) override {
    const CctiPort::Lookup l = block_->lookup(now, qp, sl);
    return {l.ird, l.ccti};
  }
  void show_gap(Probe& probe, int flow, const Gap& g) const override;
  void sent(uint64_t /*now*/, uint32_t qp, uint32_t sl, uint32_t /*wire*/, uint64_t end, const Gap& gap, int /*flow*/,
            Probe* /*probe*/) override {
    ird_until_[block_->core().flow_index(qp, sl)] = end + gap.ird;
  }
  void becn(uint64_t now, const IbExtension& e, uint64_t becns, Probe* probe) override;
  void fecn(uint64_t /*now*/, const IbExtension& data, NotificationOut& out) override {
    out.queue_cnp({data.slid, data.qp, data.sl, data.vl, data.flow, 0});
  }
  bool becn_in_ack() const override { return becn_in_ack_; }
  std::optional<uint32_t> ccti(uint64_t cycle, uint32_t qp, uint32_t sl) override {
    return block_->observe_ccti(cycle, qp, sl);
  }

  CctiPort& block() { return *block_; }

 private:
  std::unique_ptr<CctiPort> block_;
  std::vector<uint64_t> ird_until_;  // per CCTI entry: its next packet may not leave before
  bool becn_in_ack_;
};

}  // namespace ibcc::net
