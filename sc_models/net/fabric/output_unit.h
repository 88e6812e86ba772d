// One output of a switch, as gem5 Garnet's OutputUnit with the switch allocator's part for
// it: the VoQs toward it (one per input and VL, in (input, VL) order, so that its arbiter
// scans them in one array), the arbitration over their heads (round robin or oldest first
// between inputs, VLArbitration tables between VLs, the credits a head needs and the
// crossbar port it reads from), the credits kept for a head that a smaller one passed by
// (first_fit), its marking point and its egress accounting. The Switch composes one per
// port; the link state it sends on (OutPort: credits per VL, the transmitter) is the
// port's, passed in.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/small_div.h"
#include "net/fabric/crossbar.h"
#include "net/fabric/marking_point.h"
#include "net/fabric/node_context.h"
#include "net/fabric/packet.h"
#include "net/fabric/switch_config.h"
#include "net/fabric/voq_arbiter.h"

namespace ibcc::net {

class OutputUnit {
 public:
  OutputUnit() = default;
  // The output of a switch of `ports` ports and `vls` VLs.
  // (`cfg` outlives the unit: the Switch's.)
  OutputUnit(unsigned ports, unsigned vls, const SwitchConfig& cfg)
      : nvl_(vls), cfg_(&cfg), voq_((ports + 1) * vls), arb_(ports * vls), by_vl_(vls), reserve_(vls) {}

  // The VoQ of input `in_port`, VL `vl` toward this output.
  PacketFifo& voq(unsigned in_port, unsigned vl) { return voq_[in_port * nvl_ + vl]; }
  const PacketFifo& voq(unsigned in_port, unsigned vl) const { return voq_[in_port * nvl_ + vl]; }
  // Non-empty VoQs.
  unsigned pending() const { return pending_; }
  // Queues `pkt` (its eligible_cycle set) in its VoQ; the arbiter hears of a VoQ that was empty.
  void push(unsigned in_port, unsigned vl, tlm::tlm_generic_payload* pkt) {
    PacketFifo& q = voq(in_port, vl);
    if (q.empty()) {
      ++pending_;
      arb_.request((in_port - 1) * nvl_ + vl, true);
    }
    q.push(pkt);
  }
  // Takes the head of a VoQ; the arbiter hears of a VoQ left empty.
  tlm::tlm_generic_payload* pop(unsigned in_port, unsigned vl) {
    PacketFifo& q = voq(in_port, vl);
    tlm::tlm_generic_payload* pkt = q.pop();
    if (q.empty()) {
      --pending_;
      arb_.request((in_port - 1) * nvl_ + vl, false);
    }
    return pkt;
  }
  // Visits each non-empty VoQ (input, VL), in round-robin order from the pointer.
  template <typename F>
  void for_each_queued(F&& f) const {
    arb_.scan([&](unsigned pair) {
      f(input_of(pair), vl_of(pair), voq(input_of(pair), vl_of(pair)));
      return false;
    });
  }

  // A VoQ pair number ((input - 1) * VLs + VL) as its input and VL.
  unsigned input_of(unsigned pair) const { return by_vl_.quot(pair) + 1; }
  unsigned vl_of(unsigned pair) const { return by_vl_.rem(pair); }

  // What one arbitration notes while it scans, for granted(): one per switch, shared by its
  // outputs (an arbitration is over before the next begins).
  struct Scratch;

  // Arbitration at cycle `now` for output `o`, whose link state is `op`: the pair whose head
  // goes now, or -1 (then `next_eligible` is the first cycle a head not yet eligible will be,
  // UINT64_MAX if none, and `op`'s VLs note the credits their heads need). Notes in `xbar`
  // the inputs whose crossbar port held a head back.
  int pick(unsigned o, uint64_t now, OutPort& op, Crossbar& xbar, Scratch& scratch, uint64_t* next_eligible);
  // The pair `pick` chose goes: round robin goes on after it, and the credits a head it
  // passed by needs are kept for that head (first_fit) until it goes.
  void granted(unsigned pair, const Scratch& scratch);

  // Credits kept on a VL for a head passed by for want of them (first_fit): from then on the
  // other heads of that VL may use only the credits beyond them, so a large head is never
  // starved by small packets taking each credit as it returns. Kept until it goes. (Heads of
  // one size never pass each other.)
  struct CreditReserve {
    static constexpr uint32_t kNone = UINT32_MAX;
    uint32_t pair = kNone;  // the VoQ pair whose head holds it
    uint32_t credits = 0;   // that head's credits
  };
  const CreditReserve& reserve(unsigned vl) const { return reserve_[vl]; }

  // The marking point (cc.marking; null: CC off, or the port is not linked).
  void attach_marking(std::unique_ptr<MarkingPoint> m) { marking_ = std::move(m); }
  MarkingPoint* marking() const { return marking_.get(); }

  // Egress accounting (a marking point that watches egress queues, a lossy output or shared
  // buffer): bytes queued toward this output per VL, and the peak of their sum.
  void track_egress() {
    if (egress_bytes_.empty()) egress_bytes_.assign(nvl_, 0);
  }
  bool tracks_egress() const { return !egress_bytes_.empty(); }
  uint64_t& egress_bytes(unsigned vl) { return egress_bytes_[vl]; }
  uint64_t egress_bytes(unsigned vl) const { return egress_bytes_.empty() ? 0 : egress_bytes_[vl]; }
  uint64_t egress_peak() const { return egress_peak_; }
  // After bytes were added: the peak follows their sum (inside the statistics window).
  void note_egress_peak() {
    uint64_t all = 0;
    for (unsigned v = 0; v < nvl_; ++v) all += egress_bytes_[v];
    egress_peak_ = std::max(egress_peak_, all);
  }

 private:
  // May the head of VoQ `pair` go now? Notes what it waits for; scratch.short_ says whether
  // the answer was no for want of credits.
  bool may_go(unsigned o, unsigned pair, uint64_t now, OutPort& op, Crossbar& xbar, Scratch& scratch,
              uint64_t* next_eligible);
  void oldest_head(unsigned o, unsigned pair, uint64_t now, OutPort& op, Crossbar& xbar, Scratch& scratch,
                   uint64_t* next_eligible);

  // What a head's arrival, an arbitration and a departure read first lie together.
  unsigned pending_ = 0;
  unsigned nvl_ = 0;
  const SwitchConfig* cfg_ = nullptr;
  std::vector<PacketFifo> voq_;  // [input * VLs + VL] (input 0 unused)
  VoqArbiter arb_;
  SmallDiv by_vl_;
  std::unique_ptr<MarkingPoint> marking_;
  std::vector<CreditReserve> reserve_;  // [VL]
  std::vector<uint64_t> egress_bytes_;  // [VL] (empty: not tracked)
  uint64_t egress_peak_ = 0;
};

struct OutputUnit::Scratch {
  // oldest_first: per VL, the oldest head that may go and the oldest that lacks credits
  // (head_eligible = arrival + switch latency orders heads by age).
  struct HeadAges {
    std::array<int, kMaxVls> ready;
    std::array<uint64_t, kMaxVls> ready_t, short_t;
    std::array<int, kMaxVls> short_idx;  // the head short_t is the age of
    HeadAges() {
      ready.fill(-1);
      ready_t.fill(UINT64_MAX);
      short_t.fill(UINT64_MAX);
      short_idx.fill(-1);
    }
  };
  bool short_ = false;
  bool ready_ = false;  // some head was through the switch's latency (it waits for credits or the crossbar)
  // Per VL, the head a grant in this arbitration would pass by for want of its credits (round
  // robin: the first short one before it in the scan; oldest first: the oldest short one, if
  // older than the granted head): granted() keeps the credits for it.
  std::array<int, kMaxVls> passed_{};
  HeadAges age_;  // oldest_first: this arbitration's oldest heads
};

}  // namespace ibcc::net
