// cc.reaction: dcqcn | dcqcn_plus. DCQCN's reaction point (a rate limiter per QP: each
// packet's successor starts once it has taken its time at the QP's rate) and notification
// point (at most one CNP per flow per interval, issued when due) at an HCA: the cores of
// cc/dcqcn_rp.h and cc/dcqcn_np.h through DcqcnPort (dcqcn_port.h).
#pragma once

#include <memory>

#include "net/fabric/dcqcn_port.h"
#include "net/fabric/reaction_point.h"

namespace ibcc::net {

class DcqcnReaction final : public ReactionPoint {
 public:
  // cnp_sl >= 0: every CNP travels on that SL and its VL (cc.dcqcn.cnp_sl), not its flow's.
  // `probes`: the RP's RTT probes (cc.dcqcn.rtt_probe_interval, rtt_resp_sl).
  DcqcnReaction(const cc::DcqcnRpParams& rp, const cc::DcqcnNpParams& np, int cnp_sl = -1, unsigned cnp_vl = 0,
                RttProbes probes = {})
      : port_(rp, np), cnp_sl_(cnp_sl), cnp_vl_(cnp_vl), probes_(probes) {}
  // From the scenario's cc.dcqcn (the variant from cc.reaction), the HCA's line rate the
  // slower of its link and its host interface. ScenarioError if cc.dcqcn.min_rate is not
  // below that line rate.
  static std::unique_ptr<ReactionPoint> make(const ReactionSetup& setup);
  static cc::DcqcnRpParams rp_params(const NodeContext& ctx, double link_cycles_per_byte, double host_cycles_per_byte);
  static cc::DcqcnNpParams np_params(const NodeContext& ctx);

  uint64_t paced_until(uint32_t qp, uint32_t /*sl*/) const override { return port_.paced_until(qp); }
  void sent(uint64_t now, uint32_t qp, uint32_t sl, uint32_t wire, uint64_t end, const Gap& gap, int flow,
            Probe* probe) override;
  void becn(uint64_t now, const IbExtension& e, uint64_t becns, Probe* probe) override;
  void fecn(uint64_t now, const IbExtension& data, NotificationOut& /*out*/) override {
    port_.marked(now, {data.slid, data.qp, data.sl, data.vl, data.flow});
  }
  void issue_due(uint64_t now, NotificationOut& out) override;
  bool needs_credit_events() const override { return true; }
  RttProbes rtt_probes() const override { return probes_; }
  std::optional<uint64_t> rate_kbps(uint64_t now, uint32_t qp) override { return port_.rate_kbps(now, qp); }

  DcqcnPort& port() { return port_; }

 private:
  DcqcnPort port_;
  int cnp_sl_;
  unsigned cnp_vl_;
  RttProbes probes_;
};

}  // namespace ibcc::net
