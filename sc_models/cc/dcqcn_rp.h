// The DCQCN reaction point: the sending NIC's per-flow rate limiter, cut by CNPs and
// recovered by a timer and a byte counter (DCQCN, SIGCOMM 2015; the dissertation's Figure
// 6), and DCQCN+ (its Figure 7: no byte counter, the rate-increase period
// K = lambda * max(tau, MTU / Rc) from the CNP interval tau the NP carries, and increase
// steps bounded by R_l). Plain C++ with cycle-level semantics: every timer fires at an exact
// core-clock cycle, and a flow's state is advanced lazily to the cycle of each call, so any
// call pattern gives the state that stepping every cycle gives (tests/test_dcqcn.cpp).
// docs/cc_blocks.md, "DCQCN".
//
// Fixed point as a NIC keeps it: rates in kb/s, alpha in 1/2^20. alpha's decay rounds its
// step up (alpha -= ceil(alpha * g)), so that an idle flow's alpha reaches 0 and the flow
// goes quiet (no timers) instead of decaying forever.
#pragma once

#include <cstdint>
#include <vector>

#include "cc/dcqcn_np.h"

namespace ibcc::cc {

struct DcqcnRpParams {
  DcqcnVariant variant = DcqcnVariant::kDcqcn;
  uint64_t core_clock_hz = 250'000'000;
  uint64_t line_rate_kbps = 40'000'000;  // the flow starts here and never exceeds it
  uint64_t min_rate_kbps = 10'000;       // a cut never goes below
  unsigned g_shift = 8;                  // g = 1 / 2^g_shift (1/256)
  uint32_t alpha_init_q20 = 1u << 20;    // alpha before the first CNP (1.0)
  uint64_t alpha_timer_cycles = 13750;   // K: 55 us at 250 MHz; alpha decays when it fires
  uint64_t rate_timer_cycles = 13750;    // T: 55 us (ConnectX-4: 300 us)
  uint64_t byte_counter_bytes = 10'000'000;  // B: 10 MB (ConnectX-4: 2 MB); 0: none (DCQCN+ has none)
  unsigned fast_recovery_steps = 5;      // F
  uint64_t ai_rate_kbps = 40'000;        // R_AI: 40 Mb/s (ConnectX-4: 5 Mb/s)
  uint64_t hai_rate_kbps = 100'000;      // R_HAI: 100 Mb/s (ConnectX-4: 40 Mb/s)
  uint64_t reduce_period_cycles = 0;     // at most one cut per period (ConnectX-4: 4 us); 0: every CNP
  // A cut takes Rc alpha / 2^gd_log2 (1: the paper's alpha / 2; NVIDIA's rpg_gd is gd_log2 + 10,
  // its alpha having 10 fraction bits), but leaves at least Rc min_dec_q16 / 65536 (NVIDIA's
  // rpg_min_dec_fac; 0: no such floor).
  unsigned gd_log2 = 1;
  uint32_t min_dec_q16 = 0;
  uint64_t first_cnp_rate_kbps = 0;      // the flow's first cut sets Rc to this instead (0: a cut like any other)
  // DCQCN+.
  uint32_t lambda_q8 = 256;              // lambda in 1/256 (1.0; the dissertation gives no value)
  uint64_t mtu_bytes = 4096;             // MTU in K's MTU / Rc
  uint64_t rl_kbps = 0;                  // R_l, the increase bound; 0: the line rate

  void validate() const;
};

class DcqcnRp {
 public:
  explicit DcqcnRp(const DcqcnRpParams& params);

  // A CNP for `flow` at `cycle` (calls for one flow come in non-decreasing cycles);
  // `interval_cycles` is the CNP interval it carries (DCQCN+; ignored by DCQCN).
  void cnp(unsigned flow, uint64_t cycle, uint64_t interval_cycles = 0);
  // `bytes` of `flow` left at `cycle` (the byte counter).
  void sent(unsigned flow, uint64_t cycle, uint64_t bytes);
  // Brings the flow's timers to `cycle` (what every other call does first).
  void advance(unsigned flow, uint64_t cycle);

  // The flow's current rate at `cycle`, and the cycles `bytes` take at it (rounded up).
  uint64_t rate_kbps(unsigned flow, uint64_t cycle);
  uint64_t transmit_cycles(unsigned flow, uint64_t cycle, uint64_t bytes);

  struct FlowState {
    uint64_t rc_kbps = 0, rt_kbps = 0;
    uint32_t alpha_q20 = 0;
    uint32_t timer_count = 0, byte_count = 0;  // T and BC (DCQCN+: S = timer_count)
    uint64_t bytes = 0;                        // since the last byte-counter event
    uint64_t next_alpha = 0, next_rate = 0;    // timers' next expiry (kNever: stopped)
    uint64_t last_cut = 0;
    bool cut_yet = false;
    bool cut_pending = false;                  // a CNP inside the reduce period, cut at its end
    uint64_t tau_cycles = 0;                   // DCQCN+: the last CNP's interval
    uint64_t at = 0;                           // advanced to this cycle
    uint64_t cuts = 0, increases = 0, cnps = 0;
  };
  // Flow state as it stands (not advanced); a flow never seen is at line rate.
  const FlowState& state(unsigned flow);
  size_t flows() const { return flows_.size(); }
  const DcqcnRpParams& params() const { return params_; }

  static constexpr uint64_t kNever = UINT64_MAX;

 private:
  FlowState& flow(unsigned f);
  void cut(FlowState& s, uint64_t cycle);
  void increase(FlowState& s);
  uint64_t rate_period(const FlowState& s) const;
  void settle_quiet(FlowState& s);

  DcqcnRpParams params_;
  uint64_t rl_kbps_;
  std::vector<FlowState> flows_;
};

}  // namespace ibcc::cc
