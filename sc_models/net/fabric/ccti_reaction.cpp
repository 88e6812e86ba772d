#include "net/fabric/ccti_reaction.h"

#include <algorithm>
#include <cmath>

#include "net/fabric/node_context.h"
#include "net/observe/probe.h"

namespace ibcc::net {

CctiReaction::CctiReaction(std::unique_ptr<CctiPort> block, bool becn_in_ack)
    : block_(std::move(block)), becn_in_ack_(becn_in_ack) {
  const cc::CctiBlock& core = block_->core();
  ird_until_.assign(core.sl_based() ? cc::CctiBlock::kNumSls : core.params().num_qps, 0);
}

std::unique_ptr<ReactionPoint> CctiReaction::make(const ReactionSetup& setup) {
  const NodeContext& ctx = setup.ctx;
  const Scenario& s = ctx.scenario();
  cc::CctiBlockParams cp;
  cp.num_qps = s.cc.ca.num_qps;
  cp.cct_entries = 128;
  cp.tick_cycles = setup.tick_cycles;
  // T_pkt of the Omni-Path IRD formula: an MTU packet on this HCA's link (or host
  // interface, if slower).
  const double cpb = std::max(setup.link_cycles_per_byte, setup.host_cycles_per_byte);
  const uint32_t mtu_tx = static_cast<uint32_t>(std::ceil(ctx.wire_bytes(s.fabric.mtu) * cpb));
  std::unique_ptr<RtlCctiEngine> engine = setup.rtl ? setup.rtl(cp) : nullptr;
  return std::make_unique<CctiReaction>(std::make_unique<CctiPort>(cp, s.cc.ca, mtu_tx, std::move(engine)),
                                        s.cc.ca.becn_in_ack);
}

void CctiReaction::show_gap(Probe& probe, int flow, const Gap& g) const { probe.flow_ccti(flow, g.ccti); }

void CctiReaction::becn(uint64_t now, const IbExtension& e, uint64_t becns, Probe* probe) {
  block_->becn(now, e.qp, e.sl, e.slid, e.dlid);
  if (probe && e.flow >= 0) {
    probe->flow_becn(e.flow, becns);
    probe->flow_ccti(e.flow, block_->observe_ccti(now, e.qp, e.sl));
  }
}

}  // namespace ibcc::net
