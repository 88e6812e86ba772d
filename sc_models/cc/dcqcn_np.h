// The DCQCN notification point: the receiving NIC's CNP generator. A data packet that
// arrives ECN-marked asks for a CNP to its flow's source; the NIC answers at most once per
// CNP interval per flow, and its generator makes at most one CNP per `gen_cycles` (ConnectX-4
// measured about 1 per us, ConnectX-5 about 3 per us: the dissertation's section 6.1). A
// flow whose request the generator cannot take at once waits in its queue (once: a flow
// already waiting is not queued again), served in order of request; a queue in arrival order
// is what keeps the CNPs fair among flows whose packets arrive in a fixed round-robin order
// (answering only the request that finds the generator free would favour one input).
//
// DCQCN+ (variant kPlus): the interval adapts to the incast. It is max(min interval,
// N x gen_cycles), N the flows that asked for a CNP within the last `active_window_cycles`,
// so that the generator can serve all of them; every CNP carries that interval to the
// reaction point, whose timers follow it (dcqcn_rp.h). Time is in core-clock cycles; flows
// are dense indices, state grows with the largest seen (thousands per receiver are fine).
// docs/cc_blocks.md, "DCQCN".
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <queue>
#include <vector>

namespace ibcc::cc {

enum class DcqcnVariant : uint8_t { kDcqcn = 0, kPlus = 1 };

struct DcqcnNpParams {
  DcqcnVariant variant = DcqcnVariant::kDcqcn;
  uint64_t min_interval_cycles = 12500;  // DCQCN: 50 us at 250 MHz; ConnectX-4: 0
  uint64_t gen_cycles = 250;             // the generator's service time (1 CNP/us at 250 MHz); 0: unlimited
  uint64_t active_window_cycles = 25000; // DCQCN+: a flow counts in N this long after its last request

  void validate() const;
};

class DcqcnNp {
 public:
  explicit DcqcnNp(const DcqcnNpParams& params);

  // A marked data packet of `flow` arrives at `cycle` (calls, with pop's, come in
  // non-decreasing cycles): the flow asks for a CNP unless its interval has not passed or it
  // is already waiting.
  void marked(unsigned flow, uint64_t cycle);

  struct Cnp {
    unsigned flow = 0;
    uint64_t interval_cycles = 0;  // the CNP interval carried (DCQCN+; DCQCN: the fixed one)
  };
  // The CNP the generator makes at `cycle`, if one is due then (the first waiting flow, once
  // the generator is free); call until false.
  bool pop(uint64_t cycle, Cnp* cnp);
  // The cycle the next CNP is due (UINT64_MAX: none waits).
  uint64_t next_due() const;

  // The interval a CNP sent now would carry (DCQCN+: from the active flows at `cycle`).
  uint64_t interval(uint64_t cycle);
  unsigned active_flows(uint64_t cycle);

  struct Counters {
    uint64_t requests = 0;        // marked packets
    uint64_t sent = 0;            // CNPs
    uint64_t too_soon = 0;        // within the flow's interval
    uint64_t already_waiting = 0; // the flow waited for the generator already
    uint64_t max_waiting = 0;     // the longest the generator's queue has been
  };
  const Counters& counters() const { return counters_; }
  const DcqcnNpParams& params() const { return params_; }

 private:
  void expire(uint64_t cycle);

  DcqcnNpParams params_;
  static constexpr uint64_t kNever = UINT64_MAX;
  std::vector<uint64_t> last_cnp_;      // per flow: cycle of its last CNP (kNever: none)
  std::vector<bool> waiting_;           // per flow: in queue_
  std::deque<unsigned> queue_;          // flows waiting for the generator, in request order
  std::vector<uint64_t> active_until_;  // per flow (DCQCN+): counts in N before this cycle
  // (until, flow) of every request; entries whose flow asked again since are stale.
  std::priority_queue<std::pair<uint64_t, unsigned>, std::vector<std::pair<uint64_t, unsigned>>,
                      std::greater<std::pair<uint64_t, unsigned>>>
      expiries_;
  unsigned active_ = 0;
  uint64_t generator_free_ = 0;  // the generator may make its next CNP from this cycle
  Counters counters_;
};

}  // namespace ibcc::cc
