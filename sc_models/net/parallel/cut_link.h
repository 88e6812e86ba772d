// One direction of a link between two shards of a parallel run (a cut link). The sending
// node's port calls it where it would call its peer's PortEnd (OutPort::fw for heads,
// InputUnit::bw for credits and pauses); it notes, in the sending shard's outbox toward the
// receiving shard, what arrives at the peer's end and at which cycle (the sender's time
// plus the link's delay, as the peer's end would have computed it). At the next barrier the
// receiving shard hands each message to that end through its TLM-2.0 interface
// (NodeContext::deliver), with the delay that remains, so the end schedules it exactly where
// a sequential run does. A message always arrives after the window it was sent in (the
// window is the smallest delay of any cut link): no shard learns of it late.
#pragma once

#include <systemc>
#include <tlm>

#include <vector>

#include "net/fabric/node_context.h"

namespace ibcc::net {

class CutLinkEnd : public PortEnd::FwIf, public PortEnd::BwIf {
 public:
  // From a port of a node of shard `from`, toward `target` (the peer's end), through `box`
  // (from's outbox toward the target's shard).
  CutLinkEnd(NodeContext& from, PortEnd& target, std::vector<CrossMessage>& box) : from_(from), target_(target), box_(box) {}

  // A head (forward path).
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase&, sc_core::sc_time& delay) override {
    box_.push_back(CrossMessage{from_.arrival_cycle(delay), from_.now(), &target_, &gp, 0, 0, 0});
    return tlm::TLM_ACCEPTED;
  }
  // Credits or a pause (backward path): the credit payload is the sender's, so its content
  // travels in the message.
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase&, sc_core::sc_time& delay) override {
    const IbCredit& c = static_cast<CreditPayload&>(gp).credit;
    box_.push_back(CrossMessage{from_.arrival_cycle(delay), from_.now(), &target_, nullptr, c.vl, c.credits, c.pfc});
    return tlm::TLM_ACCEPTED;
  }
  // Not part of the link protocol (PortEnd's: b_transport is refused there).
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) override { target_.b_transport(gp, delay); }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(tlm::tlm_generic_payload&) override { return 0; }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}

 private:
  NodeContext& from_;
  PortEnd& target_;
  std::vector<CrossMessage>& box_;
};

}  // namespace ibcc::net
