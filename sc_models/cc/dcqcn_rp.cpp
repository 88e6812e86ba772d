// The DCQCN / DCQCN+ reaction point (dcqcn_rp.h).
#include "cc/dcqcn_rp.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ibcc::cc {

void DcqcnRpParams::validate() const {
  auto fail = [](const std::string& what) { throw std::invalid_argument("dcqcn_rp: " + what); };
  if (core_clock_hz == 0) fail("the core clock must be above 0 Hz");
  if (line_rate_kbps == 0) fail("the line rate must be above 0");
  if (min_rate_kbps == 0 || min_rate_kbps > line_rate_kbps) fail("the minimum rate must be in (0, line rate]");
  if (g_shift == 0 || g_shift > 16) fail("g must be 1/2 .. 1/65536 (g_shift 1..16)");
  if (alpha_init_q20 > (1u << 20)) fail("alpha's initial value must be at most 1");
  if (alpha_timer_cycles == 0) fail("the alpha timer must be above 0 cycles");
  if (variant == DcqcnVariant::kDcqcn && rate_timer_cycles == 0) fail("the rate-increase timer must be above 0 cycles");
  if (fast_recovery_steps == 0) fail("F (fast recovery steps) must be at least 1");
  if (variant == DcqcnVariant::kPlus && lambda_q8 == 0) fail("DCQCN+'s lambda must be above 0");
  if (variant == DcqcnVariant::kPlus && mtu_bytes == 0) fail("the MTU must be above 0 bytes");
  if (gd_log2 > 16) fail("the cut divisor Gd must be 1 .. 65536 (gd_log2 0..16)");
  if (min_dec_q16 > 65536) fail("the floor of a cut must be at most the rate itself (min_dec_q16 <= 65536)");
}

DcqcnRp::DcqcnRp(const DcqcnRpParams& params)
    : params_(params), rl_kbps_(params.rl_kbps ? params.rl_kbps : params.line_rate_kbps) {
  params_.validate();
  if (params_.variant == DcqcnVariant::kPlus) params_.byte_counter_bytes = 0;  // DCQCN+ has none
}

DcqcnRp::FlowState& DcqcnRp::flow(unsigned f) {
  if (f >= flows_.size()) {
    FlowState s;
    s.rc_kbps = s.rt_kbps = params_.line_rate_kbps;
    s.alpha_q20 = params_.alpha_init_q20;
    s.next_alpha = s.next_rate = kNever;  // a flow starts at line rate, timers stopped
    flows_.resize(f + 1, s);
  }
  return flows_[f];
}

const DcqcnRp::FlowState& DcqcnRp::state(unsigned f) { return flow(f); }

uint64_t DcqcnRp::rate_period(const FlowState& s) const {
  if (params_.variant == DcqcnVariant::kDcqcn) return params_.rate_timer_cycles;
  // K = lambda * max(tau, MTU / Rc), MTU / Rc in cycles rounded up.
  const uint64_t mtu_cycles =
      (params_.mtu_bytes * 8 * params_.core_clock_hz + s.rc_kbps * 1000 - 1) / (s.rc_kbps * 1000);
  const uint64_t k = (std::max(s.tau_cycles, mtu_cycles) * params_.lambda_q8 + 255) / 256;
  return std::max<uint64_t>(1, k);
}

void DcqcnRp::cut(FlowState& s, uint64_t cycle) {
  const uint32_t one = 1u << 20;
  s.rt_kbps = s.rc_kbps;
  if (!s.cut_yet && params_.first_cnp_rate_kbps) {
    // The first cut sets the rate (never raises it).
    s.rc_kbps = std::max(params_.min_rate_kbps, std::min(s.rc_kbps, params_.first_cnp_rate_kbps));
  } else {
    // Rc (1 - alpha / Gd), at least Rc min_dec and the minimum rate.
    const uint64_t down = (s.rc_kbps * s.alpha_q20) >> (20 + params_.gd_log2);
    const uint64_t floor = (s.rc_kbps * params_.min_dec_q16) >> 16;
    s.rc_kbps = std::max({params_.min_rate_kbps, floor, s.rc_kbps - std::min(down, s.rc_kbps)});
  }
  // alpha = (1 - g) alpha + g, its step rounded up as in the decay.
  const uint32_t step = (s.alpha_q20 + (1u << params_.g_shift) - 1) >> params_.g_shift;
  s.alpha_q20 = std::min(one, s.alpha_q20 - step + (one >> params_.g_shift));
  s.timer_count = s.byte_count = 0;
  s.bytes = 0;
  s.last_cut = cycle;
  s.cut_yet = true;
  s.cut_pending = false;
  s.next_alpha = cycle + params_.alpha_timer_cycles;
  s.next_rate = cycle + rate_period(s);
  ++s.cuts;
}

// An increase event, judged by the counts of the events before it: the first F timer (or
// byte-counter) events of a recovery are fast recovery, as the DCQCN paper's "F = 5
// successive iterations".
void DcqcnRp::increase(FlowState& s) {
  const uint64_t line = params_.line_rate_kbps;
  const unsigned f = params_.fast_recovery_steps;
  if (params_.variant == DcqcnVariant::kDcqcn) {
    const uint32_t hi = std::max(s.timer_count, s.byte_count);
    const uint32_t lo = std::min(s.timer_count, s.byte_count);
    if (hi < f) {
      // fast recovery: toward the target only
    } else if (lo > f) {
      s.rt_kbps += (lo - f) * params_.hai_rate_kbps;  // hyper increase
    } else {
      s.rt_kbps += params_.ai_rate_kbps;  // additive increase
    }
  } else {
    const uint32_t st = s.timer_count;
    if (st < f) {
      // fast recovery
    } else if (st <= 4 * f) {
      s.rt_kbps += std::min(s.rc_kbps / 10, rl_kbps_ / 100);
    } else {
      s.rt_kbps += std::min(s.rc_kbps, (st - 4 * f) * rl_kbps_ / 100);
    }
  }
  s.rt_kbps = std::min(s.rt_kbps, line);
  // Halfway to the target, rounded up so that Rc reaches Rt (rounded down it would stop one
  // kb/s short and keep its timers running for ever).
  s.rc_kbps = std::min(line, (s.rt_kbps + s.rc_kbps + 1) / 2);
  ++s.increases;
}

// A flow back at line rate needs no rate timer (increases change nothing), and one whose
// alpha reached 0 no alpha timer: the flow is then quiet until its next CNP.
void DcqcnRp::settle_quiet(FlowState& s) {
  const uint64_t line = params_.line_rate_kbps;
  if (s.rc_kbps == line && s.rt_kbps == line) s.next_rate = kNever;
  if (s.alpha_q20 == 0) s.next_alpha = kNever;
}

void DcqcnRp::advance(unsigned f, uint64_t cycle) {
  FlowState& s = flow(f);
  if (cycle < s.at) {
    throw std::logic_error("dcqcn_rp: flow " + std::to_string(f) + " advanced backwards (to cycle " +
                           std::to_string(cycle) + " from " + std::to_string(s.at) + ")");
  }
  for (;;) {
    const uint64_t cut_at = s.cut_pending ? s.last_cut + params_.reduce_period_cycles : kNever;
    const uint64_t next = std::min({cut_at, s.next_alpha, s.next_rate});
    if (next > cycle) break;
    // One cycle's events in a fixed order: the held-back cut, then alpha, then the rate timer.
    if (cut_at == next) {
      cut(s, next);
    } else if (s.next_alpha == next) {
      s.alpha_q20 -= (s.alpha_q20 + (1u << params_.g_shift) - 1) >> params_.g_shift;
      s.next_alpha = next + params_.alpha_timer_cycles;
    } else {
      increase(s);
      ++s.timer_count;
      s.next_rate = next + rate_period(s);
    }
    settle_quiet(s);
  }
  s.at = cycle;
}

void DcqcnRp::cnp(unsigned f, uint64_t cycle, uint64_t interval_cycles) {
  advance(f, cycle);
  FlowState& s = flows_[f];
  ++s.cnps;
  if (params_.variant == DcqcnVariant::kPlus) s.tau_cycles = interval_cycles;
  if (!s.cut_yet || params_.reduce_period_cycles == 0 || cycle >= s.last_cut + params_.reduce_period_cycles) {
    cut(s, cycle);
  } else {
    s.cut_pending = true;
  }
}

void DcqcnRp::sent(unsigned f, uint64_t cycle, uint64_t bytes) {
  advance(f, cycle);
  FlowState& s = flows_[f];
  // The byte counter runs while the flow is below line rate (its rate timer running).
  if (params_.byte_counter_bytes == 0 || s.next_rate == kNever) return;
  s.bytes += bytes;
  while (s.bytes >= params_.byte_counter_bytes && s.next_rate != kNever) {
    s.bytes -= params_.byte_counter_bytes;
    increase(s);
    ++s.byte_count;
    settle_quiet(s);
  }
}

uint64_t DcqcnRp::rate_kbps(unsigned f, uint64_t cycle) {
  advance(f, cycle);
  return flows_[f].rc_kbps;
}

uint64_t DcqcnRp::transmit_cycles(unsigned f, uint64_t cycle, uint64_t bytes) {
  const uint64_t r = rate_kbps(f, cycle) * 1000;  // b/s
  return (bytes * 8 * params_.core_clock_hz + r - 1) / r;
}

}  // namespace ibcc::cc
