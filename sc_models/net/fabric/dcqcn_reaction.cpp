#include "net/fabric/dcqcn_reaction.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "net/fabric/node_context.h"
#include "net/observe/probe.h"

namespace ibcc::net {

cc::DcqcnRpParams DcqcnReaction::rp_params(const NodeContext& ctx, double link_cpb, double host_cpb) {
  const Scenario& s = ctx.scenario();
  const DcqcnSpec& q = s.cc.dcqcn;
  auto kbps = [](double bps) { return static_cast<uint64_t>(std::llround(bps / 1000.0)); };
  cc::DcqcnRpParams p;
  p.variant = s.cc.reaction == Reaction::kDcqcnPlus ? cc::DcqcnVariant::kPlus : cc::DcqcnVariant::kDcqcn;
  p.core_clock_hz = s.fabric.core_clock_hz;
  p.line_rate_kbps = kbps(8.0 * static_cast<double>(s.fabric.core_clock_hz) / std::max(link_cpb, host_cpb));
  if (q.max_rate_bps > 0) p.line_rate_kbps = std::min(p.line_rate_kbps, std::max<uint64_t>(1, kbps(q.max_rate_bps)));
  if (kbps(q.min_rate_bps) >= p.line_rate_kbps) {
    // No cut could then lower the rate: DCQCN would be switched off without a word.
    throw ScenarioError(fmt::format("{}: cc.dcqcn.min_rate: {:g} Gb/s is at or above an HCA's line rate or cc.dcqcn.max_rate ({:g} Gb/s): "
                                    "DCQCN's rate cuts could never take effect (expected well below it, e.g. 10Mb/s)",
                                    s.file, q.min_rate_bps / 1e9, static_cast<double>(p.line_rate_kbps) / 1e6));
  }
  p.min_rate_kbps = std::max<uint64_t>(1, kbps(q.min_rate_bps));
  p.g_shift = q.g_shift;
  p.alpha_init_q20 = static_cast<uint32_t>(std::llround(q.alpha_init * (1u << 20)));
  p.alpha_timer_cycles = std::max<uint64_t>(1, ctx.cycles(q.alpha_timer_ps));
  p.rate_timer_cycles = std::max<uint64_t>(1, ctx.cycles(q.rate_timer_ps));
  p.byte_counter_bytes = q.byte_counter_bytes;
  p.fast_recovery_steps = q.fast_recovery_steps;
  p.ai_rate_kbps = kbps(q.ai_rate_bps);
  p.hai_rate_kbps = kbps(q.hai_rate_bps);
  p.reduce_period_cycles = ctx.cycles(q.reduce_period_ps);
  p.lambda_q8 = static_cast<uint32_t>(std::max(1LL, std::llround(q.lambda * 256.0)));
  p.mtu_bytes = ctx.wire_bytes(s.fabric.mtu);
  p.rl_kbps = q.increase_bound_bps > 0 ? kbps(q.increase_bound_bps) : 0;
  p.gd_log2 = q.gd_log2;
  p.min_dec_q16 = static_cast<uint32_t>(std::llround(q.min_dec_factor * 65536.0));
  p.first_cnp_rate_kbps = q.first_cnp_rate_bps > 0 ? std::max<uint64_t>(1, kbps(q.first_cnp_rate_bps)) : 0;
  return p;
}

cc::DcqcnNpParams DcqcnReaction::np_params(const NodeContext& ctx) {
  const Scenario& s = ctx.scenario();
  const DcqcnSpec& q = s.cc.dcqcn;
  cc::DcqcnNpParams p;
  p.variant = s.cc.reaction == Reaction::kDcqcnPlus ? cc::DcqcnVariant::kPlus : cc::DcqcnVariant::kDcqcn;
  p.min_interval_cycles = ctx.cycles(q.cnp_interval_ps);
  p.gen_cycles = ctx.cycles(q.cnp_generation_ps);
  p.active_window_cycles = std::max<uint64_t>(1, ctx.cycles(q.active_window_ps));
  return p;
}

std::unique_ptr<ReactionPoint> DcqcnReaction::make(const ReactionSetup& setup) {
  const Scenario& s = setup.ctx.scenario();
  const int sl = s.cc.dcqcn.cnp_sl;
  const unsigned vl = sl >= 0 ? s.fabric.vl_of_sl(static_cast<size_t>(sl)) : 0;
  RttProbes probes;
  if (s.cc.dcqcn.rtt_probe_ps) probes.interval_cycles = std::max<uint64_t>(1, setup.ctx.cycles(s.cc.dcqcn.rtt_probe_ps));
  probes.resp_sl = s.cc.dcqcn.rtt_resp_sl;
  return std::make_unique<DcqcnReaction>(rp_params(setup.ctx, setup.link_cycles_per_byte, setup.host_cycles_per_byte),
                                         np_params(setup.ctx), sl, vl, probes);
}

void DcqcnReaction::sent(uint64_t now, uint32_t qp, uint32_t /*sl*/, uint32_t wire, uint64_t /*end*/,
                         const Gap& /*gap*/, int flow, Probe* probe) {
  port_.sent(now, qp, wire);
  if (probe) probe->flow_rate(flow, port_.rate_kbps(now, qp) / 1000);
}

void DcqcnReaction::becn(uint64_t now, const IbExtension& e, uint64_t becns, Probe* probe) {
  port_.cnp(now, e.qp, e.cnp_interval);
  if (probe && e.flow >= 0) {
    probe->flow_rate(e.flow, port_.rate_kbps(now, e.qp) / 1000);
    probe->flow_becn(e.flow, becns);
  }
}

void DcqcnReaction::issue_due(uint64_t now, NotificationOut& out) {
  DcqcnPort::CnpTarget to;
  uint64_t interval = 0;
  while (port_.pop_cnp(now, &to, &interval)) {
    if (cnp_sl_ >= 0) {
      to.sl = static_cast<uint8_t>(cnp_sl_);
      to.vl = static_cast<uint8_t>(cnp_vl_);
    }
    out.queue_cnp({to.slid, to.qp, to.sl, to.vl, to.flow, interval});
  }
  const uint64_t due = port_.next_cnp_due();
  if (due != UINT64_MAX) out.wake(std::max(due, now + 1));
}

}  // namespace ibcc::net
