// A switch output's arbitration (output_unit.h).
#include "net/fabric/output_unit.h"

#include <algorithm>

namespace ibcc::net {

int OutputUnit::pick(unsigned o, uint64_t now, OutPort& op, Crossbar& xbar, Scratch& scratch, uint64_t* next_eligible) {
  for (OutPort::Vl& v : op.vls) v.need = UINT32_MAX;
  scratch.ready_ = false;
  xbar.clear_waits(o);
  const SwitchConfig& cfg = *cfg_;
  const bool tables = cfg.vlarb != nullptr;
  const bool oldest_first = cfg.oldest_first, credit_in_order = cfg.credit_in_order;
  std::array<int, kMaxVls>& passed = scratch.passed_;
  Scratch::HeadAges& ages = scratch.age_;
  std::array<int, kMaxVls> first_ready;  // (read only with tables or oldest first)
  if (tables || oldest_first) first_ready.fill(-1);
  uint32_t held = 0;  // VLs held by a head waiting for credits (credit_in_order)
  std::fill_n(passed.begin(), nvl_, -1);
  if (oldest_first) ages = Scratch::HeadAges();  // (only then: round robin does not pay for it)
  // Visit the requesting (input, VL) pairs in round-robin order. Round robin starts the
  // first that may go; with VLArbitration tables, the first that may go on each VL is noted
  // and the tables choose the VL; oldest first notes each VL's oldest head.
  const int go = arb_.scan([&](unsigned idx) {
    const unsigned vl = by_vl_.rem(idx);
    if (oldest_first) {
      oldest_head(o, idx, now, op, xbar, scratch, next_eligible);
      return false;
    }
    if (held & (1u << vl)) return false;
    if (!may_go(o, idx, now, op, xbar, scratch, next_eligible)) {
      // In order: the first head that lacks credits holds its VL until they are back.
      if (credit_in_order && op.vls[vl].need != UINT32_MAX) held |= 1u << vl;
      // First fit: a head of this VL that goes after it in this scan passes it by.
      if (scratch.short_ && passed[vl] < 0 && (!tables || first_ready[vl] < 0)) passed[vl] = static_cast<int>(idx);
      return false;
    }
    if (!tables) return true;
    if (first_ready[vl] < 0) first_ready[vl] = static_cast<int>(idx);
    return false;
  });
  if (go >= 0) return go;
  if (oldest_first) {
    int best = -1;
    for (unsigned vl = 0; vl < nvl_; ++vl) {
      // First fit: the oldest head that lacks credits, if older than the one that may go.
      if (ages.short_t[vl] < ages.ready_t[vl]) passed[vl] = ages.short_idx[vl];
      // In order: a VL whose oldest head lacks credits waits for them.
      if (ages.ready[vl] < 0 || (credit_in_order && ages.short_t[vl] < ages.ready_t[vl])) continue;
      first_ready[vl] = ages.ready[vl];
      if (best < 0 || ages.ready_t[vl] < ages.ready_t[best]) best = static_cast<int>(vl);
    }
    if (!tables && best >= 0) return first_ready[best];
  }
  if (tables) {
    uint32_t ready = 0;
    for (unsigned v = 0; v < nvl_; ++v) ready |= (first_ready[v] >= 0 ? 1u : 0u) << v;
    const int vl = op.vlarb.pick(*cfg.vlarb, nvl_, ready);
    if (vl >= 0) return first_ready[vl];
  }
  return -1;
}

void OutputUnit::oldest_head(unsigned o, unsigned idx, uint64_t now, OutPort& op, Crossbar& xbar, Scratch& scratch,
                             uint64_t* next_eligible) {
  Scratch::HeadAges* age = &scratch.age_;
  const unsigned vl = by_vl_.rem(idx);
  const uint64_t t = voq(by_vl_.quot(idx) + 1, vl).head_eligible;
  // may_go for every head, also younger ones: it notes the credits and the cycle each waits
  // for, which wake the output again (a younger small packet may fit first, first_fit).
  if (may_go(o, idx, now, op, xbar, scratch, next_eligible)) {
    if (t < age->ready_t[vl]) {
      age->ready_t[vl] = t;
      age->ready[vl] = static_cast<int>(idx);
    }
  } else if (scratch.short_ && t < age->short_t[vl]) {
    age->short_t[vl] = t;
    age->short_idx[vl] = static_cast<int>(idx);
  }
}

bool OutputUnit::may_go(unsigned o, unsigned idx, uint64_t now, OutPort& op, Crossbar& xbar, Scratch& scratch,
                        uint64_t* next_eligible) {
  scratch.short_ = false;
  const unsigned ip = by_vl_.quot(idx) + 1, vl = by_vl_.rem(idx);
  const PacketFifo& q = voq(ip, vl);
  if (q.head_eligible > now) {
    *next_eligible = std::min(*next_eligible, q.head_eligible);
    return false;
  }
  scratch.ready_ = true;
  if (!cfg_->ignore_credits) {
    const CreditReserve& r = reserve_[vl];
    const uint32_t need = q.head_credits + (r.pair != CreditReserve::kNone && r.pair != idx ? r.credits : 0u);
    if (op.vls[vl].credits < need) {
      op.vls[vl].need = std::min(op.vls[vl].need, need);
      scratch.short_ = true;
      return false;
    }
  }
  if (!xbar.fits(ip, op.rate_bytes_per_cycle)) {
    xbar.note_wait(o, ip);
    return false;
  }
  return true;
}

void OutputUnit::granted(unsigned idx, const Scratch& scratch) {
  const std::array<int, kMaxVls>& passed = scratch.passed_;
  const unsigned vl = by_vl_.rem(idx);
  arb_.granted(idx);
  CreditReserve& r = reserve_[vl];
  if (r.pair == idx) {
    r = {};
  } else if (r.pair == CreditReserve::kNone && passed[vl] >= 0 && !cfg_->credit_in_order) {
    // A head passed by for want of its credits: they are kept for it from now on.
    const unsigned p = static_cast<unsigned>(passed[vl]);
    r = {p, voq(by_vl_.quot(p) + 1, vl).head_credits};
  }
}

}  // namespace ibcc::net
