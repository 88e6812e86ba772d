// One HCA's DCQCN reaction and notification points (cc.reaction: dcqcn | dcqcn_plus): the
// cores of cc/dcqcn_rp.h and cc/dcqcn_np.h with the HCA's QP numbers and the (source, QP)
// pairs it receives from mapped to their dense flow indices, and each QP's pacing (the
// earliest start of its next packet at its current rate). The IB CC counterpart is CctiPort
// (cc_adapters.h).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "cc/dcqcn_np.h"
#include "cc/dcqcn_rp.h"
#include "net/scenario/lid.h"

namespace ibcc::net {

class DcqcnPort {
 public:
  DcqcnPort(const cc::DcqcnRpParams& rp, const cc::DcqcnNpParams& np) : rp_(rp), np_(np) {}

  // The earliest cycle QP `qp` may start its next packet (0: no limit yet).
  uint64_t paced_until(uint32_t qp) const {
    const auto it = rp_ids_.find(qp);
    return it == rp_ids_.end() ? 0 : paced_[it->second];
  }
  // A packet of `qp` with `wire` bytes starts at `now`: the byte counter counts it, and the
  // QP's next packet may start once this one has taken its time at the QP's rate.
  void sent(uint64_t now, uint32_t qp, uint32_t wire) {
    const unsigned f = rp_index(qp);
    paced_[f] = now + rp_.transmit_cycles(f, now, wire);
    rp_.sent(f, now, wire);
  }
  // A CNP for `qp` arrived, carrying the NP's CNP interval (DCQCN+).
  void cnp(uint64_t now, uint32_t qp, uint64_t interval_cycles) {
    const unsigned f = rp_index(qp);
    rp_.cnp(f, now, interval_cycles);
    ++cnps_;
  }
  // Where a CNP of a flow the NP answers goes: the marked data packet's source and QP.
  struct CnpTarget {
    Lid slid = 0;
    uint32_t qp = 0;
    uint8_t sl = 0, vl = 0;
    int32_t flow = -1;
  };
  // A marked data packet arrived: its flow (source LID, QP) asks the NP for a CNP.
  void marked(uint64_t now, const CnpTarget& from) {
    const uint64_t key = uint64_t{from.slid} << 32 | from.qp;
    auto [it, added] = np_ids_.try_emplace(key, static_cast<unsigned>(targets_.size()));
    if (added) targets_.push_back(from);
    np_.marked(it->second, now);
  }
  // The CNP the generator makes at `now`, if one is due: its target and the interval it
  // carries. Call until false; then next_cnp_due() says when to come back.
  bool pop_cnp(uint64_t now, CnpTarget* to, uint64_t* interval_cycles) {
    cc::DcqcnNp::Cnp c;
    if (!np_.pop(now, &c)) return false;
    *to = targets_[c.flow];
    *interval_cycles = c.interval_cycles;
    return true;
  }
  uint64_t next_cnp_due() const { return np_.next_due(); }
  // QP `qp`'s current rate, kb/s (line rate for a QP never cut).
  uint64_t rate_kbps(uint64_t now, uint32_t qp) {
    const auto it = rp_ids_.find(qp);
    return it == rp_ids_.end() ? rp_.params().line_rate_kbps : rp_.rate_kbps(it->second, std::max(now, rp_at(it->second)));
  }
  const cc::DcqcnRp& rp() const { return rp_; }
  const cc::DcqcnNp& np() const { return np_; }
  uint64_t cnps_received() const { return cnps_; }

 private:
  unsigned rp_index(uint32_t qp) {
    auto [it, added] = rp_ids_.try_emplace(qp, static_cast<unsigned>(paced_.size()));
    if (added) paced_.push_back(0);
    return it->second;
  }
  uint64_t rp_at(unsigned f) { return rp_.state(f).at; }

  cc::DcqcnRp rp_;
  cc::DcqcnNp np_;
  std::unordered_map<uint32_t, unsigned> rp_ids_;
  std::unordered_map<uint64_t, unsigned> np_ids_;
  std::vector<CnpTarget> targets_;  // [NP flow]
  std::vector<uint64_t> paced_;
  uint64_t cnps_ = 0;
};

}  // namespace ibcc::net
